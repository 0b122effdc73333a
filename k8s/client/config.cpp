#include "k8s/client/config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/codec.hpp"

namespace k8s {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw ConfigError(file + ": " + what);
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read " + what);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Finds the entry called `name` in a kubeconfig list (clusters, users,
// contexts) and returns its inner map (`cluster`, `user`, `context`).
YAML::Node named(const YAML::Node& root, const std::string& list, const std::string& inner, const std::string& name,
                 const std::string& file) {
  YAML::Node items = root[list];
  if (items && !items.IsSequence()) fail(file, list + " is not a list");
  if (items)
    for (const YAML::Node& item : items)
      // IsScalar first: as<std::string>() on a list or map throws yaml-cpp's
      // TypedBadConversion, not a ConfigError naming the file.
      if (item.IsMap() && item["name"] && item["name"].IsScalar() && item["name"].as<std::string>() == name) {
        YAML::Node body = item[inner];
        if (!body || !body.IsMap()) fail(file, list + "[" + name + "]." + inner + " is missing or not a map");
        return body;
      }
  fail(file, list + ": no entry named \"" + name + "\"");
}

std::string scalar(const YAML::Node& map, const std::string& key, const std::string& where, const std::string& file) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return {};
  if (!n.IsScalar()) fail(file, where + "." + key + " is not a string");
  return n.as<std::string>();
}

std::string resolve(const std::string& path, const fs::path& dir) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (dir / path).lexically_normal().string();
}

std::string decode(const std::string& text, const std::string& field, const std::string& file) {
  if (text.empty()) return {};
  auto bytes = model::base64_decode(text);
  if (!bytes) fail(file, field + " is not valid base64");
  return *bytes;
}

void read_cluster(const YAML::Node& c, const std::string& where, const std::string& file, const fs::path& dir,
                  ClusterConfig& out) {
  out.server = scalar(c, "server", where, file);
  if (out.server.empty()) fail(file, where + ".server is missing");
  out.ca_file = resolve(scalar(c, "certificate-authority", where, file), dir);
  out.ca_data =
      decode(scalar(c, "certificate-authority-data", where, file), where + ".certificate-authority-data", file);
  if (YAML::Node insecure = c["insecure-skip-tls-verify"]; insecure && !insecure.IsNull()) {
    try {
      out.insecure_skip_tls_verify = insecure.as<bool>();
    } catch (const YAML::Exception&) {
      fail(file, where + ".insecure-skip-tls-verify is not a boolean");
    }
  }
}

void read_user(const YAML::Node& u, const std::string& where, const std::string& file, const fs::path& dir,
               ClusterConfig& out) {
  out.token = scalar(u, "token", where, file);
  out.token_file = resolve(scalar(u, "tokenFile", where, file), dir);
  out.client_cert_file = resolve(scalar(u, "client-certificate", where, file), dir);
  out.client_cert_data =
      decode(scalar(u, "client-certificate-data", where, file), where + ".client-certificate-data", file);
  out.client_key_file = resolve(scalar(u, "client-key", where, file), dir);
  out.client_key_data = decode(scalar(u, "client-key-data", where, file), where + ".client-key-data", file);
  for (const char* unsupported : {"exec", "auth-provider", "username"})
    if (u[unsupported]) fail(file, where + "." + unsupported + " is not supported");
}

}  // namespace

ClusterConfig from_kubeconfig(const std::string& path, const std::string& context) {
  return from_kubeconfig_text(read_file(path, "kubeconfig"), path, context);
}

ClusterConfig from_kubeconfig_text(const std::string& text, const std::string& path, const std::string& context) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(path, std::string("not YAML: ") + e.what());
  }
  if (!root.IsMap()) fail(path, "not a kubeconfig (expected a map)");
  std::string name = context.empty() ? scalar(root, "current-context", "kubeconfig", path) : context;
  if (name.empty()) fail(path, "current-context is not set and no context was given");
  YAML::Node ctx = named(root, "contexts", "context", name, path);
  std::string where = "contexts[" + name + "].context";
  std::string cluster = scalar(ctx, "cluster", where, path);
  if (cluster.empty()) fail(path, where + ".cluster is missing");
  std::string user = scalar(ctx, "user", where, path);
  fs::path dir = fs::absolute(fs::path(path)).parent_path();
  ClusterConfig out;
  read_cluster(named(root, "clusters", "cluster", cluster, path), "clusters[" + cluster + "].cluster", path, dir, out);
  if (!user.empty()) read_user(named(root, "users", "user", user, path), "users[" + user + "].user", path, dir, out);
  return out;
}

ClusterConfig in_cluster(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    throw ConfigError("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  ClusterConfig out;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  out.server = "https://" + h + ":" + port;
  fs::path dir(sa_dir);
  out.token_file = (dir / "token").string();
  std::error_code ec;
  if (!fs::exists(out.token_file, ec)) throw ConfigError(out.token_file + ": service-account token is missing");
  out.ca_file = (dir / "ca.crt").string();
  if (!fs::exists(out.ca_file, ec)) throw ConfigError(out.ca_file + ": service-account CA certificate is missing");
  return out;
}

}  // namespace k8s
