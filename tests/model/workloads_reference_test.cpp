// The upstream object-level reconcile tests (operator_test.go): each object
// of testdata/test-*.out.yaml must be a subset of the object we render for
// the matching .in.yaml, with upstream's subset.YAMLAssert semantics (maps:
// expected keys present with matching values; arrays: equal length,
// compared item by item).
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"

namespace {

using model::Value;
using testutil::subset_mismatch;

// The .out files were read back from a cluster, so they hold the fields the
// API server defaults. Upstream never sends these; neither do we. Apply the
// same defaults to our objects before comparing.
void apply_server_defaults(Value& v) {
  if (v.is_array()) {
    for (Value& item : v.as_array()) apply_server_defaults(item);
    return;
  }
  if (!v.is_object()) return;
  if (Value* ref = v.find("fieldRef"); ref && ref->is_object() && !ref->find("apiVersion"))
    ref->set("apiVersion", "v1");
  if (Value* get = v.find("httpGet"); get && get->is_object() && !get->find("scheme")) get->set("scheme", "HTTP");
  if (const Value* sa = v.find("serviceAccountName"); sa && !v.find("serviceAccount")) v.set("serviceAccount", *sa);
  for (auto& [k, child] : v.as_object()) apply_server_defaults(child);
}

void apply_service_defaults(Value& service) {
  Value& spec = *service.find("spec");
  if (!spec.find("type")) spec.set("type", "ClusterIP");
  for (Value& port : spec.find("ports")->as_array())
    if (!port.find("protocol")) port.set("protocol", "TCP");
}

// Upstream added AGENT_DEPLOY_MODE after writing the .out files, which list
// every env var (arrays must match in length). Drop it from our side; its
// presence is asserted separately below.
void drop_deploy_mode_env(Value& v) {
  if (v.is_array()) {
    for (Value& item : v.as_array()) drop_deploy_mode_env(item);
    return;
  }
  if (!v.is_object()) return;
  if (Value* env = v.find("env"); env && env->is_array()) {
    Value kept = Value::array();
    for (Value& e : env->as_array())
      if (!(e.find("name") && *e.find("name") == Value("AGENT_DEPLOY_MODE"))) kept.push(e);
    *env = kept;
  }
  for (auto& [k, child] : v.as_object()) drop_deploy_mode_env(child);
}

const Value* find_object(const std::vector<Value>& objects, const std::string& kind, const std::string& name) {
  for (const Value& o : objects)
    if (o.find("kind") && o.find("kind")->as_string() == kind && model::string_at(o, {"metadata", "name"}) == name)
      return &o;
  return nullptr;
}

std::vector<Value> render_reference(const std::string& test, bool compat) {
  auto inv = testutil::inventory_from_yaml(
      testutil::read_text(testutil::reference_path("golden/agent-operator/" + test + ".in.yaml")));
  const auto& agent = inv.agents.at({"default", "grafana-agent-example"}).obj;
  model::RenderOptions opts;
  opts.upstream_compat = compat;
  auto r = model::render_agent(inv, agent, opts);
  return r.objects;
}

void check_reference_objects(const std::string& test, const std::vector<Value>& objects) {
  std::string out = testutil::read_text(testutil::reference_path("golden/agent-operator/" + test + ".out.yaml"));
  auto docs = model::parse_documents(out, test);
  REQUIRE(!docs.empty());
  for (const auto& doc : docs) {
    std::string kind = doc.value.find("kind")->as_string(), name = model::string_at(doc.value, {"metadata", "name"});
    INFO(test << ": " << kind << " " << name);
    const Value* found = find_object(objects, kind, name);
    REQUIRE(found != nullptr);
    Value actual = *found;
    apply_server_defaults(actual);
    if (kind == "Service") apply_service_defaults(actual);
    drop_deploy_mode_env(actual);
    CHECK(subset_mismatch(doc.value, actual, "") == "");
  }
}

// The deliberate fixes only add to upstream's objects, so the upstream
// assertions hold in both modes.
void check_reference(const std::string& test) {
  for (bool compat : {true, false}) {
    INFO("upstream_compat=" << compat);
    check_reference_objects(test, render_reference(test, compat));
  }
}

}  // namespace

TEST_CASE("subset assertion semantics", "[workloads]") {
  Value actual = Value::obj({{"a", 1}, {"b", Value::arr({Value::obj({{"x", 1}, {"y", 2}})})}});
  CHECK(subset_mismatch(Value::obj({{"b", Value::arr({Value::obj({{"y", 2}})})}}), actual, "") == "");
  CHECK(subset_mismatch(Value::obj({{"c", 1}}), actual, "") == ".c: missing");
  CHECK(subset_mismatch(Value::obj({{"a", 2}}), actual, "") == ".a: expected 2, got 1");
  CHECK(subset_mismatch(Value::obj({{"b", Value::array()}}), actual, "").find("expected 0 items") != std::string::npos);
}

TEST_CASE("test-metrics-instance objects match upstream", "[workloads]") {
  check_reference("test-metrics-instance");
}

TEST_CASE("test-custom-mounts objects match upstream", "[workloads]") {
  check_reference("test-custom-mounts");
}

TEST_CASE("test-integrations objects match upstream", "[workloads]") {
  check_reference("test-integrations");
}

TEST_CASE("reference pods carry AGENT_DEPLOY_MODE after POD_NAME", "[workloads]") {
  for (const Value& o : render_reference("test-integrations", false)) {
    const Value* spec = o.find("spec");
    const Value* tmpl = spec ? spec->find("template") : nullptr;
    if (!tmpl) continue;
    INFO(model::string_at(o, {"metadata", "name"}));
    for (const Value& c : tmpl->find("spec")->find("containers")->as_array()) {
      const auto& env = c.find("env")->as_array();
      REQUIRE(env.size() >= 2);
      CHECK(env[0].find("name")->as_string() == "POD_NAME");
      CHECK(env[1] == Value::obj({{"name", "AGENT_DEPLOY_MODE"}, {"value", "operator"}}));
    }
  }
}
