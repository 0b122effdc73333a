#include <catch2/catch.hpp>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/builtin_schemas.hpp"
#include "k8s/sim/patch.hpp"
#include "k8s/sim/selector.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using namespace k8s::sim;
using model::Value;

namespace {

bool match(const char* selector, const char* labels_json) {
  Value labels = model::parse_json(labels_json);
  return parse_label_selector(selector).matches(&labels);
}

std::string smp(const char* target, const char* patch, const char* kind = "io.k8s.api.core.v1.Pod") {
  static const SchemaSet schemas = builtin_schemas();
  Value out = strategic_merge_patch(model::parse_json(target), model::parse_json(patch), schemas, schemas.get(kind));
  return model::to_json(out);
}

}  // namespace

TEST_CASE("label selectors support the full syntax", "[k8s][selector]") {
  CHECK(match("", R"({})"));
  CHECK(match("a=1", R"({"a":"1"})"));
  CHECK(match("a==1,b", R"({"a":"1","b":""})"));
  CHECK_FALSE(match("a=1", R"({"a":"2"})"));
  CHECK(match("a!=1", R"({})"));
  CHECK(match(" a in ( x , y ) ", R"({"a":"y"})"));
  CHECK_FALSE(match("a in (x,y)", R"({})"));
  CHECK(match("a notin (x,y)", R"({})"));
  CHECK_FALSE(match("a notin (x,y)", R"({"a":"x"})"));
  CHECK(match("!a,b", R"({"b":"1"})"));
  CHECK(match("n>3,n<10", R"({"n":"5"})"));
  CHECK_FALSE(match("n>3", R"({"n":"x"})"));
  CHECK(match("example.com/role=web", R"({"example.com/role":"web"})"));
  for (const char* bad : {"a=(", "a in x", "in", "a=b c", "=x", "a,", "bad key=1", "a>b"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_label_selector(bad), ApiError);
  }
}

TEST_CASE("field selectors accept = == and != with escapes", "[k8s][selector]") {
  std::vector<std::string> fields = {"metadata.name", "metadata.namespace"};
  Value obj = model::parse_json(R"({"metadata":{"name":"a,b","namespace":"ns"}})");
  CHECK(parse_field_selector("metadata.name=a\\,b", fields).matches(obj));
  CHECK(parse_field_selector("metadata.namespace==ns,metadata.name!=x", fields).matches(obj));
  CHECK_FALSE(parse_field_selector("metadata.namespace!=ns", fields).matches(obj));
  CHECK_THROWS_AS(parse_field_selector("spec.nodeName=x", fields), ApiError);
}

TEST_CASE("JSON merge patch and JSON patch", "[k8s][patch]") {
  Value merged = json_merge_patch(model::parse_json(R"({"a":1,"b":{"c":2,"d":3},"e":[1]})"),
                                  model::parse_json(R"({"a":null,"b":{"c":5},"e":[2]})"));
  CHECK(model::to_json(merged) == R"({"b":{"c":5,"d":3},"e":[2]})");
  Value patched = json_patch(model::parse_json(R"({"a":[1,2],"b":"x"})"),
                             model::parse_json(R"([{"op":"add","path":"/a/1","value":9},{"op":"remove","path":"/b"},
                                                  {"op":"test","path":"/a/0","value":1},{"op":"copy","from":"/a","path":"/c"}])"));
  CHECK(model::to_json(patched) == R"({"a":[1,9,2],"c":[1,9,2]})");
  CHECK_THROWS_AS(
      json_patch(model::parse_json(R"({"a":1})"), model::parse_json(R"([{"op":"test","path":"/a","value":2}])")),
      ApiError);
}

TEST_CASE("strategic merge patch merges lists by their merge keys", "[k8s][patch]") {
  const char* pod =
      R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
                                             {"name":"b","image":"y"}],"tolerations":[{"key":"t1"}]}})";
  CHECK(
      smp(pod, R"({"spec":{"containers":[{"name":"a","image":"z","env":[{"name":"C","value":"3"}]}]}})") ==
      R"({"spec":{"containers":[{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}],"image":"z","name":"a"},{"image":"y","name":"b"}],"tolerations":[{"key":"t1"}]}})");
  // $patch: delete removes an element; lists without a strategy are replaced.
  CHECK(
      smp(pod, R"({"spec":{"containers":[{"name":"b","$patch":"delete"}],"tolerations":[{"key":"t2"}]}})") ==
      R"({"spec":{"containers":[{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"image":"x","name":"a"}],"tolerations":[{"key":"t2"}]}})");
  // $setElementOrder reorders; null deletes a field.
  CHECK(
      smp(pod,
          R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","env":null}]}})") ==
      R"({"spec":{"containers":[{"image":"y","name":"b"},{"image":"x","name":"a"}],"tolerations":[{"key":"t1"}]}})");
  // $patch: replace on a list.
  CHECK(smp(pod, R"({"spec":{"containers":[{"name":"c","image":"q"},{"$patch":"replace"}]}})") ==
        R"({"spec":{"containers":[{"image":"q","name":"c"}],"tolerations":[{"key":"t1"}]}})");
}

TEST_CASE("strategic merge patch directives: retainKeys and primitive lists", "[k8s][patch]") {
  const char* deploy =
      R"({"metadata":{"finalizers":["a","b"]},"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})";
  CHECK(smp(deploy, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
            "io.k8s.api.apps.v1.Deployment") ==
        R"({"metadata":{"finalizers":["a","b"]},"spec":{"strategy":{"type":"Recreate"}}})");
  CHECK(
      smp(deploy, R"({"metadata":{"finalizers":["c"],"$deleteFromPrimitiveList/finalizers":["a"]}})",
          "io.k8s.api.apps.v1.Deployment") ==
      R"({"metadata":{"finalizers":["b","c"]},"spec":{"strategy":{"rollingUpdate":{"maxSurge":1},"type":"RollingUpdate"}}})");
  CHECK(smp(R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})",
            R"({"spec":{"volumes":[{"name":"v","$retainKeys":["configMap","name"],"configMap":{"name":"c"}}]}})") ==
        R"({"spec":{"volumes":[{"configMap":{"name":"c"},"name":"v"}]}})");
}
