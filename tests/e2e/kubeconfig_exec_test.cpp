// `agent-operator run` finding its cluster through $KUBECONFIG and
// authenticating with an exec credential plugin (a shell script printing
// simcluster's --token), including a stale first token that a 401 replaces.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"

namespace {

// Prints $DIR/token.N on run N when that exists, else $DIR/token; counts runs.
const char* kPlugin = R"(#!/bin/sh
n=$(cat "$DIR/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DIR/count"
if [ -f "$DIR/token.$n" ]; then tok=$(cat "$DIR/token.$n"); else tok=$(cat "$DIR/token"); fi
echo "plugin run $n" >&2
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$tok"
)";

std::string exec_kubeconfig(const testutil::TempDir& dir, const std::string& server) {
  std::string plugin = dir.write("plugin.sh", kPlugin);
  ::chmod(plugin.c_str(), 0755);
  return "current-context: sim\ncontexts: [{name: sim, context: {cluster: sim, user: exec-user}}]\n"
         "clusters: [{name: sim, cluster: {server: \"" +
         server +
         "\"}}]\nusers:\n- name: exec-user\n  user:\n    exec:\n"
         "      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ./plugin.sh\n"
         "      env: [{name: DIR, value: \"" +
         dir.path.string() + "\"}]\n";
}

// run against a cluster without the CRDs: a 404 for our kinds and none for
// the built-in ones proves every list was authenticated (a refused token
// is a 401 on all of them).
k8s::sim::RunResult run_operator(const testutil::TempDir& dir, const std::string& kubeconfig) {
  return k8s::sim::run({"env", "KUBECONFIG=" + dir.path.string() + "/absent:" + kubeconfig, testutil::operator_bin(),
                        "run", "--listen=0", "--sync-timeout", "2s"});
}

// An empty simcluster that takes only `token`.
struct TokenCluster {
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster{clock};
  k8s::sim::Server server;
  explicit TokenCluster(const std::string& token) : server(cluster, options(token)) { server.start(); }
  static k8s::sim::ServerOptions options(const std::string& token) {
    k8s::sim::ServerOptions o;
    o.token = token;
    return o;
  }
};

}  // namespace

TEST_CASE("run finds its cluster through KUBECONFIG and authenticates with an exec plugin", "[e2e][exec]") {
  testutil::TempDir dir("ao-exec");
  TokenCluster sim("exec-admin-token");
  dir.write("token", "exec-admin-token");
  std::string kc = dir.write("kubeconfig", exec_kubeconfig(dir, sim.server.url()));

  auto r = run_operator(dir, kc);
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("msg=\"cluster configuration loaded\" server=" + sim.server.url()) != std::string::npos);
  CHECK(r.err.find(" source=\"kubeconfig " + kc) != std::string::npos);
  CHECK(r.err.find("kind=GrafanaAgent error=\"HTTP 404") != std::string::npos);
  CHECK(r.err.find("kind=Secret ") == std::string::npos);
  CHECK(r.err.find("plugin run 1") != std::string::npos);  // the plugin's stderr passes through
  CHECK(r.err.find("exec-admin-token") == std::string::npos);
  CHECK(dir.read("count") == "1\n");  // one run, cached for every informer
}

TEST_CASE("run re-runs the exec plugin once when its token is refused", "[e2e][exec]") {
  testutil::TempDir dir("ao-exec");
  TokenCluster sim("fresh-token");
  dir.write("token.1", "stale-token");
  dir.write("token", "fresh-token");
  auto r = run_operator(dir, dir.write("kubeconfig", exec_kubeconfig(dir, sim.server.url())));
  INFO(r.err);
  CHECK(r.err.find("kind=GrafanaAgent error=\"HTTP 404") != std::string::npos);
  CHECK(r.err.find("kind=Secret ") == std::string::npos);
  CHECK(r.err.find("status=401") == std::string::npos);
  CHECK(dir.read("count") == "2\n");  // the start-up run, then one after the first 401
}

TEST_CASE("run exits 2 naming the user and command when the exec plugin fails", "[e2e][exec]") {
  testutil::TempDir dir("ao-exec");
  std::string kc = dir.write("kubeconfig", exec_kubeconfig(dir, "http://127.0.0.1:1"));
  dir.write("plugin.sh", "#!/bin/sh\necho secret-output\nexit 4\n");
  auto r = run_operator(dir, kc);
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("users[exec-user].user.exec (command \"" + dir.path.string() +
                   "/plugin.sh\"): exited with status 4") != std::string::npos);
  CHECK(r.err.find("secret-output") == std::string::npos);
}
