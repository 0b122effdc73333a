// A real Prometheus (Debian's) scrapes through the IntegrationMonitor job
// rendered from deploy/examples: its http_sd URL points at a test operator
// endpoint (the SD aggregator actor behind the operator's HTTP server),
// whose pods are loopback stand-ins answering what agents would for the
// rendered integrations configs. Prometheus must discover exactly the
// expected targets with exactly the expected final labels.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "actors/controller.hpp"
#include "actors/http/sd_endpoint.hpp"
#include "actors/sd_actor.hpp"
#include "k8s/client/curl_transport.hpp"
#include "model/codec.hpp"
#include "model/inventory.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"
#include "sd/standin_pods.hpp"
#include "tests/allocation/http_fixtures.hpp"

using namespace std::chrono_literals;

namespace {

model::Inventory examples() {
  model::Inventory inv;
  for (const auto& entry : std::filesystem::directory_iterator(e2e::source_dir() + "/deploy/examples")) {
    if (entry.path().extension() != ".yaml") continue;  // the Kustomization, otel-collector/
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& doc : model::parse_documents(text, entry.path().string())) inv.add(std::move(doc.value));
  }
  return inv;
}

model::Value secret_config(const model::RenderAll& all, const std::string& name) {
  for (const model::Value& o : all.objects)
    if (model::string_at(o, {"kind"}) == "Secret" && model::meta_string(o, "name") == name)
      return model::parse_documents(*model::base64_decode(model::string_at(o, {"data", "agent.yml"})), name)
          .at(0)
          .value;
  FAIL("no config Secret " << name);
  return {};
}

// The IntegrationMonitor job of the metrics config, with the agent's shard
// placeholder widened to every shard (Prometheus is one scraper).
std::string prometheus_config(const model::Value& metrics) {
  for (const model::Value& instance : metrics.find("metrics")->find("configs")->as_array())
    for (const model::Value& job : instance.find("scrape_configs")->as_array())
      if (model::string_at(job, {"job_name"}).rfind("integrationMonitor/", 0) == 0) {
        std::string yaml = model::to_yaml(model::Value::obj({{"scrape_configs", model::Value::arr({job})}}));
        std::size_t at = yaml.find("$(SHARD)");
        if (at != std::string::npos) yaml.replace(at, 8, ".*");
        return "global: {scrape_interval: 1h}\n" + yaml;
      }
  FAIL("no integrationMonitor job");
  return {};
}

actors::EventPtr grafana_agent_endpoints(const sd::StandinPods& pods) {
  return std::make_shared<const actors::core::Event>(actors::core::make_event(
      1, 0, actors::core::EventType::added, sd::standin_endpoints("monitoring", "grafana-agent", pods.addresses())));
}

}  // namespace

TEST_CASE("Prometheus scrapes through an IntegrationMonitor job and sees exactly the expected targets",
          "[e2e][sd][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto transport = k8s::make_curl_transport(k8s::ClusterConfig{});
  actors::sd_actor sd = actors::spawn_sd_actor(sys, actors::SdConfig{transport, 2000ms, 0ms});
  actors::OperatorHttpServer http{actors::HttpServerOptions{}, actors::OperatorHttpSources{}};
  actors::SdPoll poll = actors::make_sd_poll(sys, sd, 10s);
  http.add_get(actors::kIntegrationsSdPath,
               [poll](const actors::HttpRequest& r) { return actors::integrations_sd_response(poll, r); });
  const int port = http.start();

  model::RenderOptions opts;
  opts.integrations_sd_url = "http://127.0.0.1:" + std::to_string(port) + actors::kIntegrationsSdPath;
  model::RenderAll all = model::render_all(examples(), opts);
  model::Value ds = secret_config(all, "grafana-agent-integrations-ds-config");
  model::Value deploy = secret_config(all, "grafana-agent-integrations-deploy-config");
  std::vector<sd::StandinBehaviour> pods(3);
  pods[0].body = sd::standin_sd_body_for(ds, "node-1");
  pods[1].body = sd::standin_sd_body_for(ds, "node-2");
  pods[2].body = sd::standin_sd_body_for(deploy, "grafana-agent-integrations-deploy-0");
  sd::StandinPods standins(pods);
  caf::anon_send(sd, actors::event_atom::value, grafana_agent_endpoints(standins));

  auto dir = std::filesystem::temp_directory_path() / ("ao-prom-sd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "prometheus.yml") << prometheus_config(secret_config(all, "grafana-agent-config"));
  const int prom_port = http_test::free_port();
  http_test::Child prometheus = http_test::start_prometheus(dir, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  std::set<std::string> seen;  // each active target's final labels, as one line
  for (int i = 0; i < 120 && seen.size() < 3; ++i) {
    std::this_thread::sleep_for(250ms);
    auto res = prom.Get("/api/v1/targets?state=active");
    if (!res || res->status != 200) continue;
    seen.clear();
    const model::Value doc = model::parse_json(res->body);
    for (const model::Value& t : doc.find("data")->find("activeTargets")->as_array())
      seen.insert(model::to_json(*t.find("labels")) + " " + model::string_at(t, {"scrapeUrl"}));
  }
  prometheus.terminate();
  std::filesystem::remove_all(dir);
  for (const std::string& s : seen) UNSCOPED_INFO(s);
  CHECK(
      seen ==
      std::set<std::string>{
          R"({"agent_hostname":"node-1","cluster":"monitoring/grafana-agent","instance":"monitoring/node-exporter","job":"integrations/node_exporter","metrics_instance":"monitoring/primary","monitor":"monitoring/infra","team":"platform"} http://node-1:12345/integrations/node_exporter/metrics)",
          R"({"agent_hostname":"node-2","cluster":"monitoring/grafana-agent","instance":"monitoring/node-exporter","job":"integrations/node_exporter","metrics_instance":"monitoring/primary","monitor":"monitoring/infra","team":"platform"} http://node-2:12345/integrations/node_exporter/metrics)",
          R"({"agent_hostname":"grafana-agent-integrations-deploy-0","cluster":"monitoring/grafana-agent","instance":"shop/redis-sessions","job":"integrations/redis","metrics_instance":"monitoring/primary","monitor":"monitoring/infra"} http://grafana-agent-integrations-deploy-0:12345/integrations/redis/metrics)"});
  http.stop();
  caf::anon_send_exit(sd, caf::exit_reason::user_shutdown);
}
