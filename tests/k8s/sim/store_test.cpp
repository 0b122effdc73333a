#include <catch2/catch.hpp>

#include "k8s/sim/api_error.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;
using model::Value;
using simtest::meta;

namespace {

int error_code(const std::function<void()>& f, std::string* reason = nullptr) {
  try {
    f();
  } catch (const ApiError& e) {
    if (reason) *reason = e.reason();
    return e.code();
  }
  return 0;
}

}  // namespace

TEST_CASE("store assigns one global monotonic resourceVersion uid and creationTimestamp", "[k8s][store]") {
  simtest::SimFixture f;
  auto a = f.create("configmaps", R"({"metadata":{"name":"a"},"data":{"k":"v"}})");
  auto b = f.create("secrets", R"({"metadata":{"name":"b"}})");
  REQUIRE(std::stoull(meta(b, "resourceVersion")) == std::stoull(meta(a, "resourceVersion")) + 1);
  REQUIRE(meta(a, "uid").size() == 36);
  REQUIRE(meta(a, "uid") != meta(b, "uid"));
  REQUIRE(meta(a, "creationTimestamp") == "2024-05-01T12:00:00Z");
  REQUIRE(meta(a, "generation").empty());  // ConfigMaps do not track generation
  REQUIRE(f.cluster.store().current_rv() == std::stoull(meta(b, "resourceVersion")));
}

TEST_CASE("store rejects duplicates and stale updates with the real reasons", "[k8s][store]") {
  simtest::SimFixture f;
  auto cm = f.create("configmaps", R"({"metadata":{"name":"a"}})");
  std::string reason;
  REQUIRE(error_code([&] { f.create("configmaps", R"({"metadata":{"name":"a"}})"); }, &reason) == 409);
  REQUIRE(reason == "AlreadyExists");
  auto t = f.type("", "configmaps");
  Value next = cm->value;
  next.set("data", Value::obj({{"k", "1"}}));
  auto updated = f.cluster.update(t, "default", "a", next, Subresource::main, {}, f.warnings);
  REQUIRE(meta(updated, "resourceVersion") != meta(cm, "resourceVersion"));
  // `next` still carries the old resourceVersion: a lost update.
  REQUIRE(error_code([&] { f.cluster.update(t, "default", "a", next, Subresource::main, {}, f.warnings); }, &reason) ==
          409);
  REQUIRE(reason == "Conflict");
  REQUIRE(error_code([&] { f.cluster.store().get(t, "default", "missing"); }, &reason) == 404);
  REQUIRE(reason == "NotFound");
}

TEST_CASE("a no-op update keeps the resourceVersion and emits nothing", "[k8s][store]") {
  simtest::SimFixture f;
  auto cm = f.create("configmaps", R"({"metadata":{"name":"a"},"data":{"k":"v"}})");
  auto t = f.type("", "configmaps");
  auto same = f.cluster.update(t, "default", "a", cm->value, Subresource::main, {}, f.warnings);
  REQUIRE(meta(same, "resourceVersion") == meta(cm, "resourceVersion"));
}

TEST_CASE("generateName makes a unique name", "[k8s][store]") {
  simtest::SimFixture f;
  auto a = f.create("configmaps", R"({"metadata":{"generateName":"job-"}})");
  auto b = f.create("configmaps", R"({"metadata":{"generateName":"job-"}})");
  REQUIRE(meta(a, "name").rfind("job-", 0) == 0);
  REQUIRE(meta(a, "name").size() == 9);
  REQUIRE(meta(a, "name") != meta(b, "name"));
}

TEST_CASE("generation moves on spec changes only - status goes through the subresource", "[k8s][store]") {
  simtest::SimFixture f;
  auto d = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{"replicas":1},"status":{"replicas":9}})",
                    "default", "apps");
  REQUIRE(meta(d, "generation") == "1");
  REQUIRE(d->value.find("status") == nullptr);  // status is not writable on create
  auto t = f.type("apps", "deployments");
  Value labelled = d->value;
  labelled.find("metadata")->set("labels", Value::obj({{"a", "b"}}));
  auto l = f.cluster.update(t, "default", "d", labelled, Subresource::main, {}, f.warnings);
  REQUIRE(meta(l, "generation") == "1");
  Value scaled = l->value;
  scaled.find("spec")->set("replicas", 3);
  scaled.set("status", Value::obj({{"replicas", 5}}));
  auto s = f.cluster.update(t, "default", "d", scaled, Subresource::main, {}, f.warnings);
  REQUIRE(meta(s, "generation") == "2");
  REQUIRE(s->value.find("status") == nullptr);  // ignored on the main resource
  Value status = s->value;
  status.set("status", Value::obj({{"replicas", 3}}));
  status.find("spec")->set("replicas", 7);  // ignored on the status subresource
  auto st = f.cluster.update(t, "default", "d", status, Subresource::status, {}, f.warnings);
  REQUIRE(st->value.find("status")->find("replicas")->as_int() == 3);
  REQUIRE(st->value.find("spec")->find("replicas")->as_int() == 3);
  REQUIRE(meta(st, "generation") == "2");
}

TEST_CASE("objects in a missing namespace are rejected - namespaces cascade", "[k8s][store]") {
  simtest::SimFixture f;
  std::string reason;
  REQUIRE(error_code([&] { f.create("configmaps", R"({"metadata":{"name":"a"}})", "nope"); }, &reason) == 404);
  REQUIRE(reason == "NotFound");
  for (const char* ns : {"default", "kube-system", "kube-public"})
    REQUIRE_NOTHROW(f.cluster.store().get(f.type("", "namespaces"), "", ns));
  f.create("namespaces", R"({"metadata":{"name":"team"}})", "");
  REQUIRE_NOTHROW(f.cluster.store().get(f.type("", "serviceaccounts"), "team", "default"));
  REQUIRE_NOTHROW(f.cluster.store().get(f.type("", "services"), "default", "kubernetes"));
  f.create("configmaps", R"({"metadata":{"name":"a"}})", "team");
  f.cluster.remove(f.type("", "namespaces"), "", "team", {});
  REQUIRE(error_code([&] { f.cluster.store().get(f.type("", "configmaps"), "team", "a"); }) == 404);
}

TEST_CASE("finalizers keep a deleted object until they are removed", "[k8s][store]") {
  simtest::SimFixture f;
  f.create("configmaps", R"({"metadata":{"name":"a","finalizers":["example.com/x"]}})");
  auto t = f.type("", "configmaps");
  auto marked = f.cluster.remove(t, "default", "a", {});
  REQUIRE(meta(marked, "deletionTimestamp") == "2024-05-01T12:00:00Z");
  Value cleared = marked->value;
  cleared.find("metadata")->erase("finalizers");
  f.cluster.update(t, "default", "a", cleared, Subresource::main, {}, f.warnings);
  REQUIRE(error_code([&] { f.cluster.store().get(t, "default", "a"); }) == 404);
}

TEST_CASE("names and labels are validated with 422 Invalid", "[k8s][store]") {
  simtest::SimFixture f;
  std::string reason;
  REQUIRE(error_code([&] { f.create("configmaps", R"({"metadata":{"name":"Bad_Name"}})"); }, &reason) == 422);
  REQUIRE(reason == "Invalid");
  REQUIRE(error_code([&] { f.create("configmaps", R"({"metadata":{"name":"a","labels":{"a":"b c"}}})"); }) == 422);
  REQUIRE(error_code([&] { f.create("configmaps", R"({"metadata":{}})"); }) == 422);
  REQUIRE(error_code([&] { f.create("configmaps", R"({"kind":"Secret","metadata":{"name":"a"}})"); }) == 400);
}

namespace {

std::string owned_by(const k8s::sim::SnapshotPtr& owner, const std::string& name) {
  return R"({"metadata":{"name":")" + name +
         R"(","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":")" + meta(owner, "uid") +
         R"("}]}})";
}

}  // namespace

TEST_CASE("deletes cascade to dependents by ownerReferences", "[k8s][store][gc]") {
  simtest::SimFixture f;
  auto deploy = f.type("apps", "deployments");
  auto cms = f.type("", "configmaps");
  auto exists = [&](const char* name) { return error_code([&] { f.cluster.store().get(cms, "default", name); }) == 0; };

  SECTION("background deletes the dependents after the owner") {
    auto owner = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    f.create("configmaps", owned_by(owner, "child"));
    f.create("configmaps", owned_by(f.create("configmaps", owned_by(owner, "mid")), "grandchild"));
    f.cluster.remove(deploy, "default", "d", {});
    CHECK_FALSE(exists("child"));
    CHECK_FALSE(exists("mid"));
    CHECK_FALSE(exists("grandchild"));
  }
  SECTION("orphan keeps the dependents and drops the reference") {
    auto owner = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    f.create("configmaps", owned_by(owner, "child"));
    DeleteOptions o;
    o.propagation = "Orphan";
    f.cluster.remove(deploy, "default", "d", o);
    REQUIRE(exists("child"));
    CHECK(f.cluster.store().get(cms, "default", "child")->value.find("metadata")->find("ownerReferences") == nullptr);
  }
  SECTION("foreground marks the owner, deletes the dependents, then the owner") {
    auto owner = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    f.create("configmaps", owned_by(owner, "child"));
    WatchOptions wo;
    wo.resource_version = std::to_string(f.cluster.store().current_rv());
    auto w = f.cluster.store().watch(deploy, "default", wo);
    DeleteOptions o;
    o.propagation = "Foreground";
    auto marked = f.cluster.remove(deploy, "default", "d", o);
    CHECK(meta(marked, "deletionTimestamp") == "2024-05-01T12:00:00Z");
    CHECK_FALSE(exists("child"));
    CHECK(error_code([&] { f.cluster.store().get(deploy, "default", "d"); }) == 404);
    auto events = w->take(std::chrono::milliseconds(0));
    REQUIRE(events.size() >= 2);
    CHECK(events.back().first == EventType::deleted);
    f.cluster.store().unwatch(w);
  }
  SECTION("a dependent created after its owner was deleted is collected") {
    // A controller's create in flight while the owner goes: the real
    // garbage collector deletes it once it sees no owner with that uid.
    auto owner = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    f.cluster.remove(deploy, "default", "d", {});
    f.create("configmaps", owned_by(owner, "late"));
    CHECK_FALSE(exists("late"));
    auto again = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    f.create("configmaps", owned_by(owner, "stale-uid"));  // the name is back, with another uid
    CHECK_FALSE(exists("stale-uid"));
    f.create("configmaps", owned_by(again, "current"));
    CHECK(exists("current"));
  }
  SECTION("an object with another owner only loses the reference") {
    auto owner = f.create("deployments", R"({"metadata":{"name":"d"},"spec":{}})", "default", "apps");
    auto other = f.create("deployments", R"({"metadata":{"name":"e"},"spec":{}})", "default", "apps");
    Value child = model::parse_json(owned_by(owner, "shared"));
    child.find("metadata")
        ->find("ownerReferences")
        ->push(Value::obj(
            {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "e"}, {"uid", meta(other, "uid")}}));
    f.cluster.create(cms, "default", child, {}, f.warnings);
    f.cluster.remove(deploy, "default", "d", {});
    REQUIRE(exists("shared"));
    CHECK(f.cluster.store().get(cms, "default", "shared")->value.find("metadata")->find("ownerReferences")->size() ==
          1);
  }
}
