#include <catch2/catch.hpp>

#include "actors/core/lease_fence.hpp"
#include "actors/core/pipeline.hpp"
#include "actors/core/writer_plan.hpp"
#include "actors_fixtures.hpp"
#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;

namespace {

using actors_test::kAlpha;

std::vector<model::Value> render_alpha(const std::string& shards) {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec:
  metrics: {shards: )" +
                   shards + R"(, instanceSelector: {matchLabels: {agent: alpha}}}
)",
               EventType::modified);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  return *p.roots().at(kAlpha).desired;
}

// What the API server would hold after applying a plan: our objects plus
// server-set fields.
std::vector<model::Value> apply_plan(const Plan& plan) {
  std::vector<model::Value> out;
  for (const auto& a : plan.actions) {
    if (a.type == ActionType::remove) continue;
    model::Value o = a.object;
    o.find("metadata")->set("resourceVersion", "17");
    o.find("metadata")->set("uid", "server-" + a.name);
    o.set("status", model::Value::obj({{"observedGeneration", 1}}));
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> names(const Plan& plan, ActionType t) {
  std::vector<std::string> out;
  for (const auto& a : plan.actions)
    if (a.type == t) out.push_back(a.kind + " " + a.name);
  return out;
}

}  // namespace

TEST_CASE("the config hash ignores server-set metadata and status", "[actors][writer]") {
  model::Value a = doc("{kind: Secret, metadata: {name: x, namespace: n}, data: {k: dg==}}");
  model::Value b = a;
  b.find("metadata")->set("resourceVersion", "5");
  b.set("status", model::Value::obj({{"x", 1}}));
  CHECK(config_hash(a) == config_hash(b));
  CHECK(config_hash(with_config_hash(a)) == config_hash(a));
  b.find("data")->set("k", "dw==");
  CHECK(config_hash(a) != config_hash(b));
  CHECK(config_hash(a).size() == 64);
}

TEST_CASE("first apply creates everything - an unchanged second pass writes nothing", "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("3");
  std::vector<model::Value> none;
  Plan first = plan_writes({kAlpha, "uid-alpha", &desired, &none, true});
  CHECK(first.actions.size() == desired.size());
  CHECK(names(first, ActionType::create).size() == desired.size());
  CHECK(first.actions.front().kind == "Secret");  // Secrets before the workloads that mount them
  std::vector<model::Value> observed = apply_plan(first);
  Plan second = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
  CHECK(second.empty());
  CHECK(second.unchanged == desired.size());
}

TEST_CASE("going from 3 shards to 1 prunes two StatefulSets", "[actors][writer]") {
  std::vector<model::Value> three = render_alpha("3"), one = render_alpha("1");
  std::vector<model::Value> none;
  std::vector<model::Value> observed = apply_plan(plan_writes({kAlpha, "uid-alpha", &three, &none, true}));
  // Something the operator does not own must never be pruned.
  observed.push_back(doc("{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: users-own, namespace: mon}}"));
  Plan plan = plan_writes({kAlpha, "uid-alpha", &one, &observed, true});
  CHECK(names(plan, ActionType::remove) ==
        std::vector<std::string>{"StatefulSet alpha-shard-1", "StatefulSet alpha-shard-2"});
  CHECK(names(plan, ActionType::create).empty());
  CHECK(names(plan, ActionType::recreate).empty());
  CHECK(plan.actions.back().type == ActionType::remove);  // prunes come last
  // While the root is invalid nothing is pruned.
  CHECK(names(plan_writes({kAlpha, "uid-alpha", &one, &observed, false}), ActionType::remove).empty());
  // An owner reference to another incarnation (other uid) is not ours.
  CHECK(names(plan_writes({kAlpha, "uid-other", &one, &observed, true}), ActionType::remove).empty());
}

TEST_CASE("an immutable field change recreates the workload", "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("1");
  std::vector<model::Value> none;
  std::vector<model::Value> observed = apply_plan(plan_writes({kAlpha, "uid-alpha", &desired, &none, true}));
  for (auto& o : observed) {
    if (o.find("kind")->as_string() != "StatefulSet") continue;
    o.find("spec")->set("serviceName", "old-service");
    o.find("metadata")->find("annotations")->set(kConfigHashAnnotation, "stale");
  }
  Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
  REQUIRE(plan.actions.size() == 1);
  CHECK(plan.actions[0].type == ActionType::recreate);
  CHECK(plan.actions[0].reason == "immutable spec.serviceName changed");
}

TEST_CASE("immutable fields tolerate server defaults", "[actors][writer]") {
  model::Value want = doc(R"(
kind: StatefulSet
spec:
  selector: {matchLabels: {app: a}}
  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce]}}]
)");
  model::Value have = doc(R"(
kind: StatefulSet
spec:
  selector: {matchLabels: {app: a}}
  podManagementPolicy: Parallel
  volumeClaimTemplates:
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], volumeMode: Filesystem}
    status: {phase: Pending}
)");
  CHECK_FALSE(immutable_change(have, want));
  want.find("spec")->find("volumeClaimTemplates")->as_array()[0].find("metadata")->set("name", "wal");
  CHECK(immutable_change(have, want) == std::string("spec.volumeClaimTemplates"));
  model::Value dep = doc("{kind: Deployment, spec: {selector: {matchLabels: {app: b}}}}");
  model::Value dep_have = doc("{kind: Deployment, spec: {selector: {matchLabels: {app: a}}}}");
  CHECK(immutable_change(dep_have, dep) == std::string("spec.selector"));
  CHECK_FALSE(immutable_change(dep, dep));
}

namespace {

model::Value* find_kind(std::vector<model::Value>& objs, const std::string& kind) {
  for (auto& o : objs)
    if (o.find("kind")->as_string() == kind) return &o;
  return nullptr;
}

// What the writer records for each write of `plan` the server answered
// with the object of the same identity in `answers`.
WrittenObjects written_for(const Plan& plan, const std::vector<model::Value>& answers) {
  WrittenObjects out;
  for (const Action& a : plan.actions)
    for (const auto& o : answers)
      if (identity(o) == Identity{a.kind, a.ns, a.name}) out[identity(o)] = written_record(o, a.object);
  return out;
}

// Alpha's objects, planned and written once, as the API server holds them.
struct FirstWrite {
  std::vector<model::Value> desired = render_alpha("1");
  std::vector<model::Value> none;
  Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &none, true});
  std::vector<model::Value> observed = apply_plan(plan);
  model::Value* sts = find_kind(observed, "StatefulSet");
};

}  // namespace

// After a restart the writer has no record of its own writes: the planner
// compares every field it sets, not only the hash annotation.
TEST_CASE("tampered objects with an intact hash are drift, also without a record of our writes", "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("1");
  std::vector<model::Value> none;
  std::vector<model::Value> observed = apply_plan(plan_writes({kAlpha, "uid-alpha", &desired, &none, true}));
  model::Value* sts = find_kind(observed, "StatefulSet");
  model::Value* secret = find_kind(observed, "Secret");
  REQUIRE(sts);
  REQUIRE(secret);
  // Others' additions are not drift: an annotation, a defaulted field.
  sts->find("metadata")->find("annotations")->set("example.com/touched", "yes");
  sts->find("spec")->set("revisionHistoryLimit", 10);
  CHECK(plan_writes({kAlpha, "uid-alpha", &desired, &observed, true}).empty());

  SECTION("scaled") {
    sts->find("spec")->set("replicas", 5);
    Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
    REQUIRE(plan.actions.size() == 1);
    CHECK(plan.actions[0].type == ActionType::update);
    CHECK(plan.actions[0].reason == "drift: spec.replicas changed by someone else (want 1, have 5)");
    // The update is fenced by the planned-from resourceVersion and keeps
    // what others added.
    const model::Value& body = plan.actions[0].object;
    CHECK(model::string_at(body, {"metadata", "resourceVersion"}) == "17");
    CHECK(model::string_at(body, {"metadata", "annotations", "example.com/touched"}) == "yes");
    CHECK(body.find("spec")->find("replicas")->as_int() == 1);
  }
  SECTION("image changed") {
    auto& containers = *sts->find("spec")->find("template")->find("spec")->find("containers");
    std::string image = model::string_at(containers.as_array()[0], {"image"});
    REQUIRE_FALSE(image.empty());
    containers.as_array()[0].set("image", "evil:latest");
    Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
    REQUIRE(plan.actions.size() == 1);
    CHECK(plan.actions[0].reason == "drift: spec.template.spec.containers[0].image changed by someone else (want " +
                                        image + ", have evil:latest)");
  }
  SECTION("a container argument changed: named, its value not shown") {
    auto& containers = *sts->find("spec")->find("template")->find("spec")->find("containers");
    auto& args = *containers.as_array()[0].find("args");
    REQUIRE(args.size() > 0);
    args.as_array()[0] = model::Value("--password=hunter2");
    Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
    REQUIRE(plan.actions.size() == 1);
    CHECK(plan.actions[0].reason == "drift: spec.template.spec.containers[0].args[0] changed by someone else");
  }
  SECTION("config data replaced") {
    auto& data = *secret->find("data");
    std::string key = data.as_object().begin()->first;
    data.set(key, "aGFja2Vk");
    Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
    REQUIRE(plan.actions.size() == 1);
    CHECK(plan.actions[0].kind == "Secret");
    // A Secret's values are never shown, only the key that changed.
    CHECK(plan.actions[0].reason == "drift: data." + key + " changed by someone else");
  }
  SECTION("our label removed") {
    sts->find("metadata")->find("labels")->erase(model::kManagedByLabel);
    Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
    REQUIRE(plan.actions.size() == 1);
    CHECK(plan.actions[0].reason ==
          std::string("drift: metadata.labels.") + model::kManagedByLabel + " removed by someone else");
  }
}

// With a record of our last write the baseline includes what the server
// defaulted, so changing a defaulted field is drift too; a record of
// another hash is not used.
TEST_CASE("the last write, when known, is the drift baseline", "[actors][writer]") {
  FirstWrite fw;
  const std::vector<model::Value>& desired = fw.desired;
  const Plan& first = fw.plan;
  std::vector<model::Value>& observed = fw.observed;
  model::Value* sts = find_kind(observed, "StatefulSet");
  REQUIRE(sts);
  sts->find("spec")->set("revisionHistoryLimit", 10);  // a server default
  WrittenObjects written = written_for(first, observed);
  // Only what the server added is kept, and nothing for a Secret it kept as sent.
  CHECK(written.at(identity(*sts)).answer.is_null());
  CHECK(model::to_json(written.at(identity(*sts)).extras) == R"({"spec":{"revisionHistoryLimit":10}})");
  const WrittenObject& secret = written.at(identity(*find_kind(observed, "Secret")));
  CHECK((secret.answer.is_null() && secret.extras.is_null()));
  CHECK(written.at(identity(*sts)).hash == model::string_at(*sts, {"metadata", "annotations", kConfigHashAnnotation}));
  sts->find("spec")->set("revisionHistoryLimit", 3);
  Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written});
  REQUIRE(plan.actions.size() == 1);
  CHECK(plan.actions[0].reason == "drift: spec.revisionHistoryLimit changed by someone else (want 10, have 3)");
  written[identity(*sts)].hash = "older";
  CHECK(plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written}).empty());
}

// Defaults inside a list (a container's) are recorded element by element,
// and changing one is drift; an answer that changed a value we sent is kept
// whole and is the baseline itself.
TEST_CASE("the last write's additions in lists, and answers that changed what was sent", "[actors][writer]") {
  FirstWrite fw;
  model::Value* sts = fw.sts;
  REQUIRE(sts);
  model::Value& containers = *sts->find("spec")->find("template")->find("spec")->find("containers");
  REQUIRE(containers.size() >= 2);
  containers.as_array()[1].set("terminationMessagePath", "/dev/termination-log");
  WrittenObjects written = written_for(fw.plan, fw.observed);
  const model::Value* listed =
      model::find_path(written.at(identity(*sts)).extras, {"spec", "template", "spec", "containers"});
  REQUIRE(listed);
  CHECK(listed->as_array()[0].is_null());
  CHECK(plan_writes({kAlpha, "uid-alpha", &fw.desired, &fw.observed, true, &written}).empty());
  containers.as_array()[1].set("terminationMessagePath", "/tmp/log");
  Plan drift = plan_writes({kAlpha, "uid-alpha", &fw.desired, &fw.observed, true, &written});
  REQUIRE(drift.actions.size() == 1);
  CHECK(drift.actions[0].reason.find("terminationMessagePath") != std::string::npos);

  // The server rewrote a value we sent: the whole answer is the baseline.
  containers.as_array()[1].erase("terminationMessagePath");
  sts->find("spec")->set("replicas", 5);
  written = written_for(fw.plan, fw.observed);
  CHECK_FALSE(written.at(identity(*sts)).answer.is_null());
  CHECK(plan_writes({kAlpha, "uid-alpha", &fw.desired, &fw.observed, true, &written}).empty());
  sts->find("spec")->set("replicas", 6);
  Plan changed = plan_writes({kAlpha, "uid-alpha", &fw.desired, &fw.observed, true, &written});
  REQUIRE(changed.actions.size() == 1);
  CHECK(changed.actions[0].reason == "drift: spec.replicas changed by someone else (want 5, have 6)");
}

// The informer's echo of a write can come before the write's answer; the
// newer observation stays (it is the shared tree).
TEST_CASE("an answer no newer than the informer's echo does not replace it", "[actors][writer]") {
  auto at = [](const char* rv) {
    return std::make_shared<const model::Value>(
        doc(std::string("{kind: Secret, metadata: {name: x, namespace: mon, resourceVersion: '") + rv + "'}}"));
  };
  Identity id{"Secret", "mon", "x"};
  ObservedObjects observed;
  SharedObject echo = at("8"), newer = at("9");
  observe_answer(observed, id, echo);
  CHECK(observed.at(id) == echo);
  observe_answer(observed, id, at("7"));
  CHECK(observed.at(id) == echo);
  observe_answer(observed, id, at("8"));
  CHECK(observed.at(id) == echo);
  observe_answer(observed, id, newer);
  CHECK(observed.at(id) == newer);
}

// A write the server answered verbatim keeps no copy; drift of it is still
// found, against the desired object of the same hash.
TEST_CASE("a write answered as sent is recorded by its hash alone", "[actors][writer]") {
  FirstWrite fw;
  const std::vector<model::Value>& desired = fw.desired;
  const Plan& first = fw.plan;
  std::vector<model::Value>& observed = fw.observed;
  WrittenObjects written = written_for(first, observed);
  for (const auto& [id, w] : written) {
    CHECK((w.answer.is_null() && w.extras.is_null()));
    CHECK(w.hash.size() == 64);
  }
  CHECK(plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written}).empty());
  model::Value* secret = find_kind(observed, "Secret");
  REQUIRE((secret && secret->find("data") && secret->find("data")->size() > 0));
  secret->find("data")->as_object().front().second = model::Value("dGFtcGVyZWQ=");
  Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written});
  REQUIRE(plan.actions.size() == 1);
  CHECK(plan.actions[0].type == ActionType::update);
  CHECK(plan.actions[0].reason.rfind("drift: data", 0) == 0);
}

// Labels and annotations others added ride along in our updates; their
// owners changing them later (the Deployment controller bumps its revision
// annotation after our template change) is not drift, ours changing is.
TEST_CASE("others' labels and annotations in our last write are not the drift baseline", "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("1");
  std::vector<model::Value> none;
  Plan first = plan_writes({kAlpha, "uid-alpha", &desired, &none, true});
  std::vector<model::Value> observed = apply_plan(first);
  model::Value* sts = find_kind(observed, "StatefulSet");
  REQUIRE(sts);
  sts->find("metadata")->find("annotations")->set("deployment.kubernetes.io/revision", "1");
  WrittenObjects written = written_for(first, observed);
  sts->find("metadata")->find("annotations")->set("deployment.kubernetes.io/revision", "2");
  CHECK(plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written}).empty());
  sts->find("metadata")->find("annotations")->erase("deployment.kubernetes.io/revision");
  CHECK(plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written}).empty());
  sts->find("metadata")->find("labels")->erase(model::kManagedByLabel);
  Plan plan = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written});
  REQUIRE(plan.actions.size() == 1);
  CHECK(plan.actions[0].reason ==
        std::string("drift: metadata.labels.") + model::kManagedByLabel + " removed by someone else");
}

// A new object needs no reason in the "created" line; one we wrote and
// someone deleted says so.
TEST_CASE("a create says why only when it restores an object we wrote", "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("1");
  std::vector<model::Value> none;
  Plan first = plan_writes({kAlpha, "uid-alpha", &desired, &none, true});
  REQUIRE_FALSE(first.empty());
  for (const Action& a : first.actions) CHECK(a.reason.empty());
  std::vector<model::Value> observed = apply_plan(first);
  WrittenObjects written = written_for(first, observed);
  std::erase_if(observed, [](const model::Value& o) { return model::string_at(o, {"kind"}) == "Service"; });
  Plan restore = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true, &written});
  REQUIRE_FALSE(restore.empty());
  for (const Action& a : restore.actions) {
    CHECK(a.type == ActionType::create);
    CHECK(a.kind == "Service");
    CHECK(a.reason == "deleted by someone else");
  }
}

TEST_CASE("drift_reason shows short values, never a Secret's, env's or annotation's", "[actors][writer]") {
  model::Value want = doc("{spec: {replicas: 2, paused: false, name: a}}");
  model::Value have = doc("{spec: {replicas: 3, paused: true, name: b}}");
  auto d = find_difference(want, have);
  REQUIRE(d);
  CHECK(drift_reason("StatefulSet", *d) == "drift: spec.replicas changed by someone else (want 2, have 3)");
  CHECK(drift_reason("Secret", *d) == "drift: spec.replicas changed by someone else");
  for (std::string shape : {"{data: {k: @}}", "{stringData: {k: @}}", "{spec: {containers: [{env: [{value: @}]}]}}",
                            "{spec: {containers: [{command: [@]}]}}", "{metadata: {annotations: {k: @}}}"}) {
    INFO(shape);
    std::string w = shape, h = shape;
    w.replace(w.find('@'), 1, "a");
    h.replace(h.find('@'), 1, "b");
    model::Value wv = doc(w), hv = doc(h);  // a Difference points into both
    auto e = find_difference(wv, hv);
    REQUIRE(e);
    CHECK(drift_reason("ConfigMap", *e).find("(want") == std::string::npos);
  }
  std::string long_value(65, 'x');
  model::Value long_want = model::Value::obj({{"image", long_value}}), short_have = model::Value::obj({{"image", "y"}});
  auto l = find_difference(long_want, short_have);
  REQUIRE(l);
  CHECK(drift_reason("Deployment", *l) == "drift: image changed by someone else");
  model::Value with_b = doc("{a: {b: 1}}"), without_b = doc("{a: {}}");
  auto gone = find_difference(with_b, without_b);
  REQUIRE(gone);
  CHECK(drift_reason("Service", *gone) == "drift: a.b removed by someone else");
}

TEST_CASE("first_difference names the first field that differs", "[actors][writer]") {
  CHECK_FALSE(first_difference(doc("{a: 1, b: {c: [1, 2]}}"), doc("{a: 1, b: {c: [1, 2], d: 3}, e: 4}")));
  CHECK(first_difference(doc("{a: 1, b: {c: [1, 2]}}"), doc("{a: 1, b: {c: [1, 3]}}")) == std::string("b.c[1]"));
  CHECK(first_difference(doc("{a: 1, b: {c: [1, 2]}}"), doc("{a: 1, b: {c: [1]}}")) == std::string("b.c"));
  CHECK(first_difference(doc("{a: {x: 1}}"), doc("{b: 2}")) == std::string("a"));
}

TEST_CASE("the lease fence holds only within the renew deadline of the last renew sent", "[actors][leader]") {
  std::int64_t now = 1'000;
  LeaseFence fence(std::chrono::milliseconds(10'000), [&] { return now; });
  CHECK_FALSE(fence.holds());  // never renewed
  fence.renewed(900);
  CHECK(fence.holds());
  now = 10'900;
  CHECK(fence.holds());
  now = 10'901;
  CHECK_FALSE(fence.holds());
  fence.renewed(500);  // an older answer arriving late does not extend it
  CHECK_FALSE(fence.holds());
  fence.renewed(10'000);
  CHECK(fence.holds());
  fence.revoke();
  CHECK_FALSE(fence.holds());
}

namespace {

std::string plan_text(const Plan& p) {
  std::string out = std::to_string(p.unchanged) + "\n";
  for (const auto& a : p.actions)
    out += std::string(action_name(a.type)) + " " + a.kind + " " + a.name + " " + a.reason + " " +
           model::to_json(a.object) + "\n";
  return out;
}

// The writer's way: hashes computed once, observed objects keyed by identity.
Plan plan_precomputed(const std::vector<model::Value>& desired, const std::vector<model::Value>& observed) {
  std::vector<std::string> hashes = config_hashes(desired);
  ObservedObjects by_id;
  for (const auto& o : observed) by_id.emplace(identity(o), std::make_shared<const model::Value>(o));
  return plan_writes({kAlpha, "uid-alpha", &desired, nullptr, true, nullptr, nullptr, &hashes, &by_id});
}

}  // namespace

TEST_CASE("planning with precomputed hashes and identity-keyed observed objects gives the same plan",
          "[actors][writer]") {
  std::vector<model::Value> desired = render_alpha("2");
  std::vector<model::Value> none;
  Plan create = plan_writes({kAlpha, "uid-alpha", &desired, &none, true});
  REQUIRE(create.actions.size() > 3);
  CHECK(plan_text(plan_precomputed(desired, none)) == plan_text(create));
  std::vector<model::Value> observed = apply_plan(create);
  CHECK(plan_precomputed(desired, observed).unchanged == desired.size());
  // Drift, a changed object, an immutable change and a prune.
  find_kind(observed, "StatefulSet")->find("spec")->set("replicas", 7);
  find_kind(observed, "Secret")->find("metadata")->find("annotations")->set(kConfigHashAnnotation, "old");
  find_kind(observed, "Service")->find("spec")->set("clusterIP", "10.0.0.9");
  observed.push_back(doc(R"({kind: ConfigMap, metadata: {name: stray, namespace: mon,
    labels: {app.kubernetes.io/managed-by: grafana-agent-operator},
    ownerReferences: [{kind: GrafanaAgent, name: alpha, uid: uid-alpha}]}})"));
  Plan plain = plan_writes({kAlpha, "uid-alpha", &desired, &observed, true});
  REQUIRE(plain.actions.size() >= 3);
  CHECK(plan_text(plan_precomputed(desired, observed)) == plan_text(plain));
}
