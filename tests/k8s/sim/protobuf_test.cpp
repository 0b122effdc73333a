// Protobuf request bodies: kubectl's imperative create commands for the
// kinds simcluster decodes, and a clear 415 for the others.
#include <catch2/catch.hpp>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/protobuf.hpp"
#include "k8s/sim/selector.hpp"
#include "kubectl_env.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using k8s::sim::field_text;

namespace {

// What kubectl 1.32 sends for
// `kubectl create secret generic s1 --from-literal=a=b --type=foo/bar` (from -v=9).
const unsigned char kSecretBody[] = {0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0c, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x06, 0x53,
                                     0x65, 0x63, 0x72, 0x65, 0x74, 0x12, 0x25, 0x0a, 0x12, 0x0a, 0x02, 0x73, 0x31,
                                     0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42,
                                     0x00, 0x12, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0x62, 0x1a, 0x07, 0x66, 0x6f,
                                     0x6f, 0x2f, 0x62, 0x61, 0x72, 0x1a, 0x00, 0x22, 0x00};

std::string_view secret_body() {
  return {reinterpret_cast<const char*>(kSecretBody), sizeof kSecretBody};
}

}  // namespace

TEST_CASE("a protobuf Secret decodes to the JSON Go would send", "[k8s][protobuf]") {
  auto object = k8s::sim::decode_protobuf_object(secret_body());
  CHECK(model::to_json(object) ==
        R"({"apiVersion":"v1","data":{"a":"Yg=="},"kind":"Secret","metadata":{"name":"s1"},"type":"foo/bar"})");
  std::string truncated(secret_body().substr(0, 30));
  CHECK_THROWS_AS(k8s::sim::decode_protobuf_object(truncated), k8s::sim::ApiError);
  try {
    k8s::sim::decode_protobuf_object(
        std::string("k8s\0\x0a\x0e\x0a\x07"
                    "apps/v1\x12\x03"
                    "Foo",
                    20));
    FAIL("expected 415");
  } catch (const k8s::sim::ApiError& e) {
    CHECK(e.code() == 415);
    CHECK(std::string(e.what()).find("got apps/v1 Foo") != std::string::npos);
  }
}

TEST_CASE("kubectl create namespace secret configmap and serviceaccount work", "[k8s][kubectl][protobuf]") {
  testutil::KubectlEnv env;
  REQUIRE(env.kubectl({"create", "namespace", "team-a"}).out == "namespace/team-a created\n");
  auto secret = env.kubectl({"create", "secret", "generic", "creds", "-n", "team-a", "--from-literal=user=admin",
                             "--from-literal=empty=", "--type=example.com/basic"});
  INFO(secret.err);
  REQUIRE(secret.code == 0);
  std::string binary = env.write_file("blob", std::string("\xff\xfe\x00\x01", 4));
  REQUIRE(env.kubectl({"create", "configmap", "conf", "--from-literal=k=v", "--from-file=blob=" + binary}).code == 0);
  REQUIRE(env.kubectl({"create", "serviceaccount", "robot"}).code == 0);
  auto ns = model::parse_json(env.kubectl({"get", "namespace", "team-a", "-o", "json"}).out);
  const model::Value* label = ns.find("metadata")->find("labels")->find("kubernetes.io/metadata.name");
  REQUIRE(label);
  CHECK(label->as_string() == "team-a");
  CHECK(field_text(ns, "status.phase") == "Active");
  auto s = model::parse_json(env.kubectl({"get", "secret", "creds", "-n", "team-a", "-o", "json"}).out);
  CHECK(field_text(s, "data.user") == "YWRtaW4=");
  CHECK(s.find("data")->find("empty") != nullptr);
  CHECK(field_text(s, "type") == "example.com/basic");
  auto cm = model::parse_json(env.kubectl({"get", "configmap", "conf", "-o", "json"}).out);
  CHECK(field_text(cm, "data.k") == "v");
  CHECK(field_text(cm, "binaryData.blob") == "//4AAQ==");
  CHECK(env.kubectl({"get", "serviceaccount", "robot"}).code == 0);
  auto again = env.kubectl({"create", "namespace", "team-a"});
  CHECK(again.code == 1);
  CHECK(again.err.find("namespaces \"team-a\" already exists") != std::string::npos);
}

TEST_CASE("kubectl create of other built-in kinds fails with a clear 415", "[k8s][kubectl][protobuf]") {
  testutil::KubectlEnv env;
  auto r = env.kubectl({"create", "deployment", "web", "--image=nginx"});
  CHECK(r.code == 1);
  CHECK(r.err.find("simcluster decodes protobuf bodies only for v1 Namespace, Secret, ConfigMap, ServiceAccount and "
                   "authentication.k8s.io/v1 TokenRequest; got "
                   "apps/v1 Deployment") != std::string::npos);
}
