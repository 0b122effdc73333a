// TargetAllocator: the allocator's actors, server, sources and elector.
#include "actors/allocation/runtime.hpp"

#include <chrono>
#include <cstdlib>
#include <future>
#include <utility>

#include "actors/allocation/allocation_actor.hpp"
#include "actors/allocation/file_watch.hpp"
#include "actors/allocation/sources_actor.hpp"
#include "actors/controller.hpp"
#include "actors/elector_actor.hpp"
#include "allocation/runtime/config.hpp"
#include "k8s/client/client.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/client/kubeconfig_loader.hpp"

namespace actors::ta {

namespace {

using allocation::runtime::ConfigError;

// Upstream's order: the flag, then the config key, then $OTELCOL_NAMESPACE.
std::string collector_namespace(const RuntimeOptions& o, const allocation::runtime::Config& config) {
  if (!o.collector_namespace.empty()) return o.collector_namespace;
  if (!config.collector_namespace.empty()) return config.collector_namespace;
  const char* env = std::getenv("OTELCOL_NAMESPACE");
  return env && *env ? env : "default";
}

// --kubeconfig-path, or else what k8s::load_config finds.
k8s::ClusterConfig cluster_config(const std::string& kubeconfig_path, const std::string& field) {
  try {
    check_kubeconfig(kubeconfig_path);  // names the missing piece
    // The operator's loader: $KUBECONFIG, in-cluster, ~/.kube/config, exec plugins.
    k8s::ClusterConfig c = k8s::load_config(kubeconfig_path, "");
    if (c.exec) c.exec->get();  // a broken plugin fails start-up, naming the user and command
    return c;
  } catch (const std::exception& e) {
    throw ConfigError(field + " needs the Kubernetes API: " + e.what());
  }
}

constexpr auto kFirstAllocation = std::chrono::seconds(60);

}  // namespace

struct TargetAllocator::Impl {
  RuntimeOptions options;
  std::shared_ptr<const allocation::runtime::Config> config;  // parsed once, by the constructor
  std::string collector_ns;
  std::optional<k8s::ClusterConfig> cluster;
  std::unique_ptr<k8s::Client> client, elector_client;  // outlive the actors
  allocation::AllocationServer server;
  std::promise<void> first_publish;
  bool published = false, started = false, stopped = false;
  bool initial_config = true;  // the allocation actor's next config result is the start-up one
  caf::actor_system_config caf_config;
  std::unique_ptr<caf::actor_system> sys;  // destroyed (and joined) before the clients and the server
  AllocationPipeline pipeline;
  sources_actor sources;
  elector_actor elector;
  file_watch_actor config_watch;

  explicit Impl(RuntimeOptions o, allocation::ServerOptions server_options)
      : options(std::move(o)), server(std::move(server_options)) {}

  void log(const model::LogEntry& e) const { options.log(e); }
  AllocationHooks hooks();
  void start_elector();
  void start_config_watch();
  void on_config_file(const FileRead& file);
};

AllocationHooks TargetAllocator::Impl::hooks() {
  AllocationHooks h;
  h.publish = [this](const allocation::runtime::State& st, std::uint64_t, const std::string&) {
    server.publish(st.allocator(), st.scrape_configs());
    server.metrics().set_invalid_targets(st.invalid_targets());
    if (!published) {
      published = true;
      first_publish.set_value();
    }
  };
  h.sources = [this](const allocation::runtime::State& st) { send_wanted_sources(sources, st); };
  h.log = options.log;
  h.allocated = [this](const char* method, std::string_view strategy, double seconds) {
    server.metrics().observe_time_to_allocate(method, strategy, seconds);
  };
  h.discovery_event = [this](const std::string& name) { server.metrics().count_event(name); };
  h.config = [this](bool applied, std::int64_t time_ms) {
    if (!std::exchange(initial_config, false)) server.metrics().record_config_reload(applied, time_ms / 1000.0);
  };
  h.fatal = [this](const model::LogEntry& e) {
    log(e);
    std::_Exit(1);
  };
  return h;
}

TargetAllocator::TargetAllocator(RuntimeOptions o) {
  auto config = allocation::runtime::load_config(o.config_text, o.config_path);
  allocation::make_strategy(config.strategy);  // validate before serving
  std::vector<std::string> needs_api = config.kubernetes_fields;
  if (o.prometheus_cr_watcher) needs_api.push_back("--enable-prometheus-cr-watcher");
  if (o.leader_elect) needs_api.push_back("--leader-elect");
  allocation::ServerOptions server_options = o.server;
  server_options.require_leadership = o.leader_elect;
  impl_ = std::make_unique<Impl>(std::move(o), std::move(server_options));
  impl_->collector_ns = collector_namespace(impl_->options, config);
  if (!needs_api.empty()) impl_->cluster = cluster_config(impl_->options.kubeconfig_path, needs_api.front());
  impl_->config = std::make_shared<const allocation::runtime::Config>(std::move(config));
}

TargetAllocator::~TargetAllocator() {
  stop();
}

void TargetAllocator::start() {
  Impl& im = *impl_;
  if (im.started) return;
  im.started = true;
  // Bind first: an unusable address fails before any source starts polling,
  // and /livez answers (and /readyz says 503) while the first allocation runs.
  im.server.start();
  tune_actor_system(im.caf_config);
  set_operator_threads(im.caf_config);  // as agent-operator run: CAF's default of 4+ overcommits small nodes
  im.sys = std::make_unique<caf::actor_system>(im.caf_config);
  if (im.cluster)
    im.client = std::make_unique<k8s::Client>(
        k8s::make_curl_transport(*im.cluster, {.user_agent = "agent-operator-target-allocator"}));
  im.pipeline =
      spawn_allocation_pipeline(*im.sys, im.hooks(), redacting_journal(im.options.journal_path, im.options.log));
  im.sources = spawn_sources(*im.sys, {im.pipeline.journal, im.client.get(), im.options.log});
  auto config = std::make_shared<allocation::runtime::Input>();
  config->type = allocation::runtime::InputType::config;
  config->config = {im.options.config_text, im.options.config_path, im.options.prometheus_cr_watcher, im.collector_ns,
                    std::exchange(im.config, nullptr)};
  config->config.kubernetes = im.cluster.has_value();
  caf::anon_send(im.pipeline.journal, input_atom::value, InputPtr(std::move(config)));
  if (im.first_publish.get_future().wait_for(kFirstAllocation) != std::future_status::ready)
    throw std::runtime_error("no allocation within 60 s of start");
  im.start_config_watch();
  im.start_elector();
}

void TargetAllocator::reload() {
  Impl& im = *impl_;
  if (im.config_watch) caf::anon_send(im.config_watch, reload_atom::value);
}

// The config file as read at start is the baseline: only a change reloads.
void TargetAllocator::Impl::start_config_watch() {
  if (options.config_path.empty()) return;  // tests that pass the text only
  FileWatchConfig fw;
  fw.patterns = {options.config_path};
  fw.initial = FileSnapshot{{options.config_path, options.config_text, ""}};
  fw.interval = options.config_reload_interval;
  fw.on_change = [this](const FileSnapshot& files) { on_config_file(files.front()); };
  fw.on_unchanged = [this] {
    log(model::log_info("config", "unchanged; nothing to reload").with("file", options.config_path));
  };
  config_watch = spawn_file_watch(*sys, std::move(fw));
}

// On the watch's thread: journal the new text as a config input. The
// allocation actor applies or rejects it; an unreadable file is rejected
// here (nothing to journal).
void TargetAllocator::Impl::on_config_file(const FileRead& file) {
  if (!file.error.empty()) {
    log(model::log_error("config", "cannot read the config; the previous config keeps serving")
            .with("file", file.path)
            .with("error", file.error));
    server.metrics().record_config_reload(false, 0);
    return;
  }
  auto in = std::make_shared<allocation::runtime::Input>();
  in->type = allocation::runtime::InputType::config;
  auto& c = in->config;
  c = {file.text, file.path, options.prometheus_cr_watcher, collector_ns, nullptr};
  c.kubernetes = cluster.has_value();
  try {
    c.parsed = std::make_shared<const allocation::runtime::Config>(allocation::runtime::load_config(c.text, c.path));
    c.collector_namespace = collector_namespace(options, *c.parsed);
  } catch (const std::exception&) {
    // The allocation actor parses it again and logs why it is rejected.
  }
  log(model::log_info("config", "changed; reloading").with("file", file.path));
  caf::anon_send(pipeline.journal, input_atom::value, InputPtr(std::move(in)));
}

// --leader-elect: the operator's elector actor on its own client, flipping
// the server's readiness. The Lease lives in --leader-elect-namespace, else
// the collector namespace.
void TargetAllocator::Impl::start_elector() {
  if (!options.leader_elect || !cluster) return;
  ElectorConfig ec;
  ec.leader = options.lease;
  if (ec.leader.ns.empty()) ec.leader.ns = collector_ns;
  // The elector retries every retry period itself, and an answer later than
  // the renew deadline is worthless; both keep shutdown quick.
  k8s::ClientOptions co;
  co.timeout = ec.leader.renew_deadline;
  co.max_retries = 0;
  co.user_agent = co.field_manager = "target-allocator";
  elector_client = std::make_unique<k8s::Client>(k8s::make_curl_transport(*cluster), co);
  ec.client = elector_client.get();
  ec.on_change = [this](bool leading) { server.set_leading(leading); };
  ec.log = options.log;
  elector = spawn_elector(*sys, std::move(ec));
}

void TargetAllocator::stop() {
  Impl& im = *impl_;
  if (!im.started || im.stopped) return;
  im.stopped = true;
  if (!im.sys) return im.server.stop();  // the bind failed
  if (im.elector) {
    caf::scoped_actor self{*im.sys};
    // The standby takes over on its next round instead of waiting out the lease.
    self->request(im.elector, im.options.lease.renew_deadline, release_atom::value)
        .receive([](bool) {}, [](caf::error&) {});
    self->send_exit(im.elector, caf::exit_reason::user_shutdown);
  }
  if (im.config_watch) caf::anon_send_exit(im.config_watch, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(im.sources, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(im.pipeline.journal, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(im.pipeline.allocator, caf::exit_reason::user_shutdown);
  im.sys->await_all_actors_done();
  im.server.stop();
}

int TargetAllocator::port() const {
  return impl_->server.port();
}

int TargetAllocator::https_port() const {
  return impl_->server.https_port();
}

allocation::AllocationServer& TargetAllocator::server() {
  return impl_->server;
}

std::pair<std::uint64_t, allocation::runtime::Assignment> TargetAllocator::assignment() {
  Impl& im = *impl_;
  std::pair<std::uint64_t, allocation::runtime::Assignment> out;
  caf::scoped_actor self{*im.sys};
  self->request(im.pipeline.allocator, std::chrono::seconds(30), assignment_atom::value)
      .receive(
          [&](std::uint64_t seq, const AssignmentPtr& a) {
            out = {seq, *a};
          },
          [](caf::error&) { throw std::runtime_error("the allocation actor did not answer"); });
  return out;
}

}  // namespace actors::ta
