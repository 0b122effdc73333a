// Where the binaries find their cluster (--kubeconfig, $KUBECONFIG merged as
// client-go merges it, in-cluster, ~/.kube/config), with the environment
// injected through LoadEnv rather than set on the process.
#include <catch2/catch.hpp>

#include "client_fixture.hpp"
#include "k8s/client/kubeconfig_loader.hpp"

using namespace k8s;
using clienttest::TempDir;

namespace {

// One cluster, user and context, all called `name`, pointing at `server`.
std::string kubeconfig(const std::string& name, const std::string& server, bool set_current = true) {
  return std::string(set_current ? "current-context: " + name + "\n" : "") + "clusters:\n- name: " + name +
         "\n  cluster: {server: \"" + server + "\", certificate-authority: ca-" + name +
         ".crt}\nusers:\n- name: " + name + "\n  user: {token: tok-" + name + "}\ncontexts:\n- name: " + name +
         "\n  context: {cluster: " + name + ", user: " + name + "}\n";
}

std::string load_error(const std::string& path, const LoadEnv& env, const std::string& context = "") {
  try {
    load_config(path, context, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the explicit kubeconfig wins over KUBECONFIG, in-cluster and home", "[client][kubeconfig]") {
  TempDir dir;
  LoadEnv env;
  env.kubeconfig = dir.write("env", kubeconfig("env", "https://env:6443"));
  env.home = dir.path.string();
  dir.write(".kube/config", kubeconfig("home", "https://home:6443"));
  env.service_host = "10.0.0.1";
  env.service_port = "443";
  std::string explicit_path = dir.write("explicit", kubeconfig("explicit", "https://explicit:6443"));
  ClusterConfig c = load_config(explicit_path, "", env);
  CHECK(c.server == "https://explicit:6443");
  CHECK(c.source == "kubeconfig " + explicit_path);
  CHECK(load_error(dir.path.string() + "/missing", env).find("missing: cannot read kubeconfig") != std::string::npos);
}

TEST_CASE("KUBECONFIG wins over in-cluster and home, and in-cluster over home", "[client][kubeconfig]") {
  TempDir dir;
  LoadEnv env;
  env.home = dir.path.string();
  dir.write(".kube/config", kubeconfig("home", "https://home:6443"));
  dir.write("sa/token", "sa-token");
  dir.write("sa/ca.crt", "ca");
  env.sa_dir = (dir.path / "sa").string();
  env.service_host = "10.0.0.1";
  env.service_port = "443";
  env.kubeconfig = dir.write("env", kubeconfig("env", "https://env:6443"));
  CHECK(load_config("", "", env).server == "https://env:6443");
  env.kubeconfig = "";  // set but empty counts as unset, as in client-go
  ClusterConfig in = load_config("", "", env);
  CHECK(in.server == "https://10.0.0.1:443");
  CHECK(in.source == "in-cluster");
  CHECK(in.token_file == env.sa_dir + "/token");
  env.service_port.clear();
  ClusterConfig home = load_config("", "", env);
  CHECK(home.server == "https://home:6443");
  CHECK(home.token == "tok-home");
  std::filesystem::remove(dir.path / ".kube/config");
  std::string none = load_error("", env);
  CHECK(none.find("no cluster configuration") != std::string::npos);
  CHECK(none.find(dir.path.string() + "/.kube/config does not exist") != std::string::npos);
}

TEST_CASE("KUBECONFIG files merge with the first file winning each name", "[client][kubeconfig]") {
  TempDir dir;
  // a: no current-context, defines "shared" (the one that must win) and "a".
  std::string a = dir.write("a/config", kubeconfig("shared", "https://from-a:6443", false) + "");
  std::string b = dir.write("b/config", kubeconfig("shared", "https://from-b:6443", true));
  std::string c = dir.write("c/config", "current-context: other\n" + kubeconfig("other", "https://other:6443", false));
  LoadEnv env;
  env.kubeconfig = a + ":" + dir.path.string() + "/absent:" + b + "::" + c;
  ClusterConfig merged = load_config("", "", env);
  // current-context from b (the first that sets it), entries from a.
  CHECK(merged.server == "https://from-a:6443");
  CHECK(merged.ca_file == dir.path.string() + "/a/ca-shared.crt");  // relative to the defining file
  CHECK(merged.source == "kubeconfig " + a + ":" + b + ":" + c);
  // A context only the third file defines is reachable through the merge.
  ClusterConfig other = load_config("", "other", env);
  CHECK(other.server == "https://other:6443");
  CHECK(other.token == "tok-other");
  CHECK(other.ca_file == dir.path.string() + "/c/ca-other.crt");
  CHECK(load_error("", env, "ghost").find("contexts: no entry named \"ghost\"") != std::string::npos);
  env.kubeconfig = dir.path.string() + "/x:" + dir.path.string() + "/y";
  CHECK(load_error("", env).find("none of its files exists") != std::string::npos);
}

TEST_CASE("merging picks each user and cluster from the first file naming it", "[client][kubeconfig]") {
  TempDir dir;
  std::string first = dir.write("1", "users:\n- name: u\n  user: {token: first}\n");
  std::string second = dir.write("2", R"(current-context: ctx
contexts: [{name: ctx, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://second:6443"}}]
users: [{name: u, user: {token: second}}]
)");
  ClusterConfig c = from_kubeconfigs({{first, clienttest::read_text(first)}, {second, clienttest::read_text(second)}});
  CHECK(c.token == "first");
  CHECK(c.server == "https://second:6443");
  ClusterConfig reversed =
      from_kubeconfigs({{second, clienttest::read_text(second)}, {first, clienttest::read_text(first)}});
  CHECK(reversed.token == "second");
}
