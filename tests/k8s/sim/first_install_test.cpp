// Issue 16's acceptance path, as a new user follows README.md and
// deploy/README.md: `kubectl apply -f deploy/bundle.yaml`, `kubectl create
// -k deploy/prometheus-operator-crds`, `kubectl apply -k deploy/examples`,
// then `agent-operator run` from a laptop, finding the cluster only
// through $KUBECONFIG, writing logfmt lines with levels, reconciling
// the examples into their workloads, and (monitor status being on by
// default) telling the examples' IntegrationMonitor which agent uses it.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bin_path.hpp"
#include "golden_util.hpp"
#include "kubectl_env.hpp"
#include "rbac_runner.hpp"

namespace {

void ok(testutil::KubectlEnv& env, const std::vector<std::string>& args) {
  auto r = env.kubectl(args);
  INFO("kubectl " << args.front() << " " << args.back() << "\n" << r.out << r.err);
  REQUIRE(r.code == 0);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every non-empty line is logfmt with ts, level and component first.
bool all_logfmt(const std::string& log) {
  static const std::regex line(
      R"(^ts=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=(debug|info|warn|error) component=\S+ msg=.*$)");
  std::istringstream lines(log);
  std::size_t n = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.empty()) continue;
    if (!std::regex_match(l, line)) return false;
    ++n;
  }
  return n > 0;
}

}  // namespace

TEST_CASE("a new user installs the bundle with kubectl and runs the operator through KUBECONFIG",
          "[deploy][e2e][first-install]") {
  testutil::KubectlEnv env;
  ok(env, {"apply", "-f", testutil::source_path("deploy/bundle.yaml")});
  ok(env, {"create", "-k", testutil::source_path("deploy/prometheus-operator-crds")});
  ok(env, {"apply", "-k", testutil::source_path("deploy/examples")});

  std::string log = env.write_file("operator.log", "");
  auto op = testutil::spawn(
      {"env", "KUBECONFIG=" + env.kubeconfig(), testutil::bin("agent-operator"), "run", "--listen", "127.0.0.1:0"},
      log);
  // The examples' GrafanaAgent becomes a StatefulSet and its config Secret.
  bool reconciled = testutil::poll_until(
      [&] {
        auto r = env.kubectl({"get", "statefulsets,secrets", "-A", "-l",
                              "app.kubernetes.io/managed-by=grafana-agent-operator", "-o", "name"});
        return r.code == 0 && r.out.find("statefulset.apps/") != std::string::npos &&
               r.out.find("secret/") != std::string::npos;
      },
      [] { return false; }, std::chrono::seconds(30));
  // Our IntegrationMonitor CRD admits status.bindings; no flag asked for it.
  std::string binding;
  bool bound = testutil::poll_until(
      [&] {
        auto r = env.kubectl({"get", "integrationmonitor", "infra", "-n", "monitoring", "-o",
                              "jsonpath={.status.bindings[0].group}/{.status.bindings[0].resource}/"
                              "{.status.bindings[0].namespace}/{.status.bindings[0].name}/"
                              "{.status.bindings[0].conditions[0].status}"});
        binding = r.out;
        return r.code == 0 && !r.out.empty() && r.out.front() != '/';
      },
      [] { return false; }, std::chrono::seconds(30));
  op.reset();
  std::string text = read_all(log);
  INFO(text);
  CHECK(reconciled);
  CHECK(bound);
  CHECK(binding == "monitoring.grafana.com/grafanaagents/monitoring/grafana-agent/True");
  // prometheus-operator's CRDs as shipped do not admit our entries.
  CHECK(text.find("not writing status.bindings of ServiceMonitor objects") != std::string::npos);
  CHECK(text.find("msg=\"cluster configuration loaded\"") != std::string::npos);
  CHECK(text.find("source=\"kubeconfig " + env.kubeconfig()) != std::string::npos);
  CHECK(all_logfmt(text));
}
