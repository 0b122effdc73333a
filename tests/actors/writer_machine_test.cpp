#include <catch2/catch.hpp>

#include "actors/core/status.hpp"
#include "actors/core/writer_machine.hpp"
#include "actors_fixtures.hpp"
#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;

namespace {

using actors_test::kAlpha;

RootOutputPtr output(const std::string& value) {
  auto out = std::make_shared<RootOutput>();
  out->root = kAlpha;
  out->uid = "uid-alpha";
  out->effects.desired = std::make_shared<const actors::core::Desired>(1, actors_test::doc(R"(
apiVersion: v1
kind: Secret
metadata:
  name: alpha-config
  namespace: mon
  labels: {app.kubernetes.io/managed-by: grafana-agent-operator}
  ownerReferences: [{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, name: alpha, uid: uid-alpha}]
data: {agent.yml: )" + value + "}\n"));
  return out;
}

// The effects that act on the cluster or the writer's timers; log lines
// and reconcile counts have their own tests (log_entries, outcomes).
std::vector<WriterEffect::Type> types(const WriterEffects& fx) {
  std::vector<WriterEffect::Type> out;
  for (const auto& e : fx)
    if (e.type != WriterEffect::Type::log && e.type != WriterEffect::Type::reconciled) out.push_back(e.type);
  return out;
}

std::vector<std::string> outcomes(const WriterEffects& fx) {
  std::vector<std::string> out;
  for (const auto& e : fx)
    if (e.type == WriterEffect::Type::reconciled) out.push_back(outcome_name(e.outcome));
  return out;
}

std::vector<model::LogEntry> log_entries(const WriterEffects& fx) {
  std::vector<model::LogEntry> out;
  for (const auto& e : fx)
    if (e.type == WriterEffect::Type::log) out.push_back(e.entry);
  return out;
}

std::vector<model::Value> events(const WriterEffects& fx) {
  std::vector<model::Value> out;
  for (const auto& e : fx)
    if (e.type == WriterEffect::Type::event) out.push_back(e.body);
  return out;
}

// The answer to a create or update: the object as sent, at `rv`.
CallAnswer written_at(const WriterEffect& call, const std::string& rv) {
  model::Value obj = call.action.object;
  obj.find("metadata")->set("resourceVersion", rv);
  return CallAnswer{201, k8s::ErrorClass::ok, model::to_json(obj), ""};
}

// The tag of the status patch among `fx`, to answer it with on_status.
std::uint64_t status_tag(const WriterEffects& fx) {
  for (const auto& e : fx)
    if (e.type == WriterEffect::Type::status_patch) return e.batch;
  FAIL("no status patch");
  return 0;
}

CallAnswer answer(int status, k8s::ErrorClass error_class, std::string body = "{}") {
  return CallAnswer{status, error_class, std::move(body), ""};
}

using T = WriterEffect::Type;

}  // namespace

TEST_CASE("the writer machine re-reads after each conflict and backs off after the third in a row",
          "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  REQUIRE(types(on_synced(st)).empty());
  WriterEffects fx = on_desired(st, output("YQ=="));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  for (int conflict = 1; conflict <= 4; ++conflict) {
    std::uint64_t batch = fx.back().batch;
    fx = on_call_done(st, kAlpha, batch, answer(409, k8s::ErrorClass::retry_reconcile));
    REQUIRE(types(fx) == std::vector<T>{T::wrote, T::reread});
    fx = on_reread(st, kAlpha, fx.back().id, answer(404, k8s::ErrorClass::retry_reconcile));
    if (conflict <= 3) {
      INFO("conflict " << conflict << ": replanned at once");
      REQUIRE(types(fx) == std::vector<T>{T::call});
    } else {
      REQUIRE(types(fx) == std::vector<T>{T::retry});
      CHECK(fx.back().attempt == 4);
      CHECK(writer_stats(st).retrying == 1);
    }
  }
  fx = on_retry(st, kAlpha);
  REQUIRE(types(fx) == std::vector<T>{T::call});
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(201, k8s::ErrorClass::ok));
  CHECK(types(fx) == std::vector<T>{T::wrote});
  CHECK(writer_stats(st).writes == 1);
}

TEST_CASE("the writer machine ignores answers of an abandoned batch", "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  WriterEffects fx = on_desired(st, output("YQ=="));
  std::uint64_t first = fx.back().batch;
  on_call_done(st, kAlpha, first, answer(503, k8s::ErrorClass::retry_call));
  CHECK(on_call_done(st, kAlpha, first, answer(201, k8s::ErrorClass::ok)).empty());
  CHECK(writer_stats(st).writes == 0);
}

TEST_CASE("the writer machine plans nothing once the fence is stale", "[actors][writer][leader]") {
  std::int64_t now = 0;
  auto fence = std::make_shared<LeaseFence>(std::chrono::milliseconds(10'000), [&now] { return now; });
  fence->renewed(0);
  WriterState st = make_writer({.write_status = false, .emit_events = false, .fence = fence});
  on_synced(st);
  now = 10'001;
  WriterEffects fx = on_desired(st, output("YQ=="));
  CHECK(types(fx).empty());
  CHECK(writer_stats(st).fenced == 1);
  CHECK_FALSE(writer_stats(st).leader);
  fence->renewed(10'000);
  CHECK(types(on_leader(st, true)) == std::vector<T>{T::call});
}

TEST_CASE("the writer machine writes nothing after the fence is closed, even as a new leader",
          "[actors][writer][leader]") {
  std::int64_t now = 0;
  auto fence = std::make_shared<LeaseFence>(std::chrono::milliseconds(10'000), [&now] { return now; });
  WriterState st = make_writer({.write_status = true, .emit_events = false, .fence = fence});
  on_leader(st, false);
  on_synced(st);
  CHECK(types(on_desired(st, output("YQ=="))).empty());  // pending: not the leader
  fence->close();                                        // the stop signal
  fence->renewed(0);                                     // a renew answer in flight lands
  CHECK_FALSE(fence->holds());
  CHECK(types(on_leader(st, true)).empty());
  CHECK(writer_stats(st).writes == 0);
}

TEST_CASE("the writer machine reports a terminal failure on the status without retrying", "[actors][writer]") {
  WriterState st = make_writer({.emit_events = true});
  on_synced(st);
  WriterEffects fx = on_desired(st, output("YQ=="));
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(422, k8s::ErrorClass::terminal));
  REQUIRE(types(fx) == std::vector<T>{T::wrote, T::status_patch, T::event});
  CHECK(model::to_json(fx.back().body).find("HTTP 422") != std::string::npos);
  CHECK(writer_stats(st).retrying == 0);
}

namespace {

model::Value operated_service(const std::string& owner_uid) {
  return actors_test::doc(R"(
apiVersion: v1
kind: Service
metadata:
  name: alpha-operated
  namespace: mon
  resourceVersion: "1100"
  labels: {app.kubernetes.io/managed-by: grafana-agent-operator}
  ownerReferences: [{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, name: alpha, uid: )" +
                          owner_uid + "}]\nspec: {clusterIP: None}\n");
}

Event event(EventType type, const std::string& kind, model::Value object) {
  Event e;
  e.kind = kind;
  e.type = type;
  e.object = std::make_shared<const model::Value>(std::move(object));
  return e;
}

// Drives the batch to its end; the actions it called.
std::vector<std::string> run_batch(WriterState& st, WriterEffects fx) {
  std::vector<std::string> calls;
  while (!fx.empty() && fx.back().type == T::call) {
    calls.push_back(fx.back().action.kind + " " + fx.back().action.name + " " + action_name(fx.back().action.type));
    fx = on_call_done(st, kAlpha, fx.back().batch, answer(200, k8s::ErrorClass::ok));
  }
  return calls;
}

}  // namespace

// Found by the chaos soak: a GrafanaAgent deleted and created again under
// the same name, seen in one burst (a replica resumed after SIGSTOP). The
// new one's Service event reached the writer before the old one's deletion,
// which threw the observation away, so the Service was never pruned.
TEST_CASE("the writer machine keeps a recreated GrafanaAgent's objects when the old one's deletion comes late",
          "[actors][writer]") {
  auto late_notice = GENERATE(as<std::string>{}, "gone", "final output");
  INFO(late_notice);
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  on_observed(st, event(EventType::added, "Service", operated_service("uid-alpha")), {kAlpha});
  if (late_notice == "gone") {
    on_gone(st, event(EventType::deleted, "GrafanaAgent", actors_test::doc(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-old}
)")));
  } else {
    auto final_output = std::make_shared<RootOutput>();
    final_output->root = kAlpha;
    final_output->uid = "uid-old";
    final_output->effects.root_present = false;
    on_desired(st, final_output);
  }
  // The new GrafanaAgent (uid-alpha) wants its config Secret and no Service.
  std::vector<std::string> calls = run_batch(st, on_desired(st, output("YQ==")));
  CHECK(calls == std::vector<std::string>{"Secret alpha-config create", "Service alpha-operated delete"});
}

TEST_CASE("the writer machine keeps a newer GrafanaAgent's output when the old one's final output comes late",
          "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  WriterEffects fx = on_desired(st, output("YQ=="));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  auto final_output = std::make_shared<RootOutput>();
  final_output->root = kAlpha;
  final_output->uid = "uid-old";
  final_output->effects.root_present = false;
  on_desired(st, final_output);
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(201, k8s::ErrorClass::ok));
  CHECK(types(fx) == std::vector<T>{T::wrote});
  CHECK(writer_stats(st).writes == 1);
  CHECK(writer_stats(st).roots == 1);
}

// Found by the chaos soak (a lost update under CI load): an owned object's
// deletion makes the writer ask whether its GrafanaAgent still exists. If
// the agent is deleted and created again before the 404 arrives, that
// answer is about the old generation; taking it for the new one dropped the
// root and ignored all its later outputs until a restart.
TEST_CASE("the writer machine judges a late owner answer by the generation it asked about", "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  auto old_output = std::const_pointer_cast<RootOutput>(output("YQ=="));
  old_output->uid = "uid-old";
  WriterEffects fx = on_desired(st, old_output);
  on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5"));
  model::Value deleted = model::parse_json(written_at(fx.back(), "6").body, "deleted");
  fx = on_observed(st, event(EventType::deleted, "Secret", deleted), {kAlpha});
  REQUIRE(types(fx) == std::vector<T>{T::confirm_owner});
  CHECK(fx.back().uid == "uid-old");
  auto final_output = std::make_shared<RootOutput>();
  final_output->root = kAlpha;
  final_output->uid = "uid-old";
  final_output->effects.root_present = false;
  on_desired(st, final_output);
  fx = on_desired(st, output("YQ=="));  // the new generation, uid-alpha
  REQUIRE(types(fx) == std::vector<T>{T::call});
  on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "7"));
  on_owner(st, kAlpha, "uid-old", answer(404, k8s::ErrorClass::terminal));
  CHECK(writer_stats(st).roots == 1);
  CHECK(types(on_desired(st, output("Yg=="))) == std::vector<T>{T::call});
  // The same answer about the live generation does drop it.
  on_owner(st, kAlpha, "uid-alpha", answer(404, k8s::ErrorClass::terminal));
  CHECK(writer_stats(st).roots == 0);
  CHECK(types(on_desired(st, output("Yw=="))).empty());
}

// Found by the chaos soak (seed 1, CI): a leader resumed after SIGSTOP
// finds, in one burst, the old generation's Service deleted (it asks
// whether the owner lives) and the Service the other leader made for the
// re-created GrafanaAgent. The answer (a newer uid) dropped the whole root,
// that Service with it, so when the new generation stopped wanting it
// nothing pruned it until a restart.
TEST_CASE("the writer machine keeps a newer generation's objects when the owner answer drops the old one",
          "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  auto old_output = std::const_pointer_cast<RootOutput>(output("YQ=="));
  old_output->uid = "uid-old";
  run_batch(st, on_desired(st, old_output));
  on_observed(st, event(EventType::added, "Service", operated_service("uid-old")), {kAlpha});
  WriterEffects fx = on_observed(st, event(EventType::deleted, "Service", operated_service("uid-old")), {kAlpha});
  REQUIRE(types(fx) == std::vector<T>{T::confirm_owner});
  model::Value newer = operated_service("uid-alpha");
  newer.find("metadata")->set("resourceVersion", "1200");
  CHECK(types(on_observed(st, event(EventType::added, "Service", newer), {kAlpha})).empty());  // not uid-old's
  model::Value agent = actors_test::doc(
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\n"
      "metadata: {name: alpha, namespace: mon, uid: uid-alpha}\n");
  on_owner(st, kAlpha, "uid-old", answer(200, k8s::ErrorClass::ok, model::to_json(agent)));
  // The new generation wants its config Secret and no Service.
  std::vector<std::string> calls = run_batch(st, on_desired(st, output("YQ==")));
  REQUIRE(!calls.empty());
  CHECK(calls.back() == "Service alpha-operated delete");
}

// A root forgotten with a batch in flight (its GrafanaAgent deleted) and
// created again (the agent re-created) must not take the old batch's late
// answers for its own: per-root batch numbers started again at the same
// tag, so an old create's answer was booked against the new batch's call.
TEST_CASE("the writer machine ignores a forgotten generation's late answers", "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  auto old_output = std::const_pointer_cast<RootOutput>(output("YQ=="));
  old_output->uid = "uid-old";
  const WriterEffect old_call = on_desired(st, old_output).back();
  on_gone(st, event(EventType::deleted, "GrafanaAgent", actors_test::doc(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-old}
)")));
  const WriterEffect new_call = on_desired(st, output("Yg==")).back();
  REQUIRE(new_call.type == T::call);
  CHECK(new_call.batch != old_call.batch);
  CHECK(types(on_call_done(st, kAlpha, old_call.batch, written_at(old_call, "5"))).empty());
  CHECK(writer_stats(st).writes == 0);
  CHECK(types(on_call_done(st, kAlpha, new_call.batch, written_at(new_call, "6"))) == std::vector<T>{T::wrote});
}

// "created", not "create ...: not found".
TEST_CASE("the writer machine logs a new object as created, with no reason", "[actors][writer][log]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  WriterEffects fx = on_desired(st, output("YQ=="));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  auto logs = log_entries(on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5")));
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].msg == "created");
  CHECK(logs[0].value("object") == "Secret mon/alpha-config");
  for (const auto& f : logs[0].fields) CHECK(f.key != "reason");
}

// The watch echoes each write; nothing of it is drift, and neither is the
// echo of our delete that arrives after the re-create.
TEST_CASE("the writer machine plans nothing for the echo of its own writes", "[actors][writer]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  WriterEffects fx = on_desired(st, output("YQ=="));
  const WriterEffect call = fx.back();
  on_call_done(st, kAlpha, call.batch, written_at(call, "5"));
  model::Value echo = model::parse_json(written_at(call, "5").body, "echo");
  CHECK(on_observed(st, event(EventType::added, "Secret", echo), {kAlpha}).empty());
  model::Value older = echo;
  older.find("metadata")->set("resourceVersion", "4");
  CHECK(on_observed(st, event(EventType::deleted, "Secret", older), {kAlpha}).empty());
  // Someone else's delete, after our write, is restored once the owner is confirmed.
  model::Value later = echo;
  later.find("metadata")->set("resourceVersion", "6");
  CHECK(types(on_observed(st, event(EventType::deleted, "Secret", later), {kAlpha})) ==
        std::vector<T>{T::confirm_owner});
}

namespace {

RootOutputPtr with_problems(std::size_t n, std::int64_t generation = 1) {
  auto out = std::const_pointer_cast<RootOutput>(output("YQ=="));
  out->generation = generation;
  for (std::size_t i = 0; i < n; ++i)
    out->effects.problems.push_back(
        {"ServiceMonitor", "app", "sm-" + std::to_string(i), "spec.endpoints[0].port", "port is not a name"});
  out->effects.problems.push_back({"PodMonitor", "app", "pm", "spec.x", "unknown field", true});  // a warning
  return out;
}

}  // namespace

TEST_CASE("the Warning Event names the failing resources, within 1 KiB", "[actors][writer][events]") {
  WriterState st = make_writer({.emit_events = true});
  on_synced(st);
  WriterEffects fx = on_desired(st, with_problems(2));
  fx = on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5"));
  auto ev = events(fx);
  REQUIRE(ev.size() == 1);
  CHECK(model::string_at(ev[0], {"type"}) == "Warning");
  CHECK(model::string_at(ev[0], {"reason"}) == "InvalidMembers");
  CHECK(model::string_at(ev[0], {"message"}) ==
        "2 resources have problems: ServiceMonitor app/sm-0: spec.endpoints[0].port: port is not a name; "
        "ServiceMonitor app/sm-1: spec.endpoints[0].port: port is not a name");
  CHECK(on_status(st, kAlpha, status_tag(fx), true).empty());
  // Many: as many as fit, then how many more.
  fx = on_desired(st, with_problems(100, 2));
  ev = events(fx);
  REQUIRE(ev.size() == 1);
  std::string message = model::string_at(ev[0], {"message"});
  CHECK(message.size() <= kMaxEventMessage);
  CHECK(message.rfind("100 resources have problems: ServiceMonitor app/sm-0: ", 0) == 0);
  CHECK(message.find(" more in status.problems") != std::string::npos);
  CHECK(message.find("PodMonitor") == std::string::npos);  // warnings are not failures
}

namespace {

RootOutputPtr paused(bool is_paused, std::int64_t generation, const model::Value& previous_status) {
  auto out = std::const_pointer_cast<RootOutput>(output("YQ=="));
  out->effects.paused = is_paused;
  out->generation = generation;
  out->previous_status = previous_status;
  return out;
}

const WriterEffect* find_effect(const WriterEffects& fx, T type) {
  for (const auto& e : fx)
    if (e.type == type) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("spec.paused raises a Normal Event once, and its end another", "[actors][writer][events]") {
  WriterState st = make_writer({.emit_events = true});
  on_synced(st);
  WriterEffects fx = on_desired(st, paused(true, 1, model::Value()));
  CHECK(types(fx) == std::vector<T>{T::status_patch, T::event});
  auto ev = events(fx);
  REQUIRE(ev.size() == 1);
  CHECK(model::string_at(ev[0], {"type"}) == "Normal");  // not a Warning
  CHECK(model::string_at(ev[0], {"reason"}) == "Paused");
  std::string name = model::string_at(ev[0], {"metadata", "name"});
  CHECK(name.rfind("alpha.", 0) == 0);
  const WriterEffect* patch = find_effect(fx, T::status_patch);
  REQUIRE(patch);
  model::Value status = *patch->body.find("status");
  if (status.find("problems") && status.find("problems")->is_null()) status.erase("problems");  // as stored
  CHECK(on_status(st, kAlpha, status_tag(fx), true).empty());
  // Still paused: no second Event; a new leader that reads this status raises none either.
  CHECK(events(on_desired(st, paused(true, 1, status))).empty());
  WriterState next_leader = make_writer({.emit_events = true});
  on_synced(next_leader);
  CHECK(events(on_desired(next_leader, paused(true, 1, status))).empty());
  // Resumed: the writes go out, then a Normal Event says so.
  fx = on_desired(st, paused(false, 2, status));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  fx = on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5"));
  ev = events(fx);
  REQUIRE(ev.size() == 1);
  CHECK(model::string_at(ev[0], {"type"}) == "Normal");
  CHECK(model::string_at(ev[0], {"reason"}) == "Resumed");
  // The name is a function of the news and the generation: a repeat by
  // another replica is a harmless 409.
  WriterState other = make_writer({.emit_events = true});
  on_synced(other);
  CHECK(model::string_at(events(on_desired(other, paused(true, 1, model::Value())))[0], {"metadata", "name"}) == name);
}

// Spec errors are terminal and reported on the status: the reconcile
// succeeded. A conflict is a requeue, a failed API write an error.
TEST_CASE("the writer machine counts each reconcile once, spec errors as success", "[actors][writer][metrics]") {
  WriterState st = make_writer({.write_status = false, .emit_events = false});
  on_synced(st);
  WriterEffects fx = on_desired(st, with_problems(3));
  CHECK(outcomes(fx).empty());  // settled when the writes are done
  fx = on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5"));
  CHECK(outcomes(fx) == std::vector<std::string>{"success"});
  CHECK(outcomes(on_desired(st, with_problems(3))) == std::vector<std::string>{"success"});  // nothing to write

  fx = on_desired(st, output("Yg=="));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(409, k8s::ErrorClass::retry_reconcile));
  CHECK(outcomes(fx) == std::vector<std::string>{"requeue"});
  fx = on_reread(st, kAlpha, fx.back().id, answer(404, k8s::ErrorClass::retry_reconcile));
  REQUIRE(types(fx) == std::vector<T>{T::call});
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(422, k8s::ErrorClass::terminal));
  CHECK(outcomes(fx) == std::vector<std::string>{"error"});
  fx = on_desired(st, output("Yw=="));
  fx = on_call_done(st, kAlpha, fx.back().batch, answer(503, k8s::ErrorClass::retry_call));
  CHECK(outcomes(fx) == std::vector<std::string>{"error"});
  // The retry after the backoff is a reconcile of its own, as
  // controller-runtime's requeue is.
  fx = on_retry(st, kAlpha);
  REQUIRE(types(fx) == std::vector<T>{T::call});
  CHECK(outcomes(fx).empty());
  CHECK(outcomes(on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "9"))) ==
        std::vector<std::string>{"success"});
}

namespace {

std::vector<model::Value> status_patches(const WriterEffects& fx) {
  std::vector<model::Value> out;
  for (const auto& e : fx)
    if (e.type == WriterEffect::Type::status_patch) out.push_back(e.body);
  return out;
}

}  // namespace

// Found by the chaos soak: a replica that stood by while the other leader
// reported Reconciled=True took the Lease and patched the same condition
// again with its own lastTransitionTime, because status-only changes of the
// GrafanaAgent bring no new output and its base was the status of its last
// render.
TEST_CASE("a new leader keeps the lastTransitionTime another leader wrote", "[actors][writer][leader]") {
  std::string now = "2026-11-28T01:00:00Z";
  auto clock = [&now] { return now; };
  WriterState a = make_writer({.emit_events = false, .now_rfc3339 = clock});
  on_synced(a);
  WriterEffects fx = on_desired(a, output("YQ=="));
  const WriterEffect call = fx.back();
  fx = on_call_done(a, kAlpha, call.batch, written_at(call, "5"));
  std::vector<model::Value> patches = status_patches(fx);
  REQUIRE(patches.size() == 1);
  model::Value a_status = *patches[0].find("status");
  a_status.erase("problems");  // the merge patch's null deletes it on the server

  bool observed = GENERATE(true, false);
  INFO("the standby observed the leader's status: " << observed);
  WriterState b = make_writer({.leader = false, .emit_events = false, .now_rfc3339 = clock});
  on_synced(b);
  CHECK(on_desired(b, output("YQ==")).empty());
  on_observed(b, event(EventType::added, "Secret", model::parse_json(written_at(call, "5").body, "echo")), {kAlpha});
  model::Value agent = actors_test::doc(
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\n"
      "metadata: {name: alpha, namespace: mon, uid: uid-alpha}\n");
  agent.set("status", a_status);
  if (observed) CHECK(on_observed(b, event(EventType::modified, "GrafanaAgent", agent), {kAlpha}).empty());

  now = "2026-11-28T02:00:00Z";
  fx = on_leader(b, true);
  CHECK(types(fx).empty() == observed);
  if (!observed) {  // the stale base: the same condition, reported again with a new time
    REQUIRE(status_patches(fx).size() == 1);
    CHECK(model::to_json(status_patches(fx)[0]).find(now) != std::string::npos);
  }
}

// Found by the chaos soak (seed 3): status patches were sent as soon as
// each batch ended, so under injected latency an older one (an earlier
// observedGeneration) could land after a newer one and stay, and the next
// leader patched it again. One patch is in flight at a time; a report made
// meanwhile is computed afresh when it answers.
TEST_CASE("the writer machine keeps one status patch in flight, and the newest lands last", "[actors][writer]") {
  WriterState st = make_writer({.emit_events = false});
  on_synced(st);
  auto at_generation = [](const std::string& value, std::int64_t generation) {
    auto out = std::const_pointer_cast<RootOutput>(output(value));
    out->generation = generation;
    return RootOutputPtr(out);
  };
  auto observed_generation = [](const WriterEffects& fx) {
    auto patches = status_patches(fx);
    REQUIRE(patches.size() == 1);
    return model::find_path(patches[0], {"status", "observedGeneration"})->as_int();
  };
  WriterEffects fx = on_desired(st, at_generation("YQ==", 1));
  fx = on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "5"));
  CHECK(observed_generation(fx) == 1);
  std::uint64_t first = status_tag(fx);

  fx = on_desired(st, at_generation("Yg==", 2));
  fx = on_call_done(st, kAlpha, fx.back().batch, written_at(fx.back(), "6"));
  CHECK(status_patches(fx).empty());                        // waits for the first answer
  CHECK(on_status(st, kAlpha, first + 100, true).empty());  // not the patch in flight

  fx = on_status(st, kAlpha, first, true);
  CHECK(observed_generation(fx) == 2);
  std::uint64_t second = status_tag(fx);
  CHECK(on_status(st, kAlpha, first, true).empty());  // a repeated answer is ignored

  // A failed patch is sent again after a backoff, as it is now.
  fx = on_status(st, kAlpha, second, false);
  REQUIRE(types(fx) == std::vector<T>{T::retry});
  fx = on_retry(st, kAlpha);
  CHECK(observed_generation(fx) == 2);
  // Nothing waited and nothing changed: a success sends nothing more.
  CHECK(on_status(st, kAlpha, status_tag(fx), true).empty());
}
