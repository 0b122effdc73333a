#include "actors/core/sha256.hpp"
#include "actors/core/status.hpp"
#include "actors/writer_internal.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors::writer {

namespace {

core::StatusInput status_input(const RootWrites& rw) {
  const core::Effects& fx = rw.out->effects;
  core::StatusInput in;
  in.generation = rw.out->generation;
  in.root_valid = fx.root_valid;
  in.paused = fx.paused;
  in.counts = fx.counts;
  in.problems = fx.problems;
  in.write_error = rw.write_error;
  std::vector<model::Value> observed;
  for (const auto& [id, obj] : rw.observed) observed.push_back(obj);
  in.not_ready = core::workloads_not_ready(observed);
  return in;
}

// A Warning Event on the GrafanaAgent; its name is derived from the
// message, so the same failure is reported once (409 on a repeat).
void emit_event(Actor self, const core::RootKey& key, const RootOutput& out, const model::Value& cond) {
  std::string reason = core::str_at(cond, {"reason"}), message = core::str_at(cond, {"message"});
  std::string now = self->state.cfg.now_rfc3339 ? self->state.cfg.now_rfc3339() : "";
  std::string digest = core::sha256_hex(reason + "\n" + message + "\n" + std::to_string(out.generation));
  model::Value ev = model::Value::obj(
      {{"apiVersion", "v1"},
       {"kind", "Event"},
       {"metadata", model::Value::obj({{"name", key.second + "." + digest.substr(0, 16)}, {"namespace", key.first}})},
       {"involvedObject", model::Value::obj({{"apiVersion", "monitoring.grafana.com/v1alpha1"},
                                             {"kind", "GrafanaAgent"},
                                             {"namespace", key.first},
                                             {"name", key.second},
                                             {"uid", out.uid}})},
       {"reason", reason},
       {"message", message},
       {"type", "Warning"},
       {"count", 1},
       {"source", model::Value::obj({{"component", "agent-operator"}})},
       {"firstTimestamp", now},
       {"lastTimestamp", now}});
  auto on_write = self->state.cfg.on_write;
  self->state.cfg.client->create(*k8s::resource_for_kind("Event"), key.first, model::to_json(ev),
                                 [on_write](k8s::Result r) {
                                   if (on_write) on_write("Event", "event", r.status);
                                 });
  ++self->state.stats.events;
}

}  // namespace

std::string describe(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind + " " + (ns.empty() ? name : ns + "/" + name);
}

void report_status(Actor self, const core::RootKey& key, RootWrites& rw) {
  State& st = self->state;
  if (!rw.out || !rw.out->effects.root_present || !st.cfg.write_status || !st.leader || !fence_holds(self)) return;
  const model::Value& base = rw.written_status.is_null() ? rw.out->previous_status : rw.written_status;
  std::string now = st.cfg.now_rfc3339 ? st.cfg.now_rfc3339() : "";
  model::Value status = core::agent_status(status_input(rw), base, now);
  if (status == rw.written_status || status == rw.out->previous_status) return;
  rw.written_status = status;
  model::Value patch = model::Value::obj({{"status", status}});
  // A merge patch keeps what it omits: problems that are fixed must be
  // deleted explicitly, or they stay beside Reconciled=True.
  if (!status.find("problems")) patch.find("status")->set("problems", model::Value());
  auto on_write = st.cfg.on_write;
  st.cfg.client->patch(
      *k8s::resource_for_kind("GrafanaAgent"), key.first, key.second, k8s::PatchType::merge, model::to_json(patch),
      [on_write, me = caf::actor_cast<writer_actor>(self), key](k8s::Result r) {
        if (on_write) on_write("GrafanaAgent", "status", r.status);
        // Forget what we "wrote" so the next report tries again.
        if (!r.ok()) caf::anon_send(me, status_atom::value, key);
      },
      "status");
  ++st.stats.status_writes;
  const model::Value* rec = core::find_condition(status, "Reconciled");
  if (!st.cfg.emit_events || !rec || core::str_at(*rec, {"status"}) != "False") return;
  std::string signature = core::str_at(*rec, {"reason"}) + "|" + core::str_at(*rec, {"message"});
  if (signature == rw.last_event) return;
  rw.last_event = signature;
  emit_event(self, key, *rw.out, *rec);
}

}  // namespace actors::writer
