// Drives the real agent-operator binary: `render -f` exit codes, the error
// line format, sorting, and every example manifest.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"

namespace {

struct Run {
  int code;
  std::string out, err;
};

Run run(const std::string& args, const std::string& stdin_text = "") {
  auto dir = std::filesystem::temp_directory_path() / ("ao-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in") << stdin_text;
  std::string cmd = std::string(AO_BIN_DIR) + "/agent-operator " + args + " <" + (dir / "in").string() + " >" +
                    (dir / "out").string() + " 2>" + (dir / "err").string();
  int status = std::system(cmd.c_str());
  Run r{WEXITSTATUS(status), testutil::read_text((dir / "out").string()), testutil::read_text((dir / "err").string())};
  std::filesystem::remove_all(dir);
  return r;
}

std::string write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("ao-cli-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

const char* kAgent = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: agent}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon, labels: {agent: agent}}
spec:
  serviceMonitorSelector: {}
)";

}  // namespace

TEST_CASE("render prints complete sorted objects for the examples", "[cli]") {
  Run r = run("render -f " + testutil::source_path("deploy/examples"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto docs = model::parse_documents(r.out, "stdout");
  REQUIRE(docs.size() >= 8);
  std::vector<std::string> keys;
  for (const auto& d : docs) {
    const auto* meta = d.value.find("metadata");
    REQUIRE(meta);
    keys.push_back(meta->find("namespace")->as_string() + "/" + d.value.find("kind")->as_string() + "/" +
                   meta->find("name")->as_string());
  }
  CHECK(std::is_sorted(keys.begin(), keys.end()));
  // Same input, same bytes.
  CHECK(run("render -f " + testutil::source_path("deploy/examples")).out == r.out);
}

TEST_CASE("every upstream example manifest renders", "[cli]") {
  for (const auto& e : std::filesystem::directory_iterator(testutil::reference_path("examples"))) {
    if (e.path().extension() != ".yaml") continue;
    Run r = run("render -f " + e.path().string());
    INFO(e.path().string() << "\n" << r.err);
    CHECK(r.code == 0);
    bool has_root = testutil::read_text(e.path().string()).find("kind: GrafanaAgent") != std::string::npos;
    CHECK((r.out.find("kind: StatefulSet") != std::string::npos) == has_root);
  }
  // Together, as a user applying all of them would have them (later files
  // replace default/primary, so the docs' GrafanaAgent gets the instances).
  Run all = run("render -f " + testutil::reference_path("examples"));
  INFO(all.err);
  CHECK(all.code == 0);
  CHECK(all.out.find("name: grafana-agent-logs") != std::string::npos);
  CHECK(all.out.find("name: grafana-agent-integrations-ds") != std::string::npos);
}

TEST_CASE("an invalid member is reported and its root still renders", "[cli]") {
  std::string bad = std::string(kAgent) + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: mon}
spec:
  selector: {matchExpressions: [{key: a, operator: Like, values: [x]}]}
  endpoints: [{port: web}]
)";
  Run r = run("render -f -", bad);
  CHECK(r.code == 1);
  CHECK(r.err ==
        "ServiceMonitor mon/broken: spec.selector.matchExpressions[0].operator: unknown operator \"Like\" (want In, "
        "NotIn, Exists or DoesNotExist)\n");
  CHECK(r.out.find("name: agent-config") != std::string::npos);
}

TEST_CASE("a field the agent cannot honour is a warning line and the render succeeds", "[cli]") {
  std::string in = std::string(kAgent) + R"(---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: mon}
spec: {selector: {}, endpoints: [{port: web}], scrapeClass: tls}
)";
  Run r = run("render -f -", in);
  CHECK(r.code == 0);
  CHECK(r.err ==
        "warning: ServiceMonitor mon/web: spec.scrapeClass: not supported by the Grafana Agent (a GrafanaAgent has "
        "no scrape classes; the monitor renders without one); ignored\n");
  std::string agent_yml;
  for (const auto& d : model::parse_documents(r.out, "stdout"))
    if (const auto* data = d.value.find("data"); data && data->find("agent.yml"))
      agent_yml = model::base64_decode(data->find("agent.yml")->as_string()).value_or("");
  CHECK(agent_yml.find("job_name: serviceMonitor/mon/web/0") != std::string::npos);
}

TEST_CASE("an invalid root renders nothing of its own - other roots still render", "[cli]") {
  std::string two = std::string(kAgent) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: broken, namespace: mon}
spec:
  metrics: {shards: "two", instanceSelector: {}}
)";
  Run r = run("render -f -", two);
  CHECK(r.code == 1);
  CHECK(r.err == "GrafanaAgent mon/broken: spec.metrics.shards: expected integer, got string\n");
  CHECK(r.out.find("name: agent-config") != std::string::npos);
  CHECK(r.out.find("broken") == std::string::npos);
}

TEST_CASE("unparsable input exits 2 naming the file and line", "[cli]") {
  std::string path = write_temp("bad.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: x\n");
  Run r = run("render -f " + path);
  CHECK(r.code == 2);
  CHECK(std::regex_search(r.err, std::regex(std::regex_replace(path, std::regex(R"([.])"), R"(\.)") + ":[0-9]+: ")));
  std::filesystem::remove(path);
  Run missing = run("render -f /nonexistent/file.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/file.yaml") != std::string::npos);
  Run usage = run("render");
  CHECK(usage.code == 2);
}

TEST_CASE("render reads JSON and multi-document streams alike", "[cli]") {
  Run yaml = run("render -f -", kAgent);
  REQUIRE(yaml.code == 0);
  std::string json =
      R"({"apiVersion":"v1","kind":"List","items":[)"
      R"({"apiVersion":"monitoring.grafana.com/v1alpha1","kind":"GrafanaAgent","metadata":{"name":"agent","namespace":"mon"},)"
      R"("spec":{"metrics":{"instanceSelector":{"matchLabels":{"agent":"agent"}}}}},)"
      R"({"apiVersion":"monitoring.grafana.com/v1alpha1","kind":"MetricsInstance","metadata":{"name":"primary","namespace":"mon","labels":{"agent":"agent"}},)"
      R"("spec":{"serviceMonitorSelector":{}}}]})";
  Run j = run("render -f -", json);
  CHECK(j.code == 0);
  CHECK(j.out == yaml.out);
}

TEST_CASE("render takes several paths after one -f, as kubectl does", "[cli]") {
  std::string agent = write_temp("multi-agent.yaml", kAgent);
  std::string monitor = write_temp("multi-monitor.yaml", R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: mon}
spec: {selector: {}, endpoints: [{port: web}]}
)");
  Run one_flag = run("render -f " + agent + " " + monitor);
  Run two_flags = run("render -f " + agent + " -f " + monitor);
  Run flag_after = run("render -f " + agent + " " + monitor + " --labels team=obs");
  CHECK(one_flag.code == 0);
  CHECK(two_flags.code == 0);
  CHECK(one_flag.out == two_flags.out);
  CHECK(flag_after.code == 0);
  CHECK(flag_after.out.find("team: obs") != std::string::npos);
  std::string agent_yml;
  for (const auto& d : model::parse_documents(one_flag.out, "stdout"))
    if (const auto* data = d.value.find("data"); data && data->find("agent.yml"))
      agent_yml = model::base64_decode(data->find("agent.yml")->as_string()).value_or("");
  CHECK(agent_yml.find("job_name: serviceMonitor/mon/web/0") != std::string::npos);  // the second file was read
  std::filesystem::remove(agent);
  std::filesystem::remove(monitor);
}

TEST_CASE("render says so when the input has no GrafanaAgent", "[cli]") {
  Run r = run("render -f -", "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: mon}\n");
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err == "agent-operator: no GrafanaAgent in the input, so nothing to render (read: -)\n");
  Run with_agent = run("render -f -", kAgent);
  CHECK(with_agent.err.find("no GrafanaAgent") == std::string::npos);
}

TEST_CASE("render --decode prints Secrets with readable stringData", "[cli]") {
  std::string in = std::string(kAgent) + R"(---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: mon}
spec: {selector: {}, endpoints: [{port: web}]}
)";
  Run plain = run("render -f -", in);
  Run decoded = run("render --decode -f -", in);
  REQUIRE(decoded.code == 0);
  std::size_t secrets = 0;
  for (const auto& d : model::parse_documents(decoded.out, "stdout")) {
    if (d.value.find("kind")->as_string() != "Secret") continue;
    INFO(model::string_at(d.value, {"metadata", "name"}));
    CHECK_FALSE(d.value.find("data"));          // every value here is text
    if (!d.value.find("stringData")) continue;  // a Secret without values (e.g. no assets)
    ++secrets;
    if (const auto* yml = d.value.find("stringData")->find("agent.yml"))
      CHECK(yml->as_string().find("job_name: serviceMonitor/mon/web/0") != std::string::npos);
  }
  CHECK(secrets > 0);
  CHECK(plain.out.find("stringData") == std::string::npos);
  CHECK(decoded.out.find("job_name: serviceMonitor/mon/web/0") != std::string::npos);
}
