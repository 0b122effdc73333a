#include "actors/core/status.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "actors/core/writer_plan.hpp"
#include "model/object_fields.hpp"

namespace actors::core {

using model::Value;

namespace {

struct Condition {
  std::string type, status, reason, message;
};

// Counts resources, not problems: one monitor with three bad fields is one.
std::size_t resources_with(const StatusInput& in, bool warnings) {
  std::set<std::tuple<std::string, std::string, std::string>> resources;
  for (const auto& p : in.problems)
    if (p.warning == warnings) resources.emplace(p.kind, p.ns, p.name);
  return resources.size();
}

std::string member_summary(const StatusInput& in) {
  std::size_t n = resources_with(in, false);
  return std::to_string(n) + (n == 1 ? " resource has a problem" : " resources have problems") +
         "; see status.problems";
}

// Warnings leave the resource rendered: Reconciled stays True, and says so.
std::string applied_message(const StatusInput& in) {
  std::string msg = "all desired objects are applied";
  if (std::size_t n = resources_with(in, true))
    msg += "; " + std::to_string(n) + (n == 1 ? " resource has" : " resources have") +
           " fields that are ignored, see status.problems";
  return msg;
}

Condition reconciled(const StatusInput& in) {
  if (in.paused) return {"Reconciled", "False", "Paused", "spec.paused is true: nothing is applied or pruned"};
  if (!in.root_valid) {
    std::string msg = in.problems.empty() ? "the GrafanaAgent is invalid" : in.problems.front().str();
    return {"Reconciled", "False", "InvalidSpec", msg};
  }
  if (!in.write_error.empty()) return {"Reconciled", "False", "WriteFailed", in.write_error};
  if (model::has_errors(in.problems)) return {"Reconciled", "False", "InvalidMembers", member_summary(in)};
  if (in.writes_pending) return {"Reconciled", "Unknown", "Applying", "writing the desired objects"};
  return {"Reconciled", "True", "Reconciled", applied_message(in)};
}

Condition ready(const StatusInput& in) {
  if (in.paused || !in.root_valid) return {"Ready", "Unknown", "NotReconciled", "see the Reconciled condition"};
  if (!in.not_ready.empty()) return {"Ready", "False", "WorkloadsNotReady", in.not_ready};
  return {"Ready", "True", "WorkloadsReady", "every agent workload reports ready replicas"};
}

}  // namespace

const Value* find_condition(const Value& previous, const std::string& type) {
  const Value* conds = previous.is_object() ? previous.find("conditions") : nullptr;
  if (!conds || !conds->is_array()) return nullptr;
  for (const Value& c : conds->as_array()) {
    const Value* t = c.find("type");
    if (t && t->is_string() && t->as_string() == type) return &c;
  }
  return nullptr;
}

namespace {

Value condition_value(const Condition& c, const StatusInput& in, const Value& previous, const std::string& now) {
  std::string since = now;
  if (const Value* p = find_condition(previous, c.type)) {
    const Value* st = p->find("status");
    const Value* lt = p->find("lastTransitionTime");
    if (st && st->is_string() && st->as_string() == c.status && lt && lt->is_string()) since = lt->as_string();
  }
  return Value::obj({{"type", c.type},
                     {"status", c.status},
                     {"reason", c.reason},
                     {"message", c.message},
                     {"observedGeneration", in.generation},
                     {"lastTransitionTime", since}});
}

Value counts_value(const HierarchyCounts& c) {
  auto n = [](std::size_t v) { return Value(static_cast<std::int64_t>(v)); };
  return Value::obj({{"metricsInstances", n(c.metrics_instances)},
                     {"serviceMonitors", n(c.service_monitors)},
                     {"podMonitors", n(c.pod_monitors)},
                     {"probes", n(c.probes)},
                     {"logsInstances", n(c.logs_instances)},
                     {"podLogs", n(c.pod_logs)},
                     {"integrations", n(c.integrations)},
                     {"metricsIntegrations", n(c.metrics_integrations)},
                     {"integrationMonitors", n(c.integration_monitors)}});
}

// Errors first, so warnings never crowd one out of the capped list.
Value problems_value(std::vector<model::Problem> problems) {
  std::stable_partition(problems.begin(), problems.end(), [](const model::Problem& p) { return !p.warning; });
  Value out = Value::array();
  for (std::size_t i = 0; i < problems.size() && i < kMaxStatusProblems; ++i) {
    const model::Problem& p = problems[i];
    std::string msg = p.path.empty() ? p.message : p.path + ": " + p.message;
    out.push(Value::obj({{"kind", p.kind},
                         {"namespace", p.ns},
                         {"name", p.name},
                         {"reason", p.warning ? "FieldIgnored" : "Skipped"},
                         {"message", msg}}));
  }
  if (problems.size() > kMaxStatusProblems) {
    std::string more = std::to_string(problems.size() - kMaxStatusProblems) + " more problems not listed";
    out.push(Value::obj({{"reason", "Truncated"}, {"message", more}}));
  }
  return out;
}

}  // namespace

Value agent_status(const StatusInput& in, const Value& previous, const std::string& now_rfc3339) {
  Value conds = Value::array();
  conds.push(condition_value(reconciled(in), in, previous, now_rfc3339));
  conds.push(condition_value(ready(in), in, previous, now_rfc3339));
  Value st = Value::obj({{"observedGeneration", in.generation}, {"conditions", std::move(conds)}});
  st.set("counts", counts_value(in.counts));
  if (!in.problems.empty()) st.set("problems", problems_value(in.problems));
  return st;
}

namespace {

// `s` cut to at most `max` bytes, never inside a UTF-8 sequence, marked
// with "..." when cut.
std::string fit(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t end = max - 3;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end) + "...";
}

}  // namespace

std::string failure_event_message(const StatusInput& in, const std::string& reason, const std::string& message) {
  if (reason != "InvalidSpec" && reason != "InvalidMembers") return fit(message, kMaxEventMessage);
  std::vector<std::string> errors;
  for (const auto& p : in.problems)
    if (!p.warning) errors.push_back(p.str());
  if (errors.empty()) return fit(message, kMaxEventMessage);
  std::size_t n = resources_with(in, false);
  std::string out = reason == "InvalidSpec"
                        ? "invalid spec: "
                        : std::to_string(n) + (n == 1 ? " resource has" : " resources have") + " problems: ";
  auto more = [&](std::size_t rest) {
    return rest ? "; and " + std::to_string(rest) + " more in status.problems" : std::string();
  };
  for (std::size_t i = 0; i < errors.size(); ++i) {
    std::string next = (i ? "; " : "") + errors[i];
    // Room stays for the count of those after this one.
    std::string after = more(errors.size() - i - 1);
    if (out.size() + next.size() + after.size() <= kMaxEventMessage) {
      out += next;
      continue;
    }
    if (i == 0) return fit(out + next, kMaxEventMessage - after.size()) + after;
    return out + more(errors.size() - i);
  }
  return out;
}

namespace {

std::int64_t int_at(const Value& obj, const char* a, const char* b) {
  const Value* x = obj.find(a);
  const Value* y = x ? x->find(b) : nullptr;
  return y && y->is_int() ? y->as_int() : 0;
}

// Wanted and ready replica counts of one workload; wanted < 0 = not a workload.
std::pair<std::int64_t, std::int64_t> replicas(const Value& obj) {
  std::string kind = obj.find("kind") && obj.find("kind")->is_string() ? obj.find("kind")->as_string() : "";
  if (kind == "StatefulSet") {
    const Value* spec = obj.find("spec");
    std::int64_t want =
        spec && spec->find("replicas") && spec->find("replicas")->is_int() ? spec->find("replicas")->as_int() : 1;
    return {want, int_at(obj, "status", "readyReplicas")};
  }
  if (kind == "Deployment") {
    const Value* spec = obj.find("spec");
    std::int64_t want =
        spec && spec->find("replicas") && spec->find("replicas")->is_int() ? spec->find("replicas")->as_int() : 1;
    return {want, int_at(obj, "status", "availableReplicas")};
  }
  if (kind == "DaemonSet")
    return {int_at(obj, "status", "desiredNumberScheduled"), int_at(obj, "status", "numberReady")};
  return {-1, 0};
}

}  // namespace

std::string workloads_not_ready(const std::vector<const Value*>& observed) {
  std::vector<std::string> waiting;
  for (const Value* object : observed) {
    const Value& o = *object;
    auto [want, have] = replicas(o);
    if (want < 0 || have >= want) continue;
    std::string kind = o.find("kind")->as_string();
    waiting.push_back(kind + " " + model::string_at(o, {"metadata", "name"}) + " " + std::to_string(have) + "/" +
                      std::to_string(want) + " ready");
  }
  std::sort(waiting.begin(), waiting.end());
  std::string out;
  for (const auto& w : waiting) out += (out.empty() ? "" : "; ") + w;
  return out;
}

bool root_problem(const model::Problem& p, const RootKey& root) {
  return p.kind == "GrafanaAgent" && p.ns == root.first && p.name == root.second;
}

}  // namespace actors::core
