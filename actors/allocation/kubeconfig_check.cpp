// check_kubeconfig: names the missing piece of a cluster connection before
// the client's own loader would fail with a less specific message.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "actors/allocation/runtime.hpp"
#include "allocation/runtime/config.hpp"
#include "k8s/client/kubeconfig_loader.hpp"
#include "model/parse.hpp"

namespace actors::ta {

namespace {

using allocation::runtime::ConfigError;
using model::Value;

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw ConfigError(field + ": " + problem);
}

std::string string_at(const Value& doc, std::string_view key, const std::string& file) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return "";
  if (!v->is_string()) fail(file + ": " + std::string(key), "must be a string");
  return v->as_string();
}

const Value& named_entry(const Value& doc, std::string_view list, const std::string& name, const std::string& file) {
  const Value* items = doc.find(list);
  if (items && items->is_array()) {
    for (const auto& item : items->as_array()) {
      const Value* n = item.is_object() ? item.find("name") : nullptr;
      const Value* body = item.is_object() ? item.find(list.substr(0, list.size() - 1)) : nullptr;
      if (n && n->is_string() && n->as_string() == name && body && body->is_object()) return *body;
    }
  }
  fail(file + ": " + std::string(list), "no entry named \"" + name + "\"");
}

}  // namespace

std::string check_kubeconfig(const std::string& path, const std::string& sa_dir) {
  if (path.empty()) {
    k8s::LoadEnv env = k8s::LoadEnv::from_process();
    env.sa_dir = sa_dir;
    try {
      return k8s::load_config("", "", env).server;
    } catch (const std::exception& e) {
      fail("--kubeconfig-path", std::string("not set, and ") + e.what());
    }
  }
  std::ifstream in(path);
  if (!in) fail("--kubeconfig-path", "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<model::Document> docs;
  try {
    docs = model::parse_documents(text.str(), path);
  } catch (const std::exception& e) {
    fail("--kubeconfig-path", e.what());
  }
  if (docs.size() != 1 || !docs[0].value.is_object()) fail(path, "must hold one YAML object");
  const Value& doc = docs[0].value;
  const std::string context = string_at(doc, "current-context", path);
  if (context.empty()) fail(path + ": current-context", "is not set");
  const std::string cluster = string_at(named_entry(doc, "contexts", context, path), "cluster", path);
  const std::string server = string_at(named_entry(doc, "clusters", cluster, path), "server", path);
  if (server.empty()) fail(path + ": clusters[" + cluster + "].server", "is not set");
  return server;
}

}  // namespace actors::ta
