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
