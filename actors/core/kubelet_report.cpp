// The kubelet machine's report of Nodes it leaves out: a log line and a
// Warning Event per distinct problem, and a line when the Node is back.
#include "actors/core/kubelet_report.hpp"

#include "model/object_fields.hpp"
#include "model/sha256.hpp"

namespace actors::core {

namespace {

// A Warning Event on the Node; named after the problem, so a repeat by a
// new leader is a harmless 409.
model::Value node_event(const KubeletState& st, const model::Problem& p, const std::string& uid) {
  std::string now = st.settings.now_rfc3339 ? st.settings.now_rfc3339() : "";
  std::string digest = model::sha256_hex(p.str()).substr(0, 16);
  model::Value ref = model::Value::obj({{"apiVersion", "v1"}, {"kind", "Node"}, {"name", p.name}});
  if (!uid.empty()) ref.set("uid", uid);
  return model::Value::obj(
      {{"apiVersion", "v1"},
       {"kind", "Event"},
       {"metadata", model::Value::obj({{"name", p.name + "." + digest}, {"namespace", st.settings.service.ns}})},
       {"involvedObject", std::move(ref)},
       {"reason", "NodeAddressUnknown"},
       {"message", p.path + ": " + p.message},
       {"type", "Warning"},
       {"count", 1},
       {"source", model::Value::obj({{"component", "agent-operator"}})},
       {"firstTimestamp", now},
       {"lastTimestamp", now}});
}

}  // namespace

// Each skipped Node once per distinct problem, and again when it is back.
WriterEffects report_kubelet_nodes(KubeletState& st, const model::KubeletObjects& objs) {
  WriterEffects fx;
  auto add = [&](WriterEffect::Type t) -> WriterEffect& {
    fx.push_back(WriterEffect{t, kubelet_key(st)});
    return fx.back();
  };
  auto log = [&](model::LogEntry e) { add(WriterEffect::Type::log).entry = std::move(e); };
  std::map<std::string, std::string> now;
  for (const model::Problem& p : objs.problems) {
    std::string text = p.str();
    now[p.name] = text;
    auto it = st.reported.find(p.name);
    if (it != st.reported.end() && it->second == text) continue;
    log(model::log_warn(kKubeletComponent, "skipping a Node without a usable address")
            .object("Node", "", p.name)
            .with("field", p.path)
            .with("problem", p.message));
    if (!st.settings.emit_events) continue;
    auto node = st.nodes.find(p.name);
    std::string uid = node == st.nodes.end() ? "" : model::meta_string(node->second, "uid");
    add(WriterEffect::Type::event).body = node_event(st, p, uid);
    ++st.stats.events;
  }
  for (const auto& [node, text] : st.reported)
    if (!now.count(node))
      log(model::log_info(kKubeletComponent, st.nodes.count(node) ? "Node has an address again" : "Node is gone")
              .object("Node", "", node));
  st.reported = std::move(now);
  return fx;
}

}  // namespace actors::core
