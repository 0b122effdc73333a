#include "rbac_runner.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "golden_util.hpp"
#include "k8s/sim/loader.hpp"
#include "model/parse.hpp"

namespace testutil {

using model::Value;

namespace {

std::vector<std::string> strings_at(const Value& v, const char* key) {
  std::vector<std::string> out;
  if (const Value* list = v.find(key); list && list->is_array())
    for (const Value& s : list->as_array()) out.push_back(s.as_string());
  return out;
}

bool is_role(const Value& doc) {
  const Value* kind = doc.find("kind");
  return kind && (kind->as_string() == "Role" || kind->as_string() == "ClusterRole");
}

std::string role_id(const Value& doc) {
  const Value& md = *doc.find("metadata");
  const Value* ns = md.find("namespace");
  return doc.find("kind")->as_string() + "/" + (ns ? ns->as_string() : "") + "/" + md.find("name")->as_string();
}

}  // namespace

std::string Grant::describe() const {
  return role + ": " + (group.empty() ? "core" : group) + " " + resource + " " + verb;
}

std::string Grant::denial() const {
  return "cannot " + verb + " resource \"" + resource + "\" in API group \"" + group + "\"";
}

std::vector<Value> read_manifest(const std::string& path) {
  std::vector<Value> out;
  for (auto& doc : model::parse_documents(read_text(path), path)) out.push_back(std::move(doc.value));
  return out;
}

std::vector<Grant> grants_of(const std::vector<Value>& docs) {
  std::vector<Grant> out;
  for (const Value& doc : docs) {
    if (!is_role(doc)) continue;
    for (const Value& rule : doc.find("rules")->as_array())
      for (const auto& g : strings_at(rule, "apiGroups"))
        for (const auto& r : strings_at(rule, "resources"))
          for (const auto& v : strings_at(rule, "verbs")) out.push_back({g, r, v, role_id(doc)});
  }
  return out;
}

std::vector<Value> without(std::vector<Value> docs, const Grant& g) {
  for (Value& doc : docs) {
    if (!is_role(doc) || role_id(doc) != g.role) continue;
    Value rules = Value::array();
    for (const Grant& other : grants_of({doc}))
      if (std::tie(other.group, other.resource, other.verb) != std::tie(g.group, g.resource, g.verb))
        rules.push(Value::obj({{"apiGroups", Value::arr({other.group})},
                               {"resources", Value::arr({other.resource})},
                               {"verbs", Value::arr({other.verb})}}));
    doc.set("rules", std::move(rules));
  }
  return docs;
}

SimRbac::SimRbac() : cluster_(clock_) {
  char tmpl[] = "/tmp/ao-rbac-XXXXXX";
  dir_ = mkdtemp(tmpl);
  k8s::sim::ServerOptions o;
  o.token = "admin";
  o.authorization = k8s::sim::AuthorizationMode::rbac;
  o.on_denied = [this](const std::string& m) {
    std::lock_guard lock(mutex_);
    denials_.push_back(m);
  };
  server_ = std::make_unique<k8s::sim::Server>(cluster_, o);
  server_->start();
}

SimRbac::~SimRbac() {
  server_->stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void SimRbac::apply(Value doc) {
  cluster_.apply_manifest(std::move(doc));
}

void SimRbac::apply_yaml(const std::string& yaml) {
  for (auto& doc : model::parse_documents(yaml, "test")) apply(std::move(doc.value));
}

void SimRbac::load(const std::vector<std::string>& paths) {
  k8s::sim::load_manifests(cluster_, paths);
}

std::string SimRbac::kubeconfig_for(const std::string& ns, const std::string& name) {
  std::string path = file(ns + "-" + name + ".kubeconfig");
  std::ofstream(path) << server_->service_account_kubeconfig(ns, name);
  return path;
}

std::string SimRbac::token_for(const std::string& ns, const std::string& name, const std::string& audience) {
  return server_->mint_token(ns, name, std::chrono::hours(1), {audience});
}

std::vector<std::string> SimRbac::denials() const {
  std::lock_guard lock(mutex_);
  return denials_;
}

bool SimRbac::denied(const std::string& text) const {
  std::lock_guard lock(mutex_);
  for (const auto& d : denials_)
    if (d.find(text) != std::string::npos) return true;
  return false;
}

std::shared_ptr<const Value> SimRbac::get(const std::string& group, const std::string& plural, const std::string& ns,
                                          const std::string& name) {
  for (const auto& t : cluster_.types_snapshot()) {
    if (t.group != group || t.plural != plural) continue;
    try {
      auto snap = cluster_.store().get(t, ns, name);
      return std::shared_ptr<const Value>(snap, &snap->value);
    } catch (const std::exception&) {
      return nullptr;
    }
  }
  return nullptr;
}

std::unique_ptr<Child> spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<std::string> sh = {"sh", "-c", "exec \"$0\" \"$@\" 2>>'" + log + "'"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  return std::make_unique<Child>(sh);
}

bool poll_until(const std::function<bool()>& done, const std::function<bool()>& give_up,
                std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    if (give_up && give_up()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

void run_parallel(std::size_t n, std::size_t workers, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) job(i);
    });
  for (auto& t : threads) t.join();
}

}  // namespace testutil
