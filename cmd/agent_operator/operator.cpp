#include "operator.hpp"

#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

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

namespace {

// The key file's bytes, less trailing whitespace (a mounted Secret or an
// `echo` adds a newline).
std::string read_redaction_key(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("--journal-redaction-key-file: cannot read " + path);
  std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
  if (key.size() < actors::core::kMinRedactionKeyBytes)
    throw std::invalid_argument("--journal-redaction-key-file: " + path + " holds " + std::to_string(key.size()) +
                                " bytes; a key needs at least " + std::to_string(actors::core::kMinRedactionKeyBytes));
  return key;
}

model::selector_text::LabelSelector kubelet_node_selector(const std::string& text) {
  try {
    return model::selector_text::parse_label_selector(text);
  } catch (const model::selector_text::SyntaxError& e) {
    throw std::invalid_argument(std::string("--kubelet-selector: ") + e.what());
  }
}

}  // namespace

bool parse_operator_flag(Args& a, OperatorFlags& f) {
  if (a.is("kubeconfig")) {
    f.kubeconfig = a.value();
  } else if (a.is("context")) {
    f.context = a.value();
  } else if (a.is("journal")) {
    f.journal = a.value();
  } else if (a.is("journal-secrets")) {
    std::string v = a.value();
    if (v != "include" && v != "redact") throw std::invalid_argument("--journal-secrets: want include or redact");
    f.journal_include_secrets = v == "include";
  } else if (a.is("journal-redaction-key-file")) {
    f.journal_redaction_key = read_redaction_key(a.value());
  } else if (a.is("journal-fsync")) {
    std::string v = a.value();
    if (v == "never")
      f.fsync = actors::core::FsyncPolicy::never;
    else if (v == "batch")
      f.fsync = actors::core::FsyncPolicy::on_flush;
    else if (v == "always")
      f.fsync = actors::core::FsyncPolicy::every_append;
    else
      throw std::invalid_argument("--journal-fsync: want never, batch or always");
  } else if (a.is("listen") || a.is("metrics-listen-address") || a.is("health-listen-address")) {
    f.listen = a.value();
  } else if (a.is("namespace")) {
    f.watch_namespace = a.value();
  } else if (a.is("agent-selector")) {
    f.agent_selector = a.value();
  } else if (a.is("kubelet-service")) {
    f.kubelet_service = model::parse_kubelet_service(a.value());
  } else if (a.is("kubelet-selector")) {
    f.kubelet_selector = a.value();
    kubelet_node_selector(f.kubelet_selector);  // a bad one is a start-up error
  } else if (a.is("labels")) {
    if (!parse_labels(a.value(), f.labels)) throw std::invalid_argument("--labels: want k=v,k2=v2");
  } else if (a.is("debounce")) {
    f.debounce = parse_duration("--debounce", a.value());
  } else if (a.is("qps")) {
    f.qps = std::stod(a.value());
  } else if (a.is("burst")) {
    f.burst = std::stod(a.value());
  } else if (a.is("for")) {
    f.run_for = parse_duration("--for", a.value());
  } else if (a.is("secret-grace-period")) {
    f.secret_grace = parse_duration("--secret-grace-period", a.value());
  } else if (a.is("sync-timeout")) {
    f.sync_timeout = parse_duration("--sync-timeout", a.value());
  } else if (a.is("leader-elect")) {
    f.leader_elect = true;
  } else if (a.is("lease-duration")) {
    f.leader.lease_duration = parse_duration("--lease-duration", a.value());
  } else if (a.is("renew-deadline")) {
    f.leader.renew_deadline = parse_duration("--renew-deadline", a.value());
  } else if (a.is("retry-period")) {
    f.leader.retry_period = parse_duration("--retry-period", a.value());
  } else if (a.is("leader-election-namespace")) {
    f.leader_namespace = a.value();
  } else if (a.is("leader-election-id")) {
    f.leader.name = a.value();
  } else if (a.is("integrations-sd-timeout")) {
    f.sd_timeout = parse_duration("--integrations-sd-timeout", a.value());
    if (f.sd_timeout.count() <= 0) throw std::invalid_argument("--integrations-sd-timeout: must be positive");
  } else if (a.is("integrations-sd-url")) {
    f.sd_url = check_sd_url(a.value());
  } else if (a.is("integrations-sd-freshness")) {
    f.sd_freshness = parse_duration("--integrations-sd-freshness", a.value());
  } else if (a.is("v") || a.is("verbose")) {
    f.log_level = model::LogLevel::debug;
  } else {
    return parse_log_flag(a, f.log_level, f.log_format);
  }
  return true;
}

bool parse_log_flag(Args& a, model::LogLevel& level, model::LogFormat& format) {
  if (a.is("log-level") || a.is("log.level")) {
    std::string v = a.value();
    auto l = model::parse_log_level(v);
    if (!l) throw std::invalid_argument(model::log_level_error(a.is("log.level") ? "-log.level" : "--log-level", v));
    level = *l;
  } else if (a.is("log-format") || a.is("log.format")) {
    std::string v = a.value();
    auto fmt = model::parse_log_format(v);
    if (!fmt)
      throw std::invalid_argument(model::log_format_error(a.is("log.format") ? "-log.format" : "--log-format", v));
    format = *fmt;
  } else {
    return false;
  }
  return true;
}

actors::log::ProcessLogOptions log_options(const OperatorFlags& f) {
  actors::log::ProcessLogOptions o;
  o.level = f.log_level;
  o.format = f.log_format;
  return o;
}

std::string check_sd_url(const std::string& url) {
  bool scheme = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  std::size_t host = url.find("://") + 3;
  if (!scheme || host >= url.size() || url[host] == '/' || url.find_first_of("?# ") != std::string::npos)
    throw std::invalid_argument("--integrations-sd-url: want an http:// or https:// URL without a query, got \"" + url +
                                "\"");
  return url;
}

std::string operator_flags_usage() {
  return "\nflags of run and demo:\n"
         "     --kubeconfig FILE        cluster to manage (default: $KUBECONFIG, else the in-cluster\n"
         "                              service account, else ~/.kube/config)\n"
         "     --context NAME           kubeconfig context (default: current-context)\n"
         "     --journal FILE           append every event to this JSON Lines journal\n"
         "     --journal-secrets MODE   redact (default) or include Secret values\n"
         "     --journal-redaction-key-file FILE   HMAC key for redacted values (default: random per process;\n"
         "                              one key across restarts and replicas makes their journals comparable)\n"
         "     --journal-fsync MODE     never | batch (default) | always\n"
         "     --listen HOST:PORT       /metrics, /healthz, /readyz, /debug/hierarchy,\n"
         "                              /operator/api/v1/metrics/integrations/sd\n"
         "     --namespace NS           watch one namespace only (upstream -namespace)\n"
         "     --agent-selector SEL     only GrafanaAgents matching this label selector\n"
         "     -kubelet-service NS/NAME keep a headless Service NS/NAME, its Endpoints and EndpointSlices\n"
         "                              listing every Node's kubelet (upstream -kubelet-service; default off)\n"
         "     --kubelet-selector SEL   only Nodes matching this label selector (default: every Node)\n"
         "     --labels k=v,...         extra labels on created objects (upstream -labels)\n"
         "     --debounce DURATION      coalesce bursts per agent (default 100ms)\n"
         "     --qps N --burst N        client-side API rate limit (default 50/100)\n"
         "     --leader-elect           only the holder of a Lease writes (2 replicas)\n"
         "     --lease-duration D --renew-deadline D --retry-period D   (default 15s, 10s, 2s)\n"
         "     --leader-election-namespace NS --leader-election-id NAME (default $POD_NAMESPACE, "
         "agent-operator-leader)\n"
         "     --sync-timeout DURATION  exit 1 when the informers have not synced by then (default 60s)\n"
         "     --secret-grace-period D  a deleted Secret/ConfigMap that members reference stays in use this long\n"
         "                              (a delete-and-recreate rotation is no outage; default 5m)\n"
         "     --integrations-sd-url URL      where agents reach this operator's integrations SD endpoint\n"
         "                              (IntegrationMonitor jobs; default the agent-operator-metrics Service)\n"
         "     --integrations-sd-timeout D    each integrations pod's SD request may take this long (default 5s)\n"
         "     --integrations-sd-freshness D  polls within this long of the last merge are served from it\n"
         "                              (default 1s; 0 asks the pods on every poll)\n"
         "     --for DURATION           exit after this long (for scripts)\n"
         "     --log-level LEVEL        debug, info (default), warn or error; all and none as prometheus-operator\n"
         "                              takes them (upstream -log.level; -v, --verbose: debug)\n"
         "     --log-format FORMAT      logfmt (default) or json, to stderr (upstream -log.format)\n";
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
  o.root.render.operator_labels = f.labels;
  if (!f.sd_url.empty()) o.root.render.integrations_sd_url = f.sd_url;
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
  return o;
}

}  // namespace

int run_operator(const OperatorFlags& f, const k8s::ClusterConfig& cluster, const OperatorHooks& hooks) {
  actors::tune_process_memory();
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", std::max(2u, std::thread::hardware_concurrency()));
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
  actors::Controller controller(sys, client, std::move(opts));
  std::unique_ptr<actors::OperatorHttpServer> http;
  if (!f.listen.empty()) {
    auto addr = actors::parse_listen_address(f.listen);
    if (!addr) throw std::invalid_argument("--listen: want HOST:PORT or :PORT, got \"" + f.listen + "\"");
    actors::OperatorHttpSources src;
    src.metrics = &metrics;
    src.ready = [&controller] { return controller.synced() ? std::string() : std::string("informers not synced yet"); };
    src.hierarchy = [&controller](const std::string& ns, const std::string& name) {
      return controller.explain(ns, name);
    };
    http = std::make_unique<actors::OperatorHttpServer>(*addr, src);
    add_integrations_sd_route(*http, controller, f.sd_timeout, addr->threads);
    int port = http->start();
    if (hooks.on_listening) hooks.on_listening(addr->host, port);
    hooks.log(
        model::log_info("operator", "serving HTTP")
            .with("address", addr->host + ":" + std::to_string(port))
            .with("paths", "/metrics,/healthz,/readyz,/debug/hierarchy," + std::string(actors::kIntegrationsSdPath)));
  }
  if (!start_controller(controller, hooks.log)) {
    if (http) http->stop();
    return 1;
  }
  SyncWait synced = wait_for_sync(controller, f.sync_timeout);
  if (synced == SyncWait::signalled) {
    if (http) http->stop();
    controller.stop();
    return 0;
  }
  if (synced == SyncWait::timed_out) {
    log_unsynced(controller, f.sync_timeout, hooks.log);
    if (http) http->stop();
    controller.stop();
    return 1;
  }
  if (hooks.on_synced) hooks.on_synced(controller);
  bool signalled = wait_for_stop(f.run_for);
  hooks.log(model::log_info("operator", signalled ? "signal received; stopping" : "--for has passed; stopping"));
  if (hooks.on_exit) hooks.on_exit(controller);
  if (http) http->stop();
  controller.stop();
  return 0;
}

}  // namespace cli
