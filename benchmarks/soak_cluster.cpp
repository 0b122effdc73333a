#include "soak_cluster.hpp"

#include <signal.h>

#include <httplib.h>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "k8s/client/resources.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace soak {

namespace {

const std::string kSource = AO_SOURCE_DIR;

bool retryable(int status) {
  return status == 0 || status == 429 || status >= 500;
}

}  // namespace

std::string bin_dir() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(AO_BIN_DIR) : self.parent_path().string();
}

SimProcess::SimProcess(const std::string& dir, const std::vector<std::string>& replicas)
    : dir_(dir), admin_(dir + "/admin.kubeconfig") {
  std::vector<std::string> argv = {bin_dir() + "/simcluster",
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--kubeconfig-out",
                                   admin_,
                                   "--authorization",
                                   "rbac",
                                   "--audit-log-path",
                                   audit_log(),
                                   "--crds",
                                   kSource + "/deploy/crds",
                                   kSource + "/deploy/prometheus-operator-crds",
                                   "--load",
                                   kSource + "/deploy/operator/00-namespace.yaml",
                                   kSource + "/deploy/operator/10-rbac.yaml",
                                   kSource + "/deploy/examples",
                                   "--service-account-kubeconfig"};
  for (const auto& r : replicas) argv.push_back("agent-operator/agent-operator=" + replica_kubeconfig(r));
  child_ = std::make_unique<k8s::sim::Child>(argv);
  if (!child_->read_until([](const std::string& out) { return out.find("listening on") != std::string::npos; },
                          std::chrono::seconds(60)))
    throw std::runtime_error("simcluster did not start");
  cc_ = k8s::from_kubeconfig(admin_);
  auto colon = cc_.server.rfind(':');
  host_ = cc_.server.substr(7, colon - 7);  // "http://"
  port_ = std::stoi(cc_.server.substr(colon + 1));
}

SimProcess::~SimProcess() = default;

std::string SimProcess::replica_kubeconfig(const std::string& replica) const {
  return dir_ + "/" + replica + ".kubeconfig";
}

HttpAnswer SimProcess::call(const std::string& method, const std::string& path, const std::string& body,
                            const std::string& content_type) {
  httplib::Client cli(host_, port_);
  cli.set_read_timeout(30, 0);
  httplib::Headers headers = {{"Authorization", "Bearer " + cc_.token}, {"User-Agent", "chaos-soak"}};
  auto deadline = Clock::now() + std::chrono::seconds(120);
  for (int attempt = 0;; ++attempt) {
    httplib::Result res = method == "GET"     ? cli.Get(path, headers)
                          : method == "POST"  ? cli.Post(path, headers, body, content_type)
                          : method == "PATCH" ? cli.Patch(path, headers, body, content_type)
                          : method == "PUT"   ? cli.Put(path, headers, body, content_type)
                                              : cli.Delete(path, headers);
    HttpAnswer a{res ? res->status : 0, res ? res->body : ""};
    // Injected faults answer before the request is handled: a retry
    // cannot apply an edit twice.
    if (!retryable(a.status) || Clock::now() > deadline) return a;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50 * (attempt + 1), 500)));
  }
}

std::vector<model::Value> SimProcess::list(const std::string& kind) {
  const k8s::Resource* r = k8s::resource_for_kind(kind);
  if (!r) throw std::runtime_error("no resource for kind " + kind);
  HttpAnswer a = call("GET", k8s::resource_path(*r, ""));
  if (a.status != 200) throw std::runtime_error("list " + kind + ": HTTP " + std::to_string(a.status));
  std::vector<model::Value> out;
  model::Value list = model::parse_json(a.body, kind);
  for (auto& item : list.find("items")->as_array()) {
    if (!item.find("kind")) item.set("kind", kind);
    if (!item.find("apiVersion")) item.set("apiVersion", r->api_version());
    out.push_back(std::move(item));
  }
  return out;
}

std::optional<model::Value> SimProcess::get(const std::string& kind, const std::string& ns, const std::string& name) {
  HttpAnswer a = call("GET", k8s::resource_path(*k8s::resource_for_kind(kind), ns, name));
  if (a.status == 404) return std::nullopt;
  if (a.status != 200) throw std::runtime_error("get " + kind + " " + name + ": HTTP " + std::to_string(a.status));
  return model::parse_json(a.body, kind);
}

void SimProcess::set_faults(const k8s::sim::FaultConfig& faults) {
  call("POST", "/sim/faults", model::to_json(k8s::sim::fault_config_to_json(faults)));
}

void SimProcess::drop_watches() {
  call("POST", "/sim/faults/drop-watches");
}

void SimProcess::compact() {
  call("POST", "/sim/faults/compact");
}

Replica::Replica(std::string name, std::string kubeconfig, std::string dir, std::vector<std::string> extra_flags)
    : name_(std::move(name)),
      kubeconfig_(std::move(kubeconfig)),
      dir_(std::move(dir)),
      flags_(std::move(extra_flags)) {}

Replica::~Replica() {
  if (child_) pause(false);  // a stopped process would not see SIGTERM
}

void Replica::start() {
  // sh only redirects and sets POD_NAME (the Lease identity); exec keeps the pid.
  std::string cmd = "exec env POD_NAME=" + name_ + " " + bin_dir() + "/agent-operator run --kubeconfig " + kubeconfig_ +
                    " --listen=0 --journal " + journal() + " --leader-elect --leader-election-namespace agent-operator";
  for (const auto& f : flags_) cmd += " " + f;
  cmd += " >>" + log() + " 2>&1";
  child_ = std::make_unique<k8s::sim::Child>(std::vector<std::string>{"sh", "-c", cmd});
  started_ = Clock::now();
}

void Replica::kill9() {
  if (!child_) return;
  ::kill(child_->pid(), SIGKILL);
  child_.reset();  // reaps it
}

int Replica::terminate() {
  if (!child_) return -1;
  pause(false);
  int code = child_->terminate();
  child_.reset();
  return code;
}

void Replica::request_stop() {
  if (!child_) return;
  pause(false);
  ::kill(child_->pid(), SIGTERM);
}

void Replica::pause(bool stop) {
  if (child_) ::kill(child_->pid(), stop ? SIGSTOP : SIGCONT);
}

std::optional<ProcSample> Replica::sample() const {
  if (!child_) return std::nullopt;
  std::string proc = "/proc/" + std::to_string(child_->pid());
  ProcSample s{Clock::now()};
  std::ifstream status(proc + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::stol(line.substr(6));
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(proc + "/fd", ec); !ec && it != decltype(it)(); it.increment(ec))
    ++s.fds;
  if (s.rss_kib == 0) return std::nullopt;
  return s;
}

std::string lease_holder(SimProcess& sim) {
  auto lease = sim.get("Lease", "agent-operator", "agent-operator-leader");
  const model::Value* spec = lease ? lease->find("spec") : nullptr;
  const model::Value* h = spec ? spec->find("holderIdentity") : nullptr;
  return h && h->is_string() ? h->as_string() : "";
}

bool wait_leader(SimProcess& sim, std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (lease_holder(sim).empty() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return !lease_holder(sim).empty();
}

std::vector<std::string> replica_flags() {
  return {"--lease-duration", std::to_string(kLeaseDuration.count()) + "s", "--renew-deadline", "2s", "--retry-period",
          "250ms", "--debounce", "50ms",
          // The replay check compares config hashes, which cover Secret values.
          "--journal-secrets", "include", "--secret-grace-period", "2s"};
}

}  // namespace soak
