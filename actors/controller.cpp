#include "actors/controller.hpp"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "actors/core/list_failure.hpp"
#include "actors/elector_actor.hpp"
#include "model/render.hpp"
#include "sd/endpoints.hpp"

namespace actors {

namespace {

bool owned_kind(const std::string& kind) {
  return kind == "Service" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "Deployment";
}

std::int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

bool kubelet_idle(const std::optional<KubeletStats>& now, const std::optional<KubeletStats>& before) {
  if (!now || !before) return now.has_value() == before.has_value();
  return now->writes == before->writes && now->plans == before->plans && !now->in_flight && !now->retrying;
}

bool bindings_idle(const std::optional<BindingsStats>& now, const std::optional<BindingsStats>& before) {
  if (!now || !before) return now.has_value() == before.has_value();
  return now->patches == before->patches && !now->in_flight && !now->retrying;
}

std::shared_ptr<core::JournalSink> open_sink(const ControllerOptions& o, const std::string& key,
                                             std::uint64_t& first_seq) {
  if (o.journal_sink) return o.journal_sink;
  if (o.journal_path.empty()) return nullptr;
  core::FileJournalOptions fo;
  fo.path = o.journal_path;
  fo.fsync = o.fsync;
  fo.max_bytes = o.journal_max_bytes;
  fo.keep_files = o.journal_max_files;
  fo.log = o.log;
  fo.header.operator_version = o.operator_version;
  fo.header.flags["secrets"] = o.journal_include_secrets ? "included" : "redacted";
  if (!o.journal_include_secrets) fo.header.flags["redaction_key_id"] = core::redaction_key_id(key);
  auto file = std::make_shared<core::FileJournal>(fo);
  first_seq = file->last_seq() + 1;
  return file;
}

}  // namespace

void tune_actor_system(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

void set_operator_threads(caf::actor_system_config& cfg) {
  cfg.set("scheduler.max-threads", std::max(2u, std::thread::hardware_concurrency()));
}

namespace {

// glibc reads MALLOC_*_ itself at start: a variable the user set wins.
void set_malloc_option(const char* variable, int option, int value) {
  if (!std::getenv(variable)) mallopt(option, value);
}

}  // namespace

void tune_process_memory() {
  set_malloc_option("MALLOC_ARENA_MAX", M_ARENA_MAX, 2);
  // A fixed threshold turns off glibc's sliding one, which after the first
  // large free moves multi-MB list bodies and render buffers into the heap,
  // where they leave holes between long-lived trees.
  set_malloc_option("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 256 * 1024);
}

void tune_target_allocator_memory() {
  set_malloc_option("MALLOC_ARENA_MAX", M_ARENA_MAX, 2);
  // A pass's transient arrays of every target (hundreds of KiB to MBs)
  // stay in the heap, where the next pass reuses their pages.
  set_malloc_option("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 4 * 1024 * 1024);
  set_malloc_option("MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

const std::vector<std::string>& member_selector_kinds() {
  static const std::vector<std::string> kinds = {
      "MetricsInstance", "LogsInstance", "PodLogs",   "Integration",        "ServiceMonitor",    "PodMonitor",
      "Probe",           "Secret",       "ConfigMap", "MetricsIntegration", "IntegrationMonitor"};
  return kinds;
}

const std::vector<std::string>& watched_kinds() {
  static const std::vector<std::string> kinds = {
      "Namespace",          "Secret",       "ConfigMap",   "GrafanaAgent",
      "MetricsInstance",    "LogsInstance", "PodLogs",     "Integration",
      "ServiceMonitor",     "PodMonitor",   "Probe",       "MetricsIntegration",
      "IntegrationMonitor", "Service",      "StatefulSet", "DaemonSet",
      "Deployment"};
  return kinds;
}

Controller::Controller(caf::actor_system& sys, k8s::Client& client, ControllerOptions opts)
    : sys_(sys), client_(client), opts_(std::move(opts)) {}

Controller::~Controller() {
  stop();
}

void Controller::start() {
  if (started_) return;
  // The journal first: one held by another process (core::JournalLocked)
  // stops the start before any actor or informer runs.
  JournalConfig jc;
  jc.redaction_key = opts_.journal_redaction_key.empty() ? core::random_redaction_key() : opts_.journal_redaction_key;
  jc.sink = open_sink(opts_, jc.redaction_key, jc.first_seq);
  started_ = true;
  WriterConfig wc = opts_.writer;
  RootConfig root_cfg = opts_.root;
  add_metrics_hooks(jc, wc, root_cfg);
  wc.client = &client_;
  if (!wc.log) wc.log = opts_.log;
  jc.log = opts_.log;
  std::shared_ptr<core::LeaseFence> fence;
  if (opts_.leader) {
    wc.leader = false;
    fence = std::make_shared<core::LeaseFence>(opts_.leader->renew_deadline);
    wc.fence = fence;
    fence_ = fence;
  }
  const auto& member_kinds = member_selector_kinds();
  wc.sync_sources = member_kinds.size() + 2;  // members, owned workloads, GrafanaAgent
  writer_ = spawn_writer(sys_, std::move(wc));
  JournalRoutes routes;
  if (opts_.kubelet) start_kubelet(routes, fence);
  if (opts_.monitor_status) start_bindings(routes, fence);
  if (opts_.leader) {
    ElectorConfig ec{*opts_.leader, &client_, writer_, {}, {}, opts_.log, fence};
    if (kubelet_) ec.leader_sinks.push_back(kubelet_);
    if (bindings_) ec.leader_sinks.push_back(caf::actor_cast<leader_sink_actor>(bindings_));
    if (opts_.leader_label) {
      LeaderLabelConfig lc = *opts_.leader_label;
      lc.client = &client_;
      if (!lc.log) lc.log = opts_.log;
      leader_label_ = spawn_leader_label_actor(sys_, std::move(lc));
      ec.leader_sinks.push_back(caf::actor_cast<leader_sink_actor>(leader_label_));
    }
    ec.on_change = [m = opts_.metrics, leading = leading_](bool now) {
      leading->store(now);
      if (m) m->set_leader(now);
    };
    elector_ = spawn_elector(sys_, std::move(ec));
  } else if (opts_.metrics) {
    opts_.metrics->set_leader(true);
  }
  auto add_member_selector = [&](std::set<std::string> kinds) {
    member_selector_actor a = spawn_member_selector(sys_, MemberSelectorConfig{kinds, writer_, opts_.member_grace});
    for (const auto& k : kinds) routes.by_kind[k].push_back(a);
    routes.all.push_back(a);
    member_selectors_.push_back(a);
    return a;
  };
  for (const std::string& kind : member_kinds) root_cfg.selectors.push_back(add_member_selector({kind}));
  add_member_selector({"Service", "StatefulSet", "DaemonSet", "Deployment"});
  root_cfg.writer = writer_;
  root_cfg.bindings = bindings_;
  agent_selector_ = spawn_agent_selector(sys_, AgentSelectorConfig{root_cfg, writer_});
  routes.by_kind["GrafanaAgent"].push_back(agent_selector_);
  routes.all.push_back(agent_selector_);
  jc.include_secrets = opts_.journal_include_secrets;
  jc.tombstone_grace = opts_.member_grace;
  jc.now_ms = wall_ms;
  if (opts_.sd) start_sd(routes);
  journal_ = spawn_journal(sys_, std::move(jc), std::move(routes));
  for (const member_selector_actor& s : member_selectors_) caf::anon_send(s, journal_atom::value, journal_);
  for (const std::string& kind : watched_kinds()) start_informer(kind);
  if (sd_) start_informer("Endpoints");
  if (kubelet_) start_kubelet_informers();
  for (auto& [kind, r] : reflectors_) r->start();
}

void Controller::start_informer(const std::string& kind) {
  const k8s::Resource* res = k8s::resource_for_kind(kind);
  if (!res) throw std::logic_error("no API resource for watched kind " + kind);
  k8s::ReflectorOptions ro = opts_.reflector;
  if (res->namespaced) ro.ns = opts_.watch_namespace;
  if (owned_kind(kind)) ro.label_selector = std::string(model::kManagedByLabel) + "=" + model::kManagedByValue;
  if (kind == "GrafanaAgent") ro.label_selector = opts_.agent_selector;
  if (kind == "Endpoints") ro.label_selector = sd::endpoints_label_selector();
  start_informer(kind, std::move(ro), kind);
}

void Controller::start_informer(const std::string& kind, k8s::ReflectorOptions ro, const std::string& label) {
  const k8s::Resource* res = k8s::resource_for_kind(kind);
  if (!res) throw std::logic_error("no API resource for watched kind " + kind);
  ro.drop_metadata.assign(kUnreadMetadata.begin(), kUnreadMetadata.end());
  journal_actor journal = journal_;
  auto sink = [journal, kind](k8s::ObjectEvent ev) {
    core::ObjectPtr obj = std::move(ev.object);
    // Only addresses and labels matter; whole Nodes (images, conditions,
    // heartbeats) would swell the journal.
    if (kind == "Node" && obj) obj = core::make_object(model::trim_node(*obj));
    caf::anon_send(journal, ingest_atom::value, kind, ev.type, std::move(obj));
  };
  auto progress = progress_;
  {
    std::lock_guard<std::mutex> lock(progress->mu);
    progress->pending[label] = {};
  }
  auto on_synced = [this, journal, progress, label] {
    {
      std::lock_guard<std::mutex> lock(progress->mu);
      progress->pending.erase(label);
    }
    if (++synced_count_ == reflectors_.size()) caf::anon_send(journal, synced_atom::value);
  };
  auto on_error = [log = opts_.log, label, progress, res](const k8s::Result& r) {
    std::string what = "HTTP " + std::to_string(r.status) + " " + r.error;
    core::ListedResource listed{res->group, res->plural};
    // A retry loop (the API server unreachable, a CRD missing) repeats this
    // line; the process log rate-limits identical ones.
    log(core::list_failure_entry(label, listed, r.status, r.error));
    std::lock_guard<std::mutex> lock(progress->mu);
    if (auto it = progress->pending.find(label); it != progress->pending.end())
      it->second = {what, core::list_failure_cause(listed, r.status)};
  };
  reflectors_.emplace_back(label, std::make_unique<k8s::Reflector>(client_, *res, ro, sink, on_synced, on_error));
}

std::vector<Controller::Unsynced> Controller::unsynced() const {
  std::lock_guard<std::mutex> lock(progress_->mu);
  std::vector<Unsynced> out;
  for (const auto& [kind, last] : progress_->pending)
    out.push_back({kind, last.first.empty() ? "no answer yet" : last.first, last.second});
  return out;
}

void Controller::stop() {
  if (!started_) return;
  started_ = false;
  // Before anything else: a Lease answer still in flight may make this
  // replica leader while it stops, and nothing may be written on it.
  if (fence_) fence_->close();
  for (auto& [kind, r] : reflectors_) r->stop();
  release_lease();
  std::vector<caf::actor> all{caf::actor_cast<caf::actor>(elector_),        caf::actor_cast<caf::actor>(journal_),
                              caf::actor_cast<caf::actor>(agent_selector_), caf::actor_cast<caf::actor>(sd_),
                              caf::actor_cast<caf::actor>(kubelet_),        caf::actor_cast<caf::actor>(bindings_),
                              caf::actor_cast<caf::actor>(leader_label_)};
  for (const auto& s : member_selectors_) all.push_back(caf::actor_cast<caf::actor>(s));
  all.push_back(caf::actor_cast<caf::actor>(writer_));
  std::vector<caf::actor> live;
  for (const caf::actor& a : all)
    if (a) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
      live.push_back(a);
    }
  // The actors hold a reference to client_, which the caller may destroy
  // right after stop(); an elector tick handled before its exit message
  // would otherwise call into a dead client (seen as a rare shutdown hang).
  caf::scoped_actor self{sys_};
  self->wait_for(live);
}

void Controller::release_lease() {
  if (!elector_ || !opts_.leader || !opts_.release_lease_on_stop) return;
  // Bounded: a shutdown must stay within the pod's grace period even when
  // the API server does not answer.
  auto wait = std::min<std::chrono::milliseconds>(opts_.leader->renew_deadline, std::chrono::seconds(5));
  caf::scoped_actor self{sys_};
  self->request(elector_, wait, release_atom::value)
      .receive([](bool) {},
               [this](const caf::error&) {
                 opts_.log(model::log_warn("leader-election", "the Lease release did not finish in time")
                               .object("Lease", opts_.leader->ns, opts_.leader->name));
               });
}

void Controller::start_sd(JournalRoutes& routes) {
  SdConfig cfg = *opts_.sd;
  if (!cfg.log) cfg.log = opts_.log;
  if (OperatorMetrics* m = opts_.metrics) {
    auto key = [](const sd::AgentKey& a) { return a.first + "/" + a.second; };
    if (!cfg.on_failure)
      cfg.on_failure = [m, key](const sd::AgentKey& a, const std::string& why) {
        m->count_integrations_sd_failure(key(a), why);
      };
    if (!cfg.on_pods)
      cfg.on_pods = [m, key](const sd::AgentKey& a, std::size_t n) {
        m->set_integrations_sd_pods(key(a), static_cast<double>(n));
      };
    if (!cfg.on_agent_gone)
      cfg.on_agent_gone = [m, key](const sd::AgentKey& a) { m->forget_integrations_sd_agent(key(a)); };
    if (!cfg.on_fanout) cfg.on_fanout = [m](double seconds) { m->observe_integrations_sd_fanout(seconds); };
  }
  std::lock_guard<std::mutex> lock(sd_mu_);  // sd_poll() runs on HTTP threads
  sd_ = spawn_sd_actor(sys_, std::move(cfg));
  // Endpoints only: Namespace events (routes.all) mean nothing to it.
  routes.by_kind["Endpoints"].push_back(sd_);
}

SdPoll Controller::sd_poll(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(sd_mu_);
  if (!sd_) return {};
  return make_sd_poll(sys_, sd_, timeout);
}

void Controller::add_metrics_hooks(JournalConfig& jc, WriterConfig& wc, RootConfig& rc) {
  OperatorMetrics* m = opts_.metrics;
  if (!m) return;
  m->add_controller("grafanaagent");
  jc.on_append = [m](std::size_t bytes) { m->count_journal_event(bytes); };
  auto inner_write = wc.on_write;
  wc.on_write = [m, inner_write](const std::string& kind, const std::string& action, int code) {
    m->count_write(kind, action);
    if (inner_write) inner_write(kind, action, code);
  };
  wc.on_reconcile = [m](core::ReconcileOutcome o, double seconds) {
    using core::ReconcileOutcome;
    ReconcileResult r = o == ReconcileOutcome::success   ? ReconcileResult::success
                        : o == ReconcileOutcome::requeue ? ReconcileResult::requeue
                                                         : ReconcileResult::error;
    m->observe_reconcile("grafanaagent", r, seconds);
  };
  auto depth = std::make_shared<std::atomic<int>>(0);
  rc.on_queued = [m, depth] {
    m->count_queue_add("grafanaagent");
    m->set_queue_depth("grafanaagent", ++*depth);
  };
  rc.on_dequeued = [m, depth](double wait) {
    m->set_queue_depth("grafanaagent", --*depth);
    m->observe_queue_wait("grafanaagent", wait);
  };
  auto inner_render = rc.on_render;
  rc.on_render = [m, inner_render](const RootOutput& out) {
    std::string agent = out.root.first + "/" + out.root.second;
    const core::Effects& fx = out.effects;
    if (!fx.root_present) {
      m->remove_agent(agent);
    } else {
      const core::HierarchyCounts& c = fx.counts;
      for (auto [kind, n] : {std::pair{"MetricsInstance", c.metrics_instances},
                             {"ServiceMonitor", c.service_monitors},
                             {"PodMonitor", c.pod_monitors},
                             {"Probe", c.probes},
                             {"LogsInstance", c.logs_instances},
                             {"PodLogs", c.pod_logs},
                             {"Integration", c.integrations},
                             {"MetricsIntegration", c.metrics_integrations},
                             {"IntegrationMonitor", c.integration_monitors}})
        m->set_hierarchy_members(agent, kind, static_cast<double>(n));
    }
    if (inner_render) inner_render(out);
  };
}

void Controller::start_kubelet(JournalRoutes& routes, std::shared_ptr<core::LeaseFence> fence) {
  KubeletConfig kc;
  kc.client = &client_;
  kc.settings.service = *opts_.kubelet;
  kc.settings.leader = !opts_.leader;
  kc.settings.fence = std::move(fence);
  kc.settings.now_rfc3339 = opts_.writer.now_rfc3339;
  kc.settings.backoff = opts_.writer.backoff;
  kc.log = opts_.log;
  if (OperatorMetrics* m = opts_.metrics) {
    kc.on_write = [m](const std::string& kind, const std::string& action, int) { m->count_write(kind, action); };
    kc.on_nodes = [m](std::size_t addresses, std::size_t skipped) {
      m->set_kubelet_nodes(static_cast<double>(addresses), static_cast<double>(skipped));
    };
  }
  kubelet_ = spawn_kubelet_actor(sys_, std::move(kc));
  for (const char* kind : {"Node", "Service", "Endpoints", "EndpointSlice"}) routes.by_kind[kind].push_back(kubelet_);
  routes.all.push_back(kubelet_);  // for synced_atom
}

// Monitor and GrafanaAgent events from the journal (and its sync), root
// outputs from the roots, leadership from the elector.
void Controller::start_bindings(JournalRoutes& routes, std::shared_ptr<core::LeaseFence> fence) {
  BindingsConfig bc;
  bc.client = &client_;
  bc.settings.leader = !opts_.leader;
  bc.settings.fence = std::move(fence);
  bc.settings.now_rfc3339 = opts_.writer.now_rfc3339;
  bc.settings.backoff = opts_.writer.backoff;
  bc.log = opts_.log;
  if (OperatorMetrics* m = opts_.metrics)
    bc.on_write = [m](const std::string& kind, int) { m->count_write(kind, "status"); };
  bindings_ = spawn_bindings_actor(sys_, std::move(bc));
  for (const std::string& kind : core::binding_kinds()) routes.by_kind[kind].push_back(bindings_);
  routes.by_kind["GrafanaAgent"].push_back(bindings_);
  routes.all.push_back(bindings_);  // for synced_atom
}

// All Nodes; the kubelet objects in the Service's namespace, by our labels
// (an object of that name we did not label is found on create's 409). The
// Service informer of the owned kinds already sees our Service unless
// -namespace leaves its namespace out.
void Controller::start_kubelet_informers() {
  const model::KubeletServiceOptions& ko = *opts_.kubelet;
  start_informer("Node", opts_.reflector, "Node");
  k8s::ReflectorOptions ro = opts_.reflector;
  ro.ns = ko.ns;
  ro.label_selector = model::kubelet_objects_selector();
  start_informer("Endpoints", ro, "Endpoints (kubelet)");
  start_informer("EndpointSlice", ro, "EndpointSlice (kubelet)");
  if (!opts_.watch_namespace.empty() && opts_.watch_namespace != ko.ns)
    start_informer("Service", ro, "Service (kubelet)");
}

std::optional<std::string> Controller::explain(const std::string& ns, const std::string& name) {
  std::optional<std::string> out;
  caf::scoped_actor self{sys_};
  self->request(agent_selector_, std::chrono::seconds(10), explain_atom::value, core::RootKey{ns, name})
      .receive(
          [&](const std::string& json) {
            if (!json.empty()) out = json;
          },
          [](caf::error&) {});
  return out;
}

ControllerStats Controller::stats() {
  ControllerStats out;
  caf::scoped_actor self{sys_};
  auto timeout = std::chrono::seconds(10);
  auto add = [&out](const SelectorStats& s) {
    out.selectors.events += s.events;
    out.selectors.deliveries += s.deliveries;
    out.selectors.examined += s.examined;
  };
  for (const member_selector_actor& sel : member_selectors_)
    self->request(sel, timeout, stats_atom::value).receive(add, [](caf::error&) {});
  self->request(agent_selector_, timeout, stats_atom::value)
      .receive(
          [&](const SelectorStats& s) {
            add(s);
            out.selectors.roots = s.roots;
          },
          [](caf::error&) {});
  self->request(writer_, timeout, stats_atom::value)
      .receive([&](WriterStats s) { out.writer = s; }, [](caf::error&) {});
  self->request(journal_, timeout, stats_atom::value)
      .receive([&](std::uint64_t seq) { out.journal_seq = seq; }, [](caf::error&) {});
  if (kubelet_)
    self->request(kubelet_, timeout, stats_atom::value)
        .receive([&](const KubeletStats& s) { out.kubelet = s; }, [](caf::error&) {});
  if (bindings_)
    self->request(bindings_, timeout, stats_atom::value)
        .receive([&](const BindingsStats& s) { out.bindings = s; }, [](caf::error&) {});
  for (auto& [kind, r] : reflectors_) out.informers.emplace_back(kind, r->stats());
  return out;
}

bool Controller::wait_idle(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + timeout;
  ControllerStats last = stats();
  auto quiet_since = clock::now();
  while (clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ControllerStats s = stats();
    bool same = s.journal_seq == last.journal_seq && s.writer.writes == last.writer.writes &&
                s.writer.plans == last.writer.plans && s.writer.in_flight == 0 && s.writer.retrying == 0 &&
                kubelet_idle(s.kubelet, last.kubelet) && bindings_idle(s.bindings, last.bindings) && synced();
    if (!same) quiet_since = clock::now();
    if (same && clock::now() - quiet_since >= quiet) return true;
    last = s;
  }
  return false;
}

}  // namespace actors
