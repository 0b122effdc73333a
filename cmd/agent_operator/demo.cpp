// `agent-operator demo`: an embedded simcluster loaded with deploy/crds,
// deploy/prometheus-operator-crds and deploy/examples, the controller
// running against it over HTTP, a kubeconfig written for kubectl, and a
// report of what was reconciled.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "actors/http/sd_endpoint.hpp"
#include "commands.hpp"
#include "demo_integrations.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "model/listen_address.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "operator.hpp"

namespace cli {

namespace {

// deploy/<sub> of the source tree when it is there, else the copy the
// image installs under /usr/share/agent-operator (deploy/Dockerfile), so
// `demo` works from a checkout and from the container alike.
std::string manifests(const std::string& sub) {
  const std::string source = std::string(AO_SOURCE_DIR) + "/deploy/" + sub;
  const std::string installed = "/usr/share/agent-operator/" + sub;
  std::error_code ec;
  return !std::filesystem::is_directory(source, ec) && std::filesystem::is_directory(installed, ec) ? installed
                                                                                                    : source;
}

struct DemoFlags {
  OperatorFlags op;
  std::string kubeconfig_out = "agent-operator-demo.kubeconfig";
  // Ours and prometheus-operator's (the demo cluster has no
  // prometheus-operator); --crds replaces both.
  std::vector<std::string> crds = {manifests("crds"), manifests("prometheus-operator-crds")};
  std::vector<std::string> load;
  std::string sim_listen = "127.0.0.1:0";
};

std::vector<Flag> demo_flags(DemoFlags& f) {
  std::vector<Flag> t;
  auto crds_given = std::make_shared<bool>(false);
  t.push_back({{"kubeconfig-out"},
               "FILE",
               f.kubeconfig_out,
               "write a kubeconfig for the demo cluster here",
               [&f](const std::string& v) { f.kubeconfig_out = v; }});
  t.push_back({{"crds"},
               "PATH",
               "deploy/crds and deploy/prometheus-operator-crds",
               "CRDs to install (repeatable)",
               [&f, crds_given](const std::string& v) {
                 if (!std::exchange(*crds_given, true)) f.crds.clear();
                 f.crds.push_back(v);
               },
               true});
  t.push_back({{"load"},
               "PATH",
               "deploy/examples",
               "manifests to load (repeatable)",
               [&f](const std::string& v) { f.load.push_back(v); },
               true});
  t.push_back(
      {{"sim-listen"}, "HOST:PORT", f.sim_listen, "where the embedded simcluster listens", [&f](const std::string& v) {
         if (!model::parse_listen_address(v)) throw std::invalid_argument("want HOST:PORT, got \"" + v + "\"");
         f.sim_listen = v;
       }});
  for (Flag& flag : operator_flags(f.op, "127.0.0.1:0")) t.push_back(std::move(flag));
  return t;
}

// nullopt when --help was asked for (the help is printed).
std::optional<DemoFlags> parse_demo(int argc, char** argv) {
  DemoFlags f;
  f.op.listen = "127.0.0.1:0";
  Command c{"agent-operator demo [flags]",
            "Runs the controller against an embedded simcluster loaded with deploy/crds, "
            "deploy/prometheus-operator-crds and deploy/examples, writes a kubeconfig for kubectl and reports what "
            "was reconciled. Takes run's flags except --kubeconfig.",
            demo_flags(f),
            {},
            kOperatorExitCodes};
  if (parse(c, argc, argv) == Parsed::help) {
    std::cout << help_text(c);
    return std::nullopt;
  }
  if (f.load.empty()) f.load.push_back(manifests("examples"));
  if (!f.op.kubeconfig.empty()) throw UsageError("--kubeconfig: demo runs its own cluster; drop it");
  return f;
}

// Lists GrafanaAgents through the operator's own client and prints their
// conditions: what the operator reports, as kubectl would show it.
void print_agents(const k8s::ClusterConfig& cc) {
  k8s::Client client(k8s::make_curl_transport(cc));
  std::promise<k8s::Result> done;
  client.list(*k8s::resource_for_kind("GrafanaAgent"), "", {}, [&](k8s::Result r) { done.set_value(std::move(r)); });
  k8s::Result r = done.get_future().get();
  if (!r.ok()) {
    std::cout << "could not list GrafanaAgents: HTTP " << r.status << " " << r.error << "\n";
    return;
  }
  model::Value list = model::parse_json(r.body, "list");
  const model::Value* items = list.find("items");
  for (const model::Value& ga : items && items->is_array() ? items->as_array() : model::Value::Array{}) {
    std::cout << "GrafanaAgent " << model::namespaced_name(ga);
    const model::Value* st = ga.find("status");
    const model::Value* conds = st ? st->find("conditions") : nullptr;
    for (const model::Value& c : conds && conds->is_array() ? conds->as_array() : model::Value::Array{})
      std::cout << "  " << c.find("type")->as_string() << "=" << c.find("status")->as_string() << " ("
                << c.find("reason")->as_string() << ")";
    std::cout << "\n";
  }
}

}  // namespace

int demo(int argc, char** argv) {
  std::optional<DemoFlags> parsed = parse_demo(argc, argv);
  if (!parsed) return 0;
  DemoFlags& f = *parsed;
  block_signals();
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);
  std::vector<std::string> paths = f.crds;
  paths.insert(paths.end(), f.load.begin(), f.load.end());
  std::size_t loaded = k8s::sim::load_manifests(cluster, paths);
  k8s::sim::ServerOptions so;
  model::ListenAddress sim = *model::parse_listen_address(f.sim_listen);
  so.host = sim.host;
  so.port = sim.port;
  k8s::sim::Server server(cluster, so);
  server.start();
  {
    std::ofstream out(f.kubeconfig_out, std::ios::trunc);
    out << server.kubeconfig();
  }
  std::cout << "simcluster listening on " << server.url() << " with " << loaded << " objects from";
  for (const auto& p : paths) std::cout << " " << p;
  std::cout << "\nkubeconfig written to " << f.kubeconfig_out << "  (try: kubectl --kubeconfig " << f.kubeconfig_out
            << " get grafanaagents,statefulsets,secrets -A)\n";
  k8s::ClusterConfig cc = k8s::from_kubeconfig(f.kubeconfig_out);
  // The report goes to stdout; the controller's log lines to stderr, as in `run`.
  actors::log::ProcessLog process_log(log_options(f.op));
  OperatorHooks hooks;
  hooks.log = process_log.log();
  std::string sd_url;
  hooks.on_listening = [&](const std::string& host, int port) {
    sd_url = "http://" + (host.empty() || host == "0.0.0.0" ? std::string("127.0.0.1") : host) + ":" +
             std::to_string(port) + actors::kIntegrationsSdPath;
  };
  DemoIntegrations integrations;  // outlives the controller's pod requests
  hooks.on_synced = [&](actors::Controller& c) {
    std::cout << "controller synced; reconciling (what it does is logged to stderr)" << std::endl;
    c.wait_idle(std::chrono::seconds(30));
    auto s = c.stats();
    std::cout << "reconciled " << s.writer.roots << " GrafanaAgents: " << s.writer.writes << " writes, "
              << s.writer.skipped << " unchanged, " << s.writer.errors << " errors, journal seq " << s.journal_seq
              << "\n";
    print_agents(cc);
    integrations = start_demo_integrations(cluster);
    for (std::size_t i = 0; i < integrations.agents.size(); ++i)
      std::cout << "integrations pods of GrafanaAgent " << integrations.agents[i] << ": "
                << integrations.pods[i]->addresses().size() << " loopback stand-ins\n";
    if (!sd_url.empty())
      std::cout << "integrations SD endpoint (Prometheus http_sd): " << sd_url << "  (try: curl -s " << sd_url << ")\n";
    std::cout << (f.op.run_for ? "running for the requested time" : "running until interrupted (Ctrl-C)") << std::endl;
  };
  int rc = run_operator(f.op, cc, hooks);
  server.stop();
  return rc;
}

}  // namespace cli
