#include "operator.hpp"

#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <system_error>

#include "actors/allocation/agent_allocations.hpp"
#include "actors/allocation/targets_endpoint.hpp"
#include "actors/core/event.hpp"
#include "actors/core/journal_lock.hpp"
#include "actors/core/redact.hpp"
#include "actors/http/sd_endpoint.hpp"
#include "actors/http/server.hpp"
#include "cmd/build_info.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/client/sharded_transport.hpp"
#include "model/kubelet.hpp"

namespace cli {

actors::log::ProcessLogOptions log_options(const OperatorFlags& f) {
  actors::log::ProcessLogOptions o;
  o.level = f.log_level;
  o.format = f.log_format;
  return o;
}

std::string lease_namespace(const std::string& flag, const std::string& namespace_file) {
  if (!flag.empty()) return flag;
  if (const char* pod_ns = std::getenv("POD_NAMESPACE"); pod_ns && *pod_ns) return pod_ns;
  std::ifstream in(namespace_file);
  std::string ns;
  if (in && std::getline(in, ns) && !ns.empty()) return ns;
  return "default";
}

void block_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

// Waits for the informers' first lists, or SIGINT/SIGTERM: a pod told to
// stop during a slow or impossible start-up exits at once, not after the
// sync timeout.
SyncWait wait_for_sync(actors::Controller& controller, std::chrono::milliseconds timeout) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!controller.synced()) {
    if (std::chrono::steady_clock::now() >= deadline) return SyncWait::timed_out;
    timespec ts{0, 10'000'000};
    if (sigtimedwait(&s, nullptr, &ts) > 0) return SyncWait::signalled;
  }
  return SyncWait::synced;
}

bool wait_for_stop(const std::optional<std::chrono::milliseconds>& run_for) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + run_for.value_or(std::chrono::hours(24 * 365));
  while (true) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds(0)) return false;
    auto step = std::min<std::chrono::nanoseconds>(left, std::chrono::seconds(1));
    timespec ts{static_cast<time_t>(step.count() / 1'000'000'000), static_cast<long>(step.count() % 1'000'000'000)};
    if (sigtimedwait(&s, nullptr, &ts) > 0) return true;
  }
}

namespace {

std::string now_rfc3339() {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::string t = actors::core::format_rfc3339_ms(ms);
  // Kubernetes metav1.Time has second precision.
  return t.size() > 5 ? t.substr(0, t.size() - 5) + "Z" : t;
}

std::string default_identity() {
  if (const char* pod = std::getenv("POD_NAME"); pod && *pod) return pod;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(getpid());
}

// --leader-pod-label: the Pod is the one the Downward API names.
actors::LeaderLabelConfig leader_label(const OperatorFlags& f) {
  if (!f.leader_elect) throw std::invalid_argument("--leader-pod-label needs --leader-elect");
  const char* pod = std::getenv("POD_NAME");
  const char* ns = std::getenv("POD_NAMESPACE");
  if (!pod || !*pod || !ns || !*ns)
    throw std::invalid_argument(
        "--leader-pod-label needs $POD_NAME and $POD_NAMESPACE (the Downward API's metadata.name and "
        "metadata.namespace)");
  actors::LeaderLabelConfig c;
  c.ns = ns;
  c.pod = pod;
  c.key = f.leader_pod_label;
  return c;
}

// Starts the controller; false (with the reason logged) when its journal
// cannot be opened, e.g. because another process holds it.
bool start_controller(actors::Controller& controller, const model::Log& log) {
  try {
    controller.start();
    return true;
  } catch (const actors::core::JournalLocked& e) {
    log(model::log_error("operator", "the journal is locked; exiting").with("error", e.what()));
  } catch (const std::system_error& e) {
    log(model::log_error("operator", "cannot open the journal; exiting").with("error", e.what()));
  }
  return false;
}

// Each kind that never listed, with its last error and what that error
// most likely means (a CRD not installed, RBAC, credentials, no answer).
void log_unsynced(const actors::Controller& controller, std::chrono::milliseconds timeout, const model::Log& log) {
  log(model::log_error("operator", "informers did not sync in time; exiting").with("sync_timeout_ms", timeout.count()));
  for (const auto& u : controller.unsynced()) {
    model::LogEntry e = model::log_error("informer", "not synced").with("kind", u.kind).with("error", u.error);
    if (!u.cause.empty()) e.with("cause", u.cause);
    log(e);
  }
}

// The integrations pods' transport: no API server, no credentials (a pod
// must never see the operator's token); absolute URLs only.
std::shared_ptr<k8s::Transport> pod_transport(const OperatorFlags& f) {
  // Every pod of every agent is asked on each fan-out: four curl loops
  // share the pods, each keeping a connection to every pod of its share
  // (up to 4,096 per loop) and skipping libcurl's per-request DNS cache walk.
  k8s::CurlOptions o = k8s::many_hosts_options(4096);
  o.user_agent = "agent-operator-integrations-sd";
  o.connect_timeout = std::min<std::chrono::milliseconds>(f.sd_timeout, o.connect_timeout);
  return k8s::make_fanout_transport(4, o);
}

// Each consistent agent's allocation journal sits beside --journal.
std::string journal_dir(const std::string& journal) {
  if (journal.empty()) return {};
  auto slash = journal.rfind('/');
  return slash == std::string::npos ? "." : journal.substr(0, slash);
}

void add_integrations_sd_route(actors::OperatorHttpServer& http, actors::Controller& controller,
                               std::chrono::milliseconds pod_timeout, int http_threads) {
  // A poll waits at most for one fan-out, which ends by the pods' timeout.
  auto wait = pod_timeout + std::chrono::seconds(5);
  // Half the workers at most, so probes and /metrics always find one.
  auto limit = std::make_shared<actors::SdPollLimit>(std::max(1, http_threads / 2));
  http.add_get(actors::kIntegrationsSdPath, [&controller, wait, limit](const actors::HttpRequest& r) {
    return limit->serve([&] {
      actors::SdPoll poll = controller.sd_poll(wait);
      if (!poll) return actors::HttpResponse{503, "the controller has not started yet\n"};
      return actors::integrations_sd_response(poll, r);
    });
  });
}

actors::ControllerOptions controller_options(const OperatorFlags& f, const OperatorHooks& hooks) {
  actors::ControllerOptions o;
  o.member_grace = f.secret_grace;
  o.journal_path = f.journal;
  o.journal_include_secrets = f.journal_include_secrets;
  o.journal_redaction_key = f.journal_redaction_key;
  o.fsync = f.fsync;
  o.operator_version = this_build().version;
  o.watch_namespace = f.watch_namespace;
  o.agent_selector = f.agent_selector;
  o.journal_max_bytes = f.journal_max_bytes;
  o.journal_max_files = f.journal_max_files;
  o.root.render.operator_labels = f.labels;
  o.root.render.upstream_compat = f.upstream_compat;
  if (!f.sd_url.empty()) o.root.render.integrations_sd_url = f.sd_url;
  if (!f.targets_url.empty()) o.root.render.operator_targets_url = f.targets_url;
  o.monitor_status = f.monitor_status;
  if (f.kubelet_service)
    o.kubelet = model::KubeletServiceOptions{f.kubelet_service->first, f.kubelet_service->second, f.labels,
                                             kubelet_node_selector(f.kubelet_selector)};
  o.root.debounce = f.debounce;
  o.writer.now_rfc3339 = now_rfc3339;
  o.log = hooks.log;
  if (f.leader_elect) {
    o.leader = f.leader;
    o.leader->ns = lease_namespace(f.leader_namespace, "/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    if (o.leader->identity.empty()) o.leader->identity = default_identity();
    if (o.leader->renew_deadline >= o.leader->lease_duration)
      throw std::invalid_argument("--renew-deadline must be shorter than --lease-duration");
  }
  if (!f.leader_pod_label.empty()) o.leader_label = leader_label(f);
  return o;
}

// A listen flag's server options; nullopt when the flag turns it off.
std::optional<actors::HttpServerOptions> listen_options(const std::string& flag, const std::string& text) {
  if (text.empty() || text == "0") return std::nullopt;
  auto addr = actors::parse_listen_address(text);
  if (!addr) throw std::invalid_argument(flag + ": want HOST:PORT or :PORT, got \"" + text + "\"");
  return addr;
}

struct HttpServers {
  std::unique_ptr<actors::OperatorHttpServer> main, health, targets;
  void stop() {
    if (targets) targets->stop();
    if (health) health->stop();
    if (main) main->stop();
  }
};

int start_logged(actors::OperatorHttpServer& server, const actors::HttpServerOptions& addr, const std::string& flag,
                 const std::string& paths, const model::Log& log) {
  int port = 0;
  try {
    port = server.start();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(flag + ": cannot serve on " + addr.host + ":" + std::to_string(addr.port) + ": " +
                             e.what());
  }
  log(model::log_info("operator", "serving HTTP")
          .with("address", addr.host + ":" + std::to_string(port))
          .with("paths", paths));
  return port;
}

// --targets-listen-address: the targets endpoint and the health paths only,
// so a NetworkPolicy can open this port to agent pods alone.
std::unique_ptr<actors::OperatorHttpServer> start_targets_server(const actors::HttpServerOptions& addr,
                                                                 actors::HttpCheck ready,
                                                                 actors::AgentAllocations& allocations,
                                                                 actors::TokenReviewCache& tokens,
                                                                 std::function<bool()> leading, const model::Log& log) {
  auto server = std::make_unique<actors::OperatorHttpServer>(
      addr, actors::OperatorHttpSources{nullptr, {}, std::move(ready), {}});
  actors::add_targets_route(*server, allocations, tokens, std::move(leading));
  start_logged(*server, addr, "--targets-listen-address",
               std::string(actors::kTargetsPath) + ",/healthz,/readyz,/-/healthy,/-/ready", log);
  return server;
}

// The metrics server (every path) and upstream's separate health server
// (health paths only); both say ready once the informers have synced.
// The main one also serves /debug/targets and, unless it has a listener of
// its own, the targets endpoint (for the agent's own ServiceAccount only).
HttpServers start_http(const OperatorFlags& f, actors::Controller& controller, const actors::OperatorMetrics& metrics,
                       const OperatorHooks& hooks, actors::AgentAllocations& allocations,
                       actors::TokenReviewCache& tokens) {
  HttpServers s;
  auto ready = [&controller] { return controller.synced() ? std::string() : std::string("informers not synced yet"); };
  if (f.webhook_host.size() || f.webhook_port >= 0)
    hooks.log(model::log_info("operator",
                              "-listen-host and -listen-port are accepted for upstream compatibility; "
                              "there are no admission webhooks, so nothing listens there"));
  const auto targets = listen_options("--targets-listen-address", f.targets_listen);
  if (auto addr = listen_options("--metrics-listen-address", f.listen)) {
    actors::OperatorHttpSources src;
    src.metrics = &metrics;
    src.ready = ready;
    src.hierarchy = [&controller](const std::string& ns, const std::string& name) {
      return controller.explain(ns, name);
    };
    s.main = std::make_unique<actors::OperatorHttpServer>(*addr, src);
    add_integrations_sd_route(*s.main, controller, f.sd_timeout, addr->threads);
    actors::add_debug_targets_route(*s.main, allocations);
    std::string paths = "/metrics,/healthz,/readyz,/-/healthy,/-/ready,/debug/hierarchy," +
                        std::string(actors::kIntegrationsSdPath) + "," + actors::kDebugTargetsPath;
    if (!targets) {
      actors::add_targets_route(*s.main, allocations, tokens, [&controller] { return controller.leading(); });
      paths += std::string(",") + actors::kTargetsPath;
    }
    int port = start_logged(*s.main, *addr, "--metrics-listen-address", paths, hooks.log);
    if (hooks.on_listening) hooks.on_listening(addr->host, port);
  }
  if (targets)
    s.targets = start_targets_server(
        *targets, ready, allocations, tokens, [&controller] { return controller.leading(); }, hooks.log);
  auto health = listen_options("--health-listen-address", f.health_listen);
  if (health && f.health_listen != f.listen) {
    s.health =
        std::make_unique<actors::OperatorHttpServer>(*health, actors::OperatorHttpSources{nullptr, {}, ready, {}});
    start_logged(*s.health, *health, "--health-listen-address", "/healthz,/readyz,/-/healthy,/-/ready", hooks.log);
  }
  return s;
}

}  // namespace

int run_operator(const OperatorFlags& f, const k8s::ClusterConfig& cluster, const OperatorHooks& hooks) {
  actors::tune_process_memory();
  caf::actor_system_config cfg;
  actors::set_operator_threads(cfg);
  actors::tune_actor_system(cfg);
  // Declared before the transport: its I/O thread reports every request,
  // retries during shutdown included, until the transport is destroyed.
  actors::OperatorMetrics metrics;
  metrics.set_build_info(this_build());
  caf::actor_system sys{cfg};
  auto transport = k8s::make_curl_transport(cluster);
  actors::ControllerOptions opts = controller_options(f, hooks);
  k8s::ClientOptions co;
  co.qps = f.qps;
  co.burst = f.burst;
  // The replica's identity in every request, so an API server's audit log
  // tells which replica wrote what (the replicas share a ServiceAccount).
  co.user_agent = "agent-operator/" + this_build().version + (opts.leader ? " (" + opts.leader->identity + ")" : "");
  std::string host = cluster.server;
  co.on_request = [&metrics, host](const std::string& method, int status, double seconds) {
    metrics.observe_rest_request(method, host, status, seconds);
  };
  k8s::Client client(transport, co);
  std::shared_ptr<k8s::Transport> pods = pod_transport(f);  // outlives the controller's actors
  opts.metrics = &metrics;
  opts.sd = actors::SdConfig{pods, f.sd_timeout, f.sd_freshness};
  actors::AgentAllocations allocations(sys, {&client, journal_dir(f.journal), hooks.log});
  actors::TokenReviewCache tokens(actors::make_token_reviewer(client, std::chrono::seconds(10)));
  auto inner_render = opts.root.on_render;
  opts.root.on_render = [&allocations, inner_render](const actors::RootOutput& out) {
    if (inner_render) inner_render(out);
    allocations.on_render(out);
  };
  actors::Controller controller(sys, client, std::move(opts));
  HttpServers http;
  try {
    http = start_http(f, controller, metrics, hooks, allocations, tokens);
  } catch (const std::runtime_error& e) {  // the address is taken or not ours
    hooks.log(model::log_error("operator", "cannot serve HTTP; exiting").with("error", e.what()));
    return 1;
  }
  // The HTTP threads read the allocations; the allocations use the client.
  auto stop_all = [&] {
    http.stop();
    allocations.stop();
    controller.stop();
  };
  if (!start_controller(controller, hooks.log)) {
    http.stop();
    allocations.stop();
    return 1;
  }
  SyncWait synced = wait_for_sync(controller, f.sync_timeout);
  if (synced == SyncWait::signalled) {
    stop_all();
    return 0;
  }
  if (synced == SyncWait::timed_out) {
    log_unsynced(controller, f.sync_timeout, hooks.log);
    stop_all();
    return 1;
  }
  if (hooks.on_synced) hooks.on_synced(controller);
  bool signalled = wait_for_stop(f.run_for);
  hooks.log(model::log_info("operator", signalled ? "signal received; stopping" : "--for has passed; stopping"));
  if (hooks.on_exit) hooks.on_exit(controller);
  stop_all();
  return 0;
}

}  // namespace cli
