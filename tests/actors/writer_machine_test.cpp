#include <catch2/catch.hpp>

#include "actors/core/writer_machine.hpp"
#include "actors_fixtures.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;

namespace {

const RootKey kAlpha{"mon", "alpha"};

RootOutputPtr output(const std::string& value) {
  auto out = std::make_shared<RootOutput>();
  out->root = kAlpha;
  out->uid = "uid-alpha";
  out->effects.desired.push_back(actors_test::doc(R"(
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

std::vector<WriterEffect::Type> types(const WriterEffects& fx) {
  std::vector<WriterEffect::Type> out;
  for (const auto& e : fx)
    if (e.type != WriterEffect::Type::log) out.push_back(e.type);
  return out;
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
