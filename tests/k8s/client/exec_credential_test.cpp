// Exec credential plugins: a shell-script plugin run for real, its errors,
// and the credential cache against a simcluster that demands a token
// (refresh on expiry, one re-run and resend on a 401).
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "client_fixture.hpp"
#include "k8s/client/kubeconfig_loader.hpp"
#include "k8s/client/resources.hpp"

using namespace k8s;
using clienttest::call;
using clienttest::read_text;
using clienttest::TempDir;

namespace {

// Counts its runs in $DIR/count, saves KUBERNETES_EXEC_INFO in $DIR/info,
// and prints $DIR/token.N on run N when it exists (else $DIR/token), with
// the expirationTimestamp in $DIR/expiry when that exists.
const char* kPlugin = R"(#!/bin/sh
n=$(cat "$DIR/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DIR/count"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$DIR/info"
if [ -f "$DIR/token.$n" ]; then tok=$(cat "$DIR/token.$n"); else tok=$(cat "$DIR/token"); fi
exp=""; if [ -f "$DIR/expiry" ]; then exp=",\"expirationTimestamp\":\"$(cat "$DIR/expiry")\""; fi
printf '{"apiVersion":"client.authentication.k8s.io/%s","kind":"ExecCredential","status":{"token":"%s"%s}}\n' \
  "${VERSION:-v1}" "$tok" "$exp"
)";

std::string script(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.write(name, text);
  ::chmod(path.c_str(), 0755);
  return path;
}

std::string exec_kubeconfig(const std::string& server, const std::string& command, const std::string& dir,
                            const std::string& extra = "") {
  return "current-context: c\ncontexts: [{name: c, context: {cluster: c, user: plugin-user}}]\n"
         "clusters: [{name: c, cluster: {server: \"" +
         server +
         "\"}}]\nusers:\n- name: plugin-user\n  user:\n    exec:\n"
         "      apiVersion: client.authentication.k8s.io/v1\n      interactiveMode: Never\n"
         "      command: " +
         command + "\n      args: [--flag]\n      env: [{name: DIR, value: \"" + dir + "\"}]\n" + extra;
}

int runs(const TempDir& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir.path / "count", ec)) return 0;
  return std::stoi(read_text((dir.path / "count").string()));
}

Result list_namespaces(Client& client) {
  return call([&](Callback cb) { client.list(*resource_for_kind("Namespace"), "", {}, cb); });
}

std::string plugin_error(const TempDir& dir, const std::string& body, const std::string& extra = "") {
  std::string path = script(dir, "bad.sh", "#!/bin/sh\n" + body + "\n");
  std::string kc = dir.write("bad.kubeconfig", exec_kubeconfig("https://x", path, dir.path.string(), extra));
  try {
    from_kubeconfig(kc).exec->get();
  } catch (const ExecError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an exec plugin's token authenticates against simcluster and is cached", "[client][exec]") {
  sim::ServerOptions o;
  o.token = "the-admin-token";
  clienttest::SimServer sim(o);
  TempDir dir;
  dir.write("token", "the-admin-token");
  std::string kc = dir.write("kubeconfig", exec_kubeconfig(sim.url, script(dir, "plugin.sh", kPlugin),
                                                           dir.path.string(), "      provideClusterInfo: true\n"));
  LoadEnv env;
  env.kubeconfig = kc;
  ClusterConfig cc = load_config("", "", env);
  REQUIRE(cc.exec);
  Client client(make_curl_transport(cc));
  CHECK(list_namespaces(client).status == 200);
  CHECK(list_namespaces(client).status == 200);
  CHECK(runs(dir) == 1);
  std::string info = read_text((dir.path / "info").string());
  CHECK(info.find("\"kind\":\"ExecCredential\"") != std::string::npos);
  CHECK(info.find("\"interactive\":false") != std::string::npos);
  CHECK(info.find("\"server\":\"" + sim.url + "\"") != std::string::npos);
}

TEST_CASE("a 401 makes the client re-run the plugin and resend once", "[client][exec]") {
  sim::ServerOptions o;
  o.token = "rotated-token";
  clienttest::SimServer sim(o);
  TempDir dir;
  dir.write("token.1", "stale-token");  // first run: the token the server no longer takes
  dir.write("token", "rotated-token");
  ClusterConfig cc = from_kubeconfig(
      dir.write("kubeconfig", exec_kubeconfig(sim.url, script(dir, "plugin.sh", kPlugin), dir.path.string())));
  Client client(make_curl_transport(cc));
  CHECK(list_namespaces(client).status == 200);
  CHECK(runs(dir) == 2);
  CHECK(list_namespaces(client).status == 200);
  CHECK(runs(dir) == 2);
  // Every run's token refused: one resend, then the 401 reaches the caller.
  dir.write("token", "still-wrong");
  dir.write("token.3", "still-wrong");
  cc.exec->invalidate(cc.exec->current());
  Result r = list_namespaces(client);
  CHECK(r.status == 401);
  CHECK(runs(dir) == 4);
}

TEST_CASE("an exec credential is refreshed when its expirationTimestamp has passed", "[client][exec]") {
  sim::ServerOptions o;
  o.token = "t";
  clienttest::SimServer sim(o);
  TempDir dir;
  dir.write("token", "t");
  dir.write("expiry", "2000-01-01T00:00:00Z");
  ClusterConfig cc = from_kubeconfig(
      dir.write("kubeconfig", exec_kubeconfig(sim.url, script(dir, "plugin.sh", kPlugin), dir.path.string())));
  Client client(make_curl_transport(cc));
  CHECK(list_namespaces(client).status == 200);
  CHECK(list_namespaces(client).status == 200);
  CHECK(runs(dir) == 2);  // expired at once: every request runs the plugin
  dir.write("expiry", "2200-01-01T00:00:00+02:00");
  cc.exec->invalidate(cc.exec->current());
  CHECK(list_namespaces(client).status == 200);
  CHECK(list_namespaces(client).status == 200);
  CHECK(runs(dir) == 3);
}

TEST_CASE("bad exec plugin output is an error naming the user and the command", "[client][exec]") {
  TempDir dir;
  std::string cmd = (dir.path / "bad.sh").string();
  auto check = [&](const std::string& error, const std::string& problem) {
    INFO(error);
    CHECK(error.find("users[plugin-user].user.exec (command \"" + cmd + "\")") != std::string::npos);
    CHECK(error.find(problem) != std::string::npos);
    CHECK(error.find("secret-value") == std::string::npos);
  };
  check(plugin_error(dir, "echo secret-value; exit 3"), "exited with status 3");
  check(plugin_error(dir, "echo '{\"token\": \"secret-value\"'"), "not a JSON ExecCredential");
  check(plugin_error(dir,
                     "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                     "\"status\":{\"token\":\"secret-value\"}}'"),
        "returned apiVersion \"client.authentication.k8s.io/v1beta1\"");
  check(plugin_error(dir,
                     "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                     "\"status\":{}}'"),
        "neither a token nor a client certificate");
  ExecConfig slow;
  slow.user = "plugin-user";
  slow.command = script(dir, "bad.sh", "#!/bin/sh\nexec sleep 5\n");
  slow.api_version = "client.authentication.k8s.io/v1";
  slow.timeout = std::chrono::milliseconds(200);
  auto started = std::chrono::steady_clock::now();
  try {
    run_exec_plugin(slow);
    FAIL("a plugin that never answers must time out");
  } catch (const ExecError& e) {
    check(e.what(), "no answer within 200 ms");
  }
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(3));
  CHECK(plugin_error(dir, "exit 0", "") != "no error");
}

TEST_CASE("exec stanzas are checked when the kubeconfig is read", "[client][exec]") {
  TempDir dir;
  auto error = [&](const std::string& from, const std::string& to) {
    std::string text = exec_kubeconfig("https://x", "./plugin.sh", "/tmp");
    if (!from.empty()) text.replace(text.find(from), from.size(), to);
    try {
      from_kubeconfig(dir.write("kc", text));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("", "") == "no error");
  CHECK(from_kubeconfig(dir.path.string() + "/kc").exec->config().command == dir.path.string() + "/plugin.sh");
  CHECK(error("client.authentication.k8s.io/v1\n", "client.authentication.k8s.io/v1alpha1\n")
            .find("is not client.authentication.k8s.io/v1 or") != std::string::npos);
  CHECK(error("      interactiveMode: Never\n", "").find("interactiveMode is required") != std::string::npos);
  CHECK(
      error("client.authentication.k8s.io/v1\n      interactiveMode: Never\n", "client.authentication.k8s.io/v1beta1\n")
          .find("no error") != std::string::npos);
  CHECK(error("    exec:\n", "    token: x\n    exec:\n").find("both a token and exec") != std::string::npos);
}
