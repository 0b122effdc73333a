// The API server's size limits in simcluster: 1 MiB of Secret and
// ConfigMap data, 256 KiB of annotations (also on pod templates), with the
// real 422 messages, and the 3 MiB request body limit (413).
#include <catch2/catch.hpp>

#include <httplib.h>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/server.hpp"
#include "kubectl_env.hpp"
#include "model/codec.hpp"
#include "model/yaml_emit.hpp"
#include "sim_fixture.hpp"

using model::Value;

namespace {

const std::size_t kMiB = 1024 * 1024;

Value secret(const std::string& name, std::size_t bytes) {
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"metadata", Value::obj({{"name", name}})},
                     {"data", Value::obj({{"a", model::base64_encode(std::string(bytes, 'x'))}})}});
}

// The ApiError a write throws, or none.
std::optional<k8s::sim::ApiError> error_of(const std::function<void()>& write) {
  try {
    write();
  } catch (const k8s::sim::ApiError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("Secrets hold at most 1 MiB of decoded data, stringData included", "[k8s][limits]") {
  simtest::SimFixture f;
  auto t = f.type("", "secrets");
  CHECK_FALSE(error_of([&] { f.cluster.create(t, "default", secret("full", kMiB), {}, f.warnings); }));
  auto e = error_of([&] { f.cluster.create(t, "default", secret("over", kMiB + 1), {}, f.warnings); });
  REQUIRE(e);
  CHECK(e->code() == 422);
  CHECK(std::string(e->what()) == "Secret \"over\" is invalid: data: Too long: must have at most 1048576 bytes");
  CHECK(model::to_json(e->details()) ==
        R"({"causes":[{"field":"data","message":"Too long: must have at most 1048576 bytes","reason":)"
        R"("FieldValueTooLong"}],"kind":"Secret","name":"over"})");
  // stringData counts once merged into data; updates and patches are checked too.
  Value mixed = secret("mixed", kMiB / 2);
  mixed.set("stringData", Value::obj({{"b", std::string(kMiB / 2 + 1, 'y')}}));
  CHECK(error_of([&] { f.cluster.create(t, "default", mixed, {}, f.warnings); }));
  CHECK(error_of([&] { f.cluster.update(t, "default", "full", secret("full", kMiB + 3), {}, {}, f.warnings); }));
  Value patch = Value::obj({{"data", Value::obj({{"b", model::base64_encode("z")}})}});
  CHECK(
      error_of([&] { f.cluster.patch(t, "default", "full", k8s::sim::PatchType::merge, patch, {}, {}, f.warnings); }));
}

TEST_CASE("ConfigMaps hold at most 1 MiB of data and binaryData together", "[k8s][limits]") {
  simtest::SimFixture f;
  auto t = f.type("", "configmaps");
  auto cm = [](std::size_t text, std::size_t binary) {
    return Value::obj({{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata", Value::obj({{"name", "c"}})},
                       {"data", Value::obj({{"a", std::string(text, 'x')}})},
                       {"binaryData", Value::obj({{"b", model::base64_encode(std::string(binary, 'y'))}})}});
  };
  CHECK_FALSE(error_of([&] { f.cluster.create(t, "default", cm(kMiB - 10, 10), {}, f.warnings); }));
  auto e = error_of([&] { f.cluster.update(t, "default", "c", cm(kMiB - 10, 11), {}, {}, f.warnings); });
  REQUIRE(e);
  // The limit is on the whole object, which the server names "[]".
  CHECK(std::string(e->what()) == "ConfigMap \"c\" is invalid: []: Too long: must have at most 1048576 bytes");
}

TEST_CASE("annotations total at most 256 KiB, on objects and pod templates", "[k8s][limits]") {
  simtest::SimFixture f;
  std::string value(256 * 1024 - 1, 'a');  // plus the one-byte key: exactly the limit
  f.create("configmaps", R"({"metadata":{"name":"ok","annotations":{"k":")" + value + R"("}}})");
  auto e = error_of(
      [&] { f.create("configmaps", R"({"metadata":{"name":"big","annotations":{"kk":")" + value + R"("}}})"); });
  REQUIRE(e);
  CHECK(std::string(e->what()) ==
        "ConfigMap \"big\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes");
  std::string deployment = R"({"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":)"
                           R"({"metadata":{"labels":{"a":"b"},"annotations":{"kk":")" +
                           value + R"("}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})";
  e = error_of([&] { f.create("deployments", deployment, "default", "apps"); });
  REQUIRE(e);
  CHECK(std::string(e->what()) ==
        "Deployment.apps \"d\" is invalid: spec.template.metadata.annotations: Too long: "
        "must have at most 262144 bytes");
}

TEST_CASE("request bodies over 3 MiB are refused with 413", "[k8s][limits]") {
  simtest::SimFixture f;
  k8s::sim::Server server(f.cluster, {});
  httplib::Client cli("127.0.0.1", server.start());
  std::string body = model::to_json(secret("s", 3 * kMiB));  // base64 makes it 4 MiB
  auto res = cli.Post("/api/v1/namespaces/default/secrets", body, "application/json");
  REQUIRE(res);
  CHECK(res->status == 413);
  CHECK(res->body ==
        R"({"apiVersion":"v1","code":413,"kind":"Status","message":"Request entity too large: limit is 3145728",)"
        R"("metadata":{},"reason":"RequestEntityTooLarge","status":"Failure"})");
  // Just under the body limit, the object limit is what refuses it.
  std::string under = model::to_json(secret("s", 2 * kMiB));
  REQUIRE(under.size() < 3 * kMiB);
  res = cli.Post("/api/v1/namespaces/default/secrets", under, "application/json");
  REQUIRE(res);
  CHECK(res->status == 422);
}

TEST_CASE("kubectl shows the size limit errors as a real cluster's", "[k8s][kubectl][limits]") {
  testutil::KubectlEnv env;
  std::string big = env.write_file("big", std::string(kMiB + 1, 'x'));
  auto r = env.kubectl({"create", "secret", "generic", "big", "--from-file=" + big});
  CHECK(r.code == 1);
  CHECK(r.err.find("Secret \"big\" is invalid: data: Too long: must have at most 1048576 bytes\n") !=
        std::string::npos);
  r = env.kubectl({"create", "configmap", "big", "--from-file=" + big});
  CHECK(r.code == 1);
  CHECK(r.err.find("ConfigMap \"big\" is invalid: []: Too long: must have at most 1048576 bytes\n") !=
        std::string::npos);
}
