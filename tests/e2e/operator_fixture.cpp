#include "operator_fixture.hpp"

#include <mutex>
#include <thread>

#include "actors/core/status.hpp"
#include "actors/core/writer_plan.hpp"
#include "k8s/client/config.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/process.hpp"
#include "model/log_format.hpp"
#include "model/parse.hpp"

namespace e2e {

std::string source_dir() {
  return AO_SOURCE_DIR;
}

struct OperatorFixture::Runtime {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<k8s::Transport> transport;
  std::shared_ptr<k8s::Transport> pods;  // the integrations SD aggregator's
  std::unique_ptr<k8s::Client> client;
  mutable std::mutex mu;
  std::vector<std::string> log;
};

OperatorFixture::OperatorFixture(FixtureOptions o) : opts_(std::move(o)), cluster_(clock_) {
  std::vector<std::string> paths{source_dir() + "/deploy/crds", source_dir() + "/deploy/prometheus-operator-crds"};
  if (opts_.load_examples) paths.push_back(source_dir() + "/deploy/examples");
  k8s::sim::load_manifests(cluster_, paths);
  server_ = std::make_unique<k8s::sim::Server>(cluster_, opts_.server);
  server_->start();
  if (opts_.start_operator) start_operator();
}

OperatorFixture::~OperatorFixture() {
  stop_operator();
  server_->stop();
}

void OperatorFixture::start_operator(std::optional<actors::ControllerOptions> o) {
  stop_operator();
  rt_ = std::make_unique<Runtime>();
  rt_->cfg.set("scheduler.max-threads", 2);
  actors::tune_actor_system(rt_->cfg);
  rt_->sys = std::make_unique<caf::actor_system>(rt_->cfg);
  k8s::ClusterConfig cc;
  cc.server = server_->url();
  if (const auto* tls = server_->tls()) cc.ca_data = tls->ca_cert_pem;
  cc.token = opts_.server.token;
  rt_->transport = k8s::make_curl_transport(cc);
  rt_->client = std::make_unique<k8s::Client>(rt_->transport);
  actors::ControllerOptions co = o.value_or(actors::ControllerOptions{});
  if (!o) {
    co.journal_path = opts_.journal_path;
    co.journal_include_secrets = opts_.journal_include_secrets;
    co.root.debounce = std::chrono::milliseconds(20);
    // Informers recover quickly once a test stops injecting faults.
    co.reflector.backoff = k8s::Backoff{std::chrono::milliseconds(50), std::chrono::milliseconds(1000)};
    co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
    co.kubelet = opts_.kubelet;
    co.root.on_render = opts_.on_render;
    co.monitor_status = opts_.monitor_status;
    if (opts_.integrations_sd) {
      rt_->pods = k8s::make_curl_transport(k8s::ClusterConfig{});
      co.sd = actors::SdConfig{rt_->pods, std::chrono::milliseconds(2000), std::chrono::milliseconds(0)};
    }
  }
  Runtime* rt = rt_.get();
  co.log = [rt](const model::LogEntry& e) {
    std::lock_guard<std::mutex> lock(rt->mu);
    rt->log.push_back(model::log_text(e));
  };
  controller_ = std::make_unique<actors::Controller>(*rt_->sys, *rt_->client, std::move(co));
  controller_->start();
}

void OperatorFixture::stop_operator() {
  if (controller_) controller_->stop();
  controller_.reset();
  if (rt_) {
    rt_->client.reset();
    rt_->transport.reset();
    rt_->pods.reset();
    rt_->sys.reset();
  }
}

OperatorInstance::OperatorInstance(const std::string& url, actors::ControllerOptions o) {
  cfg_.set("scheduler.max-threads", 2);
  actors::tune_actor_system(cfg_);
  sys_ = std::make_unique<caf::actor_system>(cfg_);
  k8s::ClusterConfig cc;
  cc.server = url;
  client_ = std::make_unique<k8s::Client>(k8s::make_curl_transport(cc));
  controller_ = std::make_unique<actors::Controller>(*sys_, *client_, std::move(o));
  controller_->start();
}

OperatorInstance::~OperatorInstance() {
  controller_->stop();
  controller_.reset();
  client_.reset();
  sys_.reset();
}

bool OperatorFixture::wait_idle(std::chrono::milliseconds timeout) {
  return controller_ && controller_->wait_idle(timeout, std::chrono::milliseconds(300));
}

bool OperatorFixture::wait_converged(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (wait_idle(timeout) && divergence().empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

std::vector<std::string> OperatorFixture::log() const {
  if (!rt_) return {};
  std::lock_guard<std::mutex> lock(rt_->mu);
  return rt_->log;
}

k8s::sim::RunResult OperatorFixture::kubectl(std::vector<std::string> args) {
  const char* bin = std::getenv("KUBECTL");
  std::vector<std::string> argv{bin ? bin : "kubectl", "--kubeconfig=/dev/null", "--server=" + server_->url(),
                                "--cache-dir=/tmp/ao-e2e-kubectl-cache"};
  argv.insert(argv.end(), args.begin(), args.end());
  return k8s::sim::run(argv);
}

void OperatorFixture::apply_yaml(const std::string& yaml) {
  for (auto& doc : model::parse_documents(yaml, "test")) cluster_.apply_manifest(std::move(doc.value));
}

k8s::sim::ResourceType OperatorFixture::type(const std::string& kind) {
  for (auto& t : cluster_.types_snapshot())
    if (t.kind == kind) return t;
  throw std::runtime_error("simcluster has no kind " + kind);
}

std::optional<model::Value> OperatorFixture::get(const std::string& kind, const std::string& ns,
                                                 const std::string& name) {
  try {
    auto snap = cluster_.store().get(type(kind), ns, name);
    if (snap) return snap->value;
  } catch (const std::exception&) {  // NotFound
  }
  return std::nullopt;
}

std::vector<model::Value> OperatorFixture::list(const std::string& kind, const std::string& ns) {
  std::vector<model::Value> out;
  for (const auto& s : cluster_.store().list(type(kind), ns, {}).items) out.push_back(s->value);
  return out;
}

void OperatorFixture::remove(const std::string& kind, const std::string& ns, const std::string& name) {
  cluster_.remove(type(kind), ns, name, {});
}

std::string annotation(const model::Value& obj, const std::string& key) {
  const model::Value* md = obj.find("metadata");
  const model::Value* an = md ? md->find("annotations") : nullptr;
  const model::Value* v = an ? an->find(key) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

const model::Value* condition(const model::Value& agent, const std::string& type) {
  const model::Value* st = agent.find("status");
  return st ? actors::core::find_condition(*st, type) : nullptr;
}

}  // namespace e2e
