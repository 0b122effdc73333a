// The pure half of the stand-in pods: the SD answers and Endpoints they
// stand for (sd/standin_pods.hpp). The sockets are in standin_pods.cpp.
#include "sd/standin_pods.hpp"

#include <tuple>

#include "model/http_sd.hpp"
#include "model/labels.hpp"
#include "model/render.hpp"
#include "sd/endpoints.hpp"

namespace sd {

namespace {

// One integration's target as an integrations-next agent on `hostname`
// labels it.
model::HttpSdGroup standin_group(const std::string& hostname, const std::string& name) {
  return {{hostname + ":12345"},
          {{"job", "integrations/" + name},
           {"instance", hostname},
           {"agent_hostname", hostname},
           {"__metrics_path__", "/integrations/" + name + "/metrics"},
           {"__meta_agent_integration_name", name},
           {"__meta_agent_integration_instance", hostname},
           {"__meta_agent_integration_autoscrape", "0"}}};  // integrations-next writes 1/0
}

}  // namespace

std::string standin_sd_body(const std::string& hostname, const std::vector<std::string>& integrations,
                            const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<model::HttpSdGroup> groups;
  for (const std::string& name : integrations) {
    groups.push_back(standin_group(hostname, name));
    for (const auto& [k, v] : extra) groups.back().labels[k] = v;
  }
  return model::encode_http_sd(groups);
}

std::string standin_sd_body_for(const model::Value& config, const std::string& host) {
  std::vector<model::HttpSdGroup> groups;
  const model::Value* integrations = config.find("integrations");
  if (!integrations || !integrations->is_object()) return "[]";
  for (const auto& [key, list] : integrations->as_object()) {
    if (key.size() < 9 || key.view().substr(key.size() - 8) != "_configs" || !list.is_array()) continue;
    std::string name = key.str().substr(0, key.size() - 8);
    for (const model::Value& item : list.as_array()) {
      groups.push_back(standin_group(host, name));
      if (const model::Value* extra = item.find("extra_labels"); extra && extra->is_object())
        for (const auto& [k, v] : extra->as_object())
          if (v.is_string()) groups.back().labels[k] = v.as_string();
    }
  }
  return model::encode_http_sd(groups);
}

model::Value standin_endpoints(const std::string& ns, const std::string& agent,
                               const std::vector<std::string>& addresses) {
  using model::Value;
  Value subsets = Value::array();
  for (const std::string& a : addresses) {
    std::size_t colon = a.rfind(':');
    subsets.push(Value::obj(
        {{"addresses", Value::arr({Value::obj({{"ip", a.substr(0, colon)}})})},
         {"ports", Value::arr({Value::obj({{"name", kPortName}, {"port", std::stoi(a.substr(colon + 1))}})})}}));
  }
  Value labels = Value::obj({{model::kManagedByLabel, model::kManagedByValue},
                             {model::kAgentNameLabel, agent},
                             {model::kTypeLabel, kIntegrationsType}});
  Value meta = Value::obj({{"name", agent + "-integrations"}, {"namespace", ns}, {"labels", std::move(labels)}});
  return Value::obj(
      {{"apiVersion", "v1"}, {"kind", "Endpoints"}, {"metadata", std::move(meta)}, {"subsets", std::move(subsets)}});
}

}  // namespace sd
