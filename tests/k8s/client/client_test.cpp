// Client verbs against an in-process simcluster: CRUD, patches, errors,
// pagination, selectors and delete propagation.
#include <catch2/catch.hpp>

#include "client_fixture.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using namespace k8s;
using clienttest::call;

namespace {

const Resource& cm() {
  return *resource_for_kind("ConfigMap");
}

struct Env {
  clienttest::SimServer sim;
  Client client;
  explicit Env(ClientOptions o = fast(), sim::ServerOptions so = {})
      : sim(so), client(make_curl_transport(sim.config()), o) {}

  static ClientOptions fast() {
    ClientOptions o;
    o.qps = 10'000;
    o.burst = 10'000;
    o.backoff = Backoff{std::chrono::milliseconds(5), std::chrono::milliseconds(50)};
    return o;
  }
  Result create(const std::string& name, const std::string& extra_meta = "") {
    std::string body = R"({"metadata":{"name":")" + name + "\"" + extra_meta + R"(},"data":{"k":"v"}})";
    return call([&](Callback cb) { client.create(cm(), "default", body, cb); });
  }
  Result get(const std::string& name) {
    return call([&](Callback cb) { client.get(cm(), "default", name, cb); });
  }
  Result list(const ListOptions& o) {
    return call([&](Callback cb) { client.list(cm(), "default", o, cb); });
  }
};

std::string field(const std::string& body, std::initializer_list<const char*> path) {
  model::Value v = model::parse_json(body);
  const model::Value* cur = &v;
  for (const char* key : path) {
    cur = cur->find(key);
    if (!cur) return "<absent>";
  }
  return cur->is_string() ? cur->as_string() : model::to_json(*cur);
}

std::vector<std::string> names(const std::string& list_body) {
  std::vector<std::string> out;
  model::Value v = model::parse_json(list_body);
  for (const model::Value& item : v.find("items")->as_array())
    out.push_back(item.find("metadata")->find("name")->as_string());
  return out;
}

}  // namespace

TEST_CASE("create get update and delete round-trip through the API", "[client]") {
  Env env;
  Result created = env.create("a");
  REQUIRE(created.status == 201);
  CHECK(created.attempts == 1);
  Result got = env.get("a");
  REQUIRE(got.status == 200);
  CHECK(field(got.body, {"data", "k"}) == "v");
  std::string rv = field(got.body, {"metadata", "resourceVersion"});
  std::string body = R"({"metadata":{"name":"a","resourceVersion":")" + rv + R"("},"data":{"k":"w"}})";
  Result updated = call([&](Callback cb) { env.client.update(cm(), "default", "a", body, cb); });
  CHECK(updated.status == 200);
  CHECK(field(env.get("a").body, {"data", "k"}) == "w");
  Result removed = call([&](Callback cb) { env.client.remove(cm(), "default", "a", Propagation::background, cb); });
  CHECK(removed.status == 200);
  CHECK(env.get("a").status == 404);
}

TEST_CASE("an update with a stale resourceVersion is a 409 for the caller to reconcile", "[client]") {
  Env env;
  std::string rv = field(env.create("a").body, {"metadata", "resourceVersion"});
  std::string body = R"({"metadata":{"name":"a","resourceVersion":")" + rv + R"("},"data":{"k":"1"}})";
  REQUIRE(call([&](Callback cb) { env.client.update(cm(), "default", "a", body, cb); }).status == 200);
  Result stale = call([&](Callback cb) { env.client.update(cm(), "default", "a", body, cb); });
  CHECK(stale.status == 409);
  CHECK(stale.reason == "Conflict");
  CHECK(stale.error_class() == ErrorClass::retry_reconcile);
  CHECK(stale.attempts == 1);  // never retried by the client
  Result twice = env.create("a");
  CHECK(twice.status == 409);
  CHECK(twice.reason == "AlreadyExists");
}

TEST_CASE("a missing object is a 404 NotFound", "[client]") {
  Env env;
  Result r = env.get("missing");
  CHECK(r.status == 404);
  CHECK(r.reason == "NotFound");
  CHECK(r.error_class() == ErrorClass::retry_reconcile);
  Result d = call([&](Callback cb) { env.client.remove(cm(), "default", "missing", Propagation::background, cb); });
  CHECK(d.status == 404);
}

TEST_CASE("patches are sent with the content type of their kind", "[client]") {
  Env env;
  REQUIRE(env.create("a").status == 201);
  auto patch = [&](PatchType t, std::string body) {
    return call([&](Callback cb) { env.client.patch(cm(), "default", "a", t, body, cb); });
  };
  CHECK(patch(PatchType::merge, R"({"data":{"m":"1"}})").status == 200);
  CHECK(patch(PatchType::json, R"([{"op":"add","path":"/data/j","value":"2"}])").status == 200);
  CHECK(patch(PatchType::strategic, R"({"metadata":{"labels":{"s":"3"}}})").status == 200);
  Result got = env.get("a");
  CHECK(field(got.body, {"data", "m"}) == "1");
  CHECK(field(got.body, {"data", "j"}) == "2");
  CHECK(field(got.body, {"metadata", "labels", "s"}) == "3");
  // simcluster has no server-side apply: it names the types it takes, which
  // shows the apply content type reached it.
  Result apply = patch(PatchType::apply, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
  CHECK(apply.status == 415);
  CHECK(apply.error_class() == ErrorClass::terminal);
  Result bad = patch(PatchType::json, R"({"not":"a list"})");
  CHECK(bad.status / 100 == 4);
}

TEST_CASE("lists page with limit and continue and list_all joins the pages", "[client]") {
  Env env;
  for (int i = 0; i < 25; ++i) REQUIRE(env.create("cm" + std::to_string(100 + i)).status == 201);
  ListOptions o;
  o.limit = 10;
  Result first = env.list(o);
  REQUIRE(first.status == 200);
  CHECK(names(first.body).size() == 10);
  CHECK_FALSE(first.continue_token.empty());
  CHECK_FALSE(first.resource_version.empty());
  o.continue_token = first.continue_token;
  Result second = env.list(o);
  CHECK(names(second.body).front() == "cm110");
  Result all = call([&](Callback cb) {
    ListOptions p;
    p.limit = 10;
    env.client.list_all(cm(), "default", p, cb);
  });
  REQUIRE(all.status == 200);
  auto got = names(all.body);
  REQUIRE(got.size() == 25);
  CHECK(got.front() == "cm100");
  CHECK(got.back() == "cm124");
  CHECK(all.continue_token.empty());
  CHECK(all.resource_version == first.resource_version);
  CHECK(field(all.body, {"kind"}) == "ConfigMapList");
  Result one = call([&](Callback cb) { env.client.list_all(cm(), "default", {}, cb); });
  CHECK(names(one.body).size() == 25);
}

TEST_CASE("label and field selectors are escaped and applied", "[client]") {
  Env env;
  REQUIRE(env.create("a", R"(,"labels":{"app":"x","tier":"web"})").status == 201);
  REQUIRE(env.create("b", R"(,"labels":{"app":"y"})").status == 201);
  REQUIRE(env.create("c", R"(,"labels":{"app":"z"})").status == 201);
  ListOptions o;
  o.label_selector = "app in (x,y),tier!=db";
  CHECK(names(env.list(o).body) == std::vector<std::string>{"a", "b"});
  o.label_selector = "app=x";
  CHECK(names(env.list(o).body) == std::vector<std::string>{"a"});
  o = {};
  o.field_selector = "metadata.name!=a,metadata.name!=c";
  CHECK(names(env.list(o).body) == std::vector<std::string>{"b"});
  o.label_selector = "app notin (y)";
  o.field_selector = "metadata.name=c";
  CHECK(names(env.list(o).body) == std::vector<std::string>{"c"});
  o.label_selector = "app in (";
  CHECK(env.list(o).status == 400);
}

TEST_CASE("delete propagation reaches the garbage collector", "[client]") {
  Env env;
  auto owner_ref = [&](const std::string& owner) {
    std::string uid = field(env.get(owner).body, {"metadata", "uid"});
    return R"(,"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":")" + owner + R"(","uid":")" + uid +
           R"("}])";
  };
  auto remove = [&](const std::string& name, Propagation p) {
    return call([&](Callback cb) { env.client.remove(cm(), "default", name, p, cb); });
  };
  REQUIRE(env.create("owner1").status == 201);
  REQUIRE(env.create("dep1", owner_ref("owner1")).status == 201);
  REQUIRE(remove("owner1", Propagation::orphan).status == 200);
  Result orphan = env.get("dep1");
  REQUIRE(orphan.status == 200);
  CHECK(field(orphan.body, {"metadata", "ownerReferences"}) == "<absent>");

  REQUIRE(env.create("owner2").status == 201);
  REQUIRE(env.create("dep2", owner_ref("owner2")).status == 201);
  Result fg = remove("owner2", Propagation::foreground);
  REQUIRE(fg.status == 200);
  CHECK(fg.body.find("foregroundDeletion") != std::string::npos);
  CHECK(env.get("dep2").status == 404);
  CHECK(env.get("owner2").status == 404);

  REQUIRE(env.create("owner3").status == 201);
  REQUIRE(env.create("dep3", owner_ref("owner3")).status == 201);
  REQUIRE(remove("owner3", Propagation::background).status == 200);
  CHECK(clienttest::eventually([&] { return env.get("dep3").status == 404; }));
}

TEST_CASE("injected 5xx and 429 answers are retried until they succeed", "[client][faults]") {
  sim::ServerOptions so;
  bool throttle = GENERATE(false, true);
  (throttle ? so.faults.error_429_rate : so.faults.error_5xx_rate) = 0.5;
  so.faults.retry_after_seconds = 0;  // Retry-After itself is tested below
  so.fault_seed = 99;
  ClientOptions o = Env::fast();
  o.max_retries = 30;
  Env env(o, so);
  int requests = 30;
  unsigned retried = 0;
  for (int i = 0; i < requests; ++i) {
    Result r = env.create("c" + std::to_string(i));
    // A retried create whose first attempt was applied sees AlreadyExists;
    // simcluster faults before handling, so every create succeeds once.
    REQUIRE(r.status == 201);
    retried += r.attempts - 1;
    Result g = env.get("c" + std::to_string(i));
    REQUIRE(g.status == 200);
    retried += g.attempts - 1;
  }
  CHECK(retried > 0);
  sim::FaultConfig all_fail;
  all_fail.error_5xx_rate = 1.0;
  env.sim.server.faults().set_config(all_fail);
  o.max_retries = 2;
  Client limited(make_curl_transport(env.sim.config()), o);
  Result r = call([&](Callback cb) { limited.get(cm(), "default", "c0", cb); });
  CHECK(r.status / 100 == 5);
  CHECK(r.attempts == 3);
}

TEST_CASE("a Retry-After answer delays the retry at least that long", "[client][faults]") {
  sim::ServerOptions so;
  so.faults.error_429_rate = 1.0;
  so.faults.retry_after_seconds = 1;
  ClientOptions o = Env::fast();
  o.max_retries = 1;
  Env env(o, so);
  auto start = std::chrono::steady_clock::now();
  Result r = env.get("x");
  CHECK(r.status == 429);
  CHECK(r.attempts == 2);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(1000));
}

TEST_CASE("the client-side QPS limit spaces requests out", "[client]") {
  ClientOptions o = Env::fast();
  o.qps = 20;
  o.burst = 1;
  Env env(o);
  constexpr int n = 21;
  std::vector<clienttest::Pending> pending(n);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) env.client.get(cm(), "default", "x", pending[i].callback());
  for (auto& p : pending) CHECK(p.wait().status == 404);
  // 1 burst token, then 20 more at 20/s: at least about one second.
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(950));
}

TEST_CASE("a request slower than the client timeout fails as retry_call after its retries", "[client][faults]") {
  sim::ServerOptions so;
  so.faults.latency_ms = 1500;
  ClientOptions o = Env::fast();
  o.timeout = std::chrono::milliseconds(100);
  o.max_retries = 1;
  Env env(o, so);
  Result r = env.get("x");
  CHECK(r.status == 0);
  CHECK(r.error.find("timed out") != std::string::npos);
  CHECK(r.error_class() == ErrorClass::retry_call);
  CHECK(r.attempts == 2);
}

TEST_CASE("the status subresource of a GrafanaAgent is written with update and patch", "[client]") {
  Env env;
  auto crd = model::parse_documents(
      std::string(
          clienttest::read_text(std::string(AO_SOURCE_DIR) + "/deploy/crds/monitoring.grafana.com_grafanaagents.yaml")),
      "crd");
  env.sim.cluster().apply_manifest(crd.at(0).value);
  const Resource& agent = *resource_for_kind("GrafanaAgent");
  auto created = call([&](Callback cb) {
    env.client.create(
        agent, "default",
        R"({"apiVersion":"monitoring.grafana.com/v1alpha1","kind":"GrafanaAgent","metadata":{"name":"ga"},"spec":{}})",
        cb);
  });
  REQUIRE(created.status == 201);
  std::string rv = field(created.body, {"metadata", "resourceVersion"});
  std::string with_status =
      R"({"apiVersion":"monitoring.grafana.com/v1alpha1","kind":"GrafanaAgent","metadata":{"name":"ga","resourceVersion":")" +
      rv + R"("},"spec":{},"status":{"conditions":[{"type":"Ready","status":"True"}]}})";
  Result put = call([&](Callback cb) { env.client.update(agent, "default", "ga", with_status, cb, "status"); });
  REQUIRE(put.status == 200);
  CHECK(field(put.body, {"status", "conditions"}).find("Ready") != std::string::npos);
  Result patched = call([&](Callback cb) {
    env.client.patch(agent, "default", "ga", PatchType::merge, R"({"status":{"observedGeneration":1}})", cb, "status");
  });
  REQUIRE(patched.status == 200);
  CHECK(field(patched.body, {"status", "observedGeneration"}) == "1");
  CHECK(field(patched.body, {"status", "conditions"}).find("Ready") != std::string::npos);
}

TEST_CASE("watch streams events until the server timeout ends it", "[client]") {
  Env env;
  std::string rv = env.list({}).resource_version;
  REQUIRE(env.create("w1").status == 201);
  std::mutex m;
  std::vector<std::string> lines;
  clienttest::Pending done;
  ListOptions o;
  o.resource_version = rv;
  o.field_selector = "metadata.name=w1";
  env.client.watch(
      cm(), "default", o, 1,
      [&](std::string_view l) {
        std::lock_guard lock(m);
        lines.emplace_back(l);
      },
      done.callback());
  Result r = done.wait();
  CHECK(r.status == 200);
  std::lock_guard lock(m);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0].find("\"type\":\"ADDED\"") != std::string::npos);
  CHECK(lines[0].find("\"name\":\"w1\"") != std::string::npos);
}

TEST_CASE("destroying a client with requests in flight still completes them", "[client]") {
  sim::ServerOptions so;
  so.faults.latency_ms = 300;
  clienttest::SimServer sim(so);
  clienttest::Pending pending;
  {
    Client client(make_curl_transport(sim.config()));
    client.get(cm(), "default", "x", pending.callback());
  }  // the transport goes with the client
  Result r = pending.wait();
  CHECK(r.status == 0);
  CHECK(r.error == kTransportStopped);
  CHECK(pending.calls() == 1);
}

TEST_CASE("the request hook sees every attempt with its method and status", "[client]") {
  auto seen = std::make_shared<std::vector<std::pair<std::string, int>>>();
  auto mu = std::make_shared<std::mutex>();
  ClientOptions o = Env::fast();
  o.on_request = [seen, mu](const std::string& method, int status, double seconds) {
    std::lock_guard lock(*mu);
    seen->emplace_back(method, status);
    CHECK(seconds >= 0);
  };
  Env env(o);
  REQUIRE(env.create("a").status == 201);
  REQUIRE(env.get("missing").status == 404);
  std::lock_guard lock(*mu);
  REQUIRE(seen->size() == 2);
  CHECK((*seen)[0] == std::pair<std::string, int>("POST", 201));
  CHECK((*seen)[1] == std::pair<std::string, int>("GET", 404));
}
