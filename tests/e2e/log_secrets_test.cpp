// No Secret value, bearer token, password or kubeconfig token in the
// operator's log: `agent-operator run` at debug level, in both formats,
// against a simcluster holding Secrets of known values that the rendered
// config uses, with all of stderr searched for each value and its base64.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "../scratch.hpp"
#include "k8s/sim/process.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "operator_fixture.hpp"

namespace {

const std::string kKubeconfigToken = "logtest-kubeconfig-token-Q2wE9r";
const std::string kRemoteWriteUser = "logtest-rw-user-Vq3Lm";
const std::string kRemoteWritePassword = "logtest-rw-password-7f3Kq9";
const std::string kBearerToken = "logtest-bearer-token-Zx81Pd";
const std::string kSpecialPassword = "logtest \"quoted\"=\npassword-\xC3\xA9";

// The example agent's MetricsInstance reads remote-write-credentials; a
// ServiceMonitor of it scrapes with a bearer token and basic auth.
const char* kObjects = R"(apiVersion: v1
kind: Secret
metadata: {name: remote-write-credentials, namespace: monitoring}
stringData:
  username: logtest-rw-user-Vq3Lm
  password: logtest-rw-password-7f3Kq9
---
apiVersion: v1
kind: Secret
metadata: {name: checkout-scrape, namespace: shop}
stringData:
  token: logtest-bearer-token-Zx81Pd
  user: scraper
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: checkout-secure
  namespace: shop
  labels: {instance: primary}
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: checkout}
  endpoints:
  - port: https-metrics
    bearerTokenSecret: {name: checkout-scrape, key: token}
  - port: admin-metrics
    basicAuth:
      username: {name: checkout-scrape, key: user}
      password: {name: checkout-special, key: password}
)";

std::vector<std::string> secrets() {
  return {kKubeconfigToken, kRemoteWriteUser, kRemoteWritePassword, kBearerToken, kSpecialPassword, "logtest"};
}

std::string special_secret() {
  return "apiVersion: v1\nkind: Secret\nmetadata: {name: checkout-special, namespace: shop}\ndata:\n  password: " +
         model::base64_encode(kSpecialPassword) + "\n";
}

// Every value of the Secrets the operator wrote, decoded.
std::string written_secrets(e2e::OperatorFixture& f) {
  std::string out;
  for (const model::Value& o : f.owned()) {
    const model::Value* data = o.find("data");
    if (o.find("kind")->as_string() != "Secret" || !data) continue;
    for (const auto& [key, value] : data->as_object())
      out += model::base64_decode(value.as_string()).value_or("") + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("no secret value reaches the operator's log, at debug level, in either format", "[e2e][log]") {
  for (const std::string format : {"logfmt", "json"}) {
    INFO(format);
    e2e::FixtureOptions o;
    o.start_operator = false;
    o.server.token = kKubeconfigToken;
    e2e::OperatorFixture f(o);
    f.apply_yaml(kObjects);
    f.apply_yaml(special_secret());
    testutil::TempDir dir("ao-logsecrets");
    const std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
    REQUIRE(dir.read("kubeconfig").find(kKubeconfigToken) != std::string::npos);
    auto r = k8s::sim::run({std::string(AO_BIN_DIR) + "/agent-operator", "run", "--kubeconfig", kc, "--log-level",
                            "debug", "--log-format", format, "--for", "4s", "--listen", "127.0.0.1:0", "--journal",
                            dir.file("journal.jsonl")});
    CHECK(r.code == 0);
    // The values went through the operator: what it wrote holds them.
    const std::string written = written_secrets(f);
    for (const std::string& value : {kRemoteWriteUser, kRemoteWritePassword, kBearerToken, kSpecialPassword})
      CHECK(written.find(value) != std::string::npos);
    // And the debug path saw the Secrets and the writes.
    const bool json = format == "json";
    CHECK(r.err.find(json ? "\"object\":\"Secret monitoring/remote-write-credentials\""
                          : "object=\"Secret monitoring/remote-write-credentials\"") != std::string::npos);
    CHECK(r.err.find(json ? "\"object\":\"Secret shop/checkout-special\""
                          : "object=\"Secret shop/checkout-special\"") != std::string::npos);
    CHECK(r.err.find(json ? "\"msg\":\"created\",\"object\":\"Secret monitoring/grafana-agent-config\""
                          : "msg=created object=\"Secret monitoring/grafana-agent-config\"") != std::string::npos);
    CHECK(r.err.find(json ? "\"level\":\"debug\"" : "level=debug") != std::string::npos);
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);) {
      if (json)
        CHECK_NOTHROW(model::parse_json(line, "stderr line"));
      else
        CHECK(line.rfind("ts=", 0) == 0);
    }
    for (const std::string& value : secrets()) {
      INFO(value);
      CHECK(r.err.find(value) == std::string::npos);
      CHECK(r.err.find(model::base64_encode(value)) == std::string::npos);
    }
  }
}
