#include "k8s/client/config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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
  for (const char* unsupported : {"auth-provider", "username"})
    if (u[unsupported]) fail(file, where + "." + unsupported + " is not supported");
}

std::vector<std::string> strings(const YAML::Node& n, const std::string& where, const std::string& file) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) fail(file, where + " is not a list");
  for (const YAML::Node& item : n) {
    if (!item.IsScalar()) fail(file, where + " holds a non-string");
    out.push_back(item.as<std::string>());
  }
  return out;
}

// The exec stanza, checked as client-go checks it; the cluster fields go to
// the plugin with provideClusterInfo.
std::shared_ptr<ExecCredentialSource> read_exec(const YAML::Node& e, const std::string& user, const std::string& file,
                                                const fs::path& dir, const ClusterConfig& cluster) {
  std::string where = "users[" + user + "].user.exec";
  if (!e.IsMap()) fail(file, where + " is not a map");
  if (!cluster.token.empty() || !cluster.token_file.empty())
    fail(file, "users[" + user + "].user sets both a token and exec; keep one");
  ExecConfig x;
  x.user = user;
  x.command = scalar(e, "command", where, file);
  if (x.command.empty()) fail(file, where + ".command is missing");
  // client-go resolves only commands with a path separator; bare names are looked up on PATH.
  if (x.command.find('/') != std::string::npos) x.command = resolve(x.command, dir);
  x.args = strings(e["args"], where + ".args", file);
  if (YAML::Node env = e["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) fail(file, where + ".env is not a list");
    for (const YAML::Node& item : env) {
      std::string name = item.IsMap() ? scalar(item, "name", where + ".env[]", file) : "";
      if (name.empty()) fail(file, where + ".env[] needs a name");
      x.env.emplace_back(name, scalar(item, "value", where + ".env[]", file));
    }
  }
  x.api_version = scalar(e, "apiVersion", where, file);
  if (x.api_version != "client.authentication.k8s.io/v1" && x.api_version != "client.authentication.k8s.io/v1beta1")
    fail(file, where + ".apiVersion \"" + x.api_version +
                   "\" is not client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  x.interactive_mode = scalar(e, "interactiveMode", where, file);
  if (x.interactive_mode.empty() && x.api_version.ends_with("/v1"))
    fail(file, where + ".interactiveMode is required with client.authentication.k8s.io/v1");
  if (x.interactive_mode.empty()) x.interactive_mode = "IfAvailable";
  if (x.interactive_mode != "Never" && x.interactive_mode != "IfAvailable" && x.interactive_mode != "Always")
    fail(file, where + ".interactiveMode \"" + x.interactive_mode + "\" is not Never, IfAvailable or Always");
  if (YAML::Node p = e["provideClusterInfo"]; p && !p.IsNull()) {
    try {
      x.provide_cluster_info = p.as<bool>();
    } catch (const YAML::Exception&) {
      fail(file, where + ".provideClusterInfo is not a boolean");
    }
  }
  x.server = cluster.server;
  x.ca_data = cluster.ca_data;
  if (x.provide_cluster_info && x.ca_data.empty() && !cluster.ca_file.empty())
    x.ca_data = read_file(cluster.ca_file, "certificate-authority");
  x.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  return std::make_shared<ExecCredentialSource>(std::move(x));
}

// The merged view of one or more kubeconfig files: the first file to name
// a cluster, user or context wins that name, and current-context comes from
// the first file that sets it (client-go's merge rules).
struct KubeconfigEntry {
  YAML::Node body;  // the inner map
  std::string file;
};
struct Merged {
  std::string current_context, current_file;
  std::map<std::string, KubeconfigEntry> clusters, users, contexts;
};

void merge_list(std::map<std::string, KubeconfigEntry>& into, const YAML::Node& root, const std::string& list,
                const std::string& inner, const std::string& file) {
  YAML::Node items = root[list];
  if (!items || items.IsNull()) return;
  if (!items.IsSequence()) fail(file, list + " is not a list");
  for (const YAML::Node& item : items) {
    // IsScalar first: as<std::string>() on a list or map throws yaml-cpp's
    // TypedBadConversion, not a ConfigError naming the file.
    if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) continue;
    std::string name = item["name"].as<std::string>();
    if (into.count(name)) continue;
    YAML::Node body = item[inner];
    if (!body || !body.IsMap()) fail(file, list + "[" + name + "]." + inner + " is missing or not a map");
    into.emplace(name, KubeconfigEntry{body, file});
  }
}

void merge_file(Merged& m, const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(path, std::string("not YAML: ") + e.what());
  }
  if (root.IsNull()) return;  // an empty file sets nothing
  if (!root.IsMap()) fail(path, "not a kubeconfig (expected a map)");
  if (m.current_context.empty()) {
    m.current_context = scalar(root, "current-context", "kubeconfig", path);
    if (!m.current_context.empty()) m.current_file = path;
  }
  merge_list(m.clusters, root, "clusters", "cluster", path);
  merge_list(m.users, root, "users", "user", path);
  merge_list(m.contexts, root, "contexts", "context", path);
}

const KubeconfigEntry& named(const std::map<std::string, KubeconfigEntry>& entries, const std::string& list,
                             const std::string& name, const std::string& file) {
  auto it = entries.find(name);
  if (it == entries.end()) fail(file, list + ": no entry named \"" + name + "\"");
  return it->second;
}

fs::path dir_of(const std::string& file) {
  return fs::absolute(fs::path(file)).parent_path();
}

ClusterConfig resolve_context(const Merged& m, const std::string& context, const std::string& first_file) {
  std::string name = context.empty() ? m.current_context : context;
  if (name.empty()) fail(first_file, "current-context is not set and no context was given");
  const KubeconfigEntry& ctx = named(m.contexts, "contexts", name, context.empty() ? m.current_file : first_file);
  std::string where = "contexts[" + name + "].context";
  std::string cluster = scalar(ctx.body, "cluster", where, ctx.file);
  if (cluster.empty()) fail(ctx.file, where + ".cluster is missing");
  std::string user = scalar(ctx.body, "user", where, ctx.file);
  ClusterConfig out;
  const KubeconfigEntry& c = named(m.clusters, "clusters", cluster, ctx.file);
  read_cluster(c.body, "clusters[" + cluster + "].cluster", c.file, dir_of(c.file), out);
  if (!user.empty()) {
    const KubeconfigEntry& u = named(m.users, "users", user, ctx.file);
    read_user(u.body, "users[" + user + "].user", u.file, dir_of(u.file), out);
    if (YAML::Node exec = u.body["exec"]; exec && !exec.IsNull())
      out.exec = read_exec(exec, user, u.file, dir_of(u.file), out);
  }
  return out;
}

}  // namespace

ClusterConfig from_kubeconfig(const std::string& path, const std::string& context) {
  ClusterConfig c = from_kubeconfig_text(read_file(path, "kubeconfig"), path, context);
  return c;
}

ClusterConfig from_kubeconfig_text(const std::string& text, const std::string& path, const std::string& context) {
  return from_kubeconfigs({{path, text}}, context);
}

ClusterConfig from_kubeconfigs(const std::vector<std::pair<std::string, std::string>>& files,
                               const std::string& context) {
  if (files.empty()) throw ConfigError("no kubeconfig files to merge");
  Merged m;
  for (const auto& [path, text] : files) merge_file(m, text, path);
  ClusterConfig out = resolve_context(m, context, files.front().first);
  out.source = "kubeconfig " + files.front().first;
  for (std::size_t i = 1; i < files.size(); ++i) out.source += ":" + files[i].first;
  return out;
}

ClusterConfig in_cluster(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  return in_cluster_at(host ? host : "", port ? port : "", sa_dir);
}

ClusterConfig in_cluster_at(const std::string& host, const std::string& port, const std::string& sa_dir) {
  if (host.empty() || port.empty())
    throw ConfigError("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  ClusterConfig out;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  out.server = "https://" + h + ":" + port;
  out.source = "in-cluster";
  fs::path dir(sa_dir);
  out.token_file = (dir / "token").string();
  std::error_code ec;
  if (!fs::exists(out.token_file, ec)) throw ConfigError(out.token_file + ": service-account token is missing");
  out.ca_file = (dir / "ca.crt").string();
  if (!fs::exists(out.ca_file, ec)) throw ConfigError(out.ca_file + ": service-account CA certificate is missing");
  return out;
}

}  // namespace k8s
