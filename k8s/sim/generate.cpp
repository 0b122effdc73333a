#include "k8s/sim/generate.hpp"

#include <stdexcept>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/selector.hpp"

namespace k8s::sim {

namespace {

std::uint64_t parse_number(const std::string& key, const std::string& text) {
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || text[0] == '-')
    throw std::invalid_argument("--generate: " + key + " wants a non-negative integer, got \"" + text + "\"");
  return n;
}

std::size_t* field_of(GenerateSpec& s, const std::string& key) {
  if (key == "namespaces") return &s.namespaces;
  if (key == "agents") return &s.agents;
  if (key == "metrics_instances") return &s.metrics_instances;
  if (key == "service_monitors") return &s.service_monitors;
  if (key == "pod_monitors") return &s.pod_monitors;
  if (key == "probes") return &s.probes;
  if (key == "secrets") return &s.secrets;
  if (key == "pods") return &s.pods;
  return nullptr;
}

void check_spec(const GenerateSpec& s) {
  if (s.namespaces == 0) throw std::invalid_argument("--generate: namespaces must be at least 1");
  if (s.metrics_instances > 0 && s.agents == 0)
    throw std::invalid_argument("--generate: metrics_instances need at least one agent");
  if (s.namespaces > 100000) throw std::invalid_argument("--generate: at most 100000 namespaces");
}

bool exists(Cluster& cluster, const ResourceType& t, const std::string& name) {
  try {
    cluster.store().get(t, "", name);
    return true;
  } catch (const ApiError& e) {
    if (e.code() == 404) return false;
    throw;
  }
}

}  // namespace

GenerateSpec parse_generate_spec(const std::string& text) {
  GenerateSpec spec;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--generate: \"" + item + "\" is not key=value");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "seed") {
      spec.seed = parse_number(key, value);
    } else if (std::size_t* field = field_of(spec, key)) {
      *field = static_cast<std::size_t>(parse_number(key, value));
    } else {
      throw std::invalid_argument("--generate: unknown key \"" + key +
                                  "\" (known: namespaces, agents, metrics_instances, service_monitors, "
                                  "pod_monitors, probes, secrets, pods, seed)");
    }
  }
  check_spec(spec);
  return spec;
}

std::size_t generate_cluster(Cluster& cluster, const GenerateSpec& spec) {
  for (const char* plural : {"grafanaagents", "metricsinstances"})
    if (!cluster.types().find("monitoring.grafana.com", "v1alpha1", plural))
      throw std::runtime_error(std::string("--generate needs the CRDs of deploy/crds loaded first (no ") + plural +
                               ".monitoring.grafana.com)");
  for (const char* plural : {"servicemonitors", "podmonitors", "probes"})
    if (!cluster.types().find("monitoring.coreos.com", "v1", plural))
      throw std::runtime_error(std::string("--generate needs the CRDs of deploy/prometheus-operator-crds loaded "
                                           "first (no ") +
                               plural + ".monitoring.coreos.com)");
  std::vector<model::Value> objects = generate_objects(spec);
  WriteOptions strict;
  strict.validation = FieldValidation::strict;
  std::vector<std::string> warnings;
  std::size_t created = 0;
  for (model::Value& object : objects) {
    auto type = cluster.types().find_kind(field_text(object, "apiVersion"), field_text(object, "kind"));
    if (!type) throw std::runtime_error("--generate: no type for " + field_text(object, "kind"));
    std::string ns = field_text(object, "metadata.namespace");
    // Namespaces may already come from --load; the objects then join them.
    if (!type->namespaced && exists(cluster, *type, field_text(object, "metadata.name"))) continue;
    std::string what = field_text(object, "kind") + " " + ns + "/" + field_text(object, "metadata.name");
    try {
      cluster.create(*type, ns, std::move(object), strict, warnings);
      ++created;
    } catch (const ApiError& e) {
      throw std::runtime_error("--generate: " + what + ": " + e.what());
    }
  }
  return created;
}

}  // namespace k8s::sim
