#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/hierarchy.hpp"
#include "model/parse.hpp"

using model::FieldErrors;
using model::Labels;
using model::Reader;

namespace {

std::optional<model::LabelSelector> selector(const std::string& yaml, FieldErrors& errors) {
  static std::vector<model::Value> keep;  // Readers point into the parsed tree
  keep.push_back(model::parse_documents(yaml, "t")[0].value);
  Reader r(&keep.back(), "spec", &errors);
  return model::decode_selector(r, "selector");
}

}  // namespace

TEST_CASE("nil selector matches nothing {} matches everything", "[selector]") {
  FieldErrors errors;
  auto nil = selector("other: {}", errors);
  auto all = selector("selector: {}", errors);
  CHECK_FALSE(model::selector_matches(nil, Labels{{"a", "b"}}));
  CHECK(model::selector_matches(all, Labels{}));
  CHECK(model::selector_matches(all, Labels{{"a", "b"}}));
  CHECK(errors.empty());
}

TEST_CASE("matchLabels and every matchExpressions operator", "[selector]") {
  FieldErrors errors;
  auto sel = selector(R"(selector:
  matchLabels: {app: web}
  matchExpressions:
  - {key: tier, operator: In, values: [a, b]}
  - {key: env, operator: NotIn, values: [dev]}
  - {key: team, operator: Exists}
  - {key: canary, operator: DoesNotExist}
)",
                      errors);
  REQUIRE(errors.empty());
  Labels good{{"app", "web"}, {"tier", "a"}, {"env", "prod"}, {"team", "x"}};
  CHECK(model::selector_matches(sel, good));
  auto with = [&](std::string k, std::string v) {
    Labels l = good;
    l[k] = v;
    return l;
  };
  CHECK_FALSE(model::selector_matches(sel, with("app", "api")));
  CHECK_FALSE(model::selector_matches(sel, with("tier", "c")));
  CHECK_FALSE(model::selector_matches(sel, with("env", "dev")));
  CHECK_FALSE(model::selector_matches(sel, with("canary", "")));
  Labels no_team = good;
  no_team.erase("team");
  CHECK_FALSE(model::selector_matches(sel, no_team));
  Labels no_env = good;
  no_env.erase("env");
  CHECK(model::selector_matches(sel, no_env));  // NotIn matches a missing label
}

TEST_CASE("matches_object reads an object's labels in place as matches reads them copied", "[selector]") {
  FieldErrors errors;
  auto sel = selector(R"(selector:
  matchLabels: {app: web}
  matchExpressions:
  - {key: tier, operator: In, values: [a, b]}
  - {key: env, operator: NotIn, values: [dev]}
  - {key: team, operator: Exists}
  - {key: canary, operator: DoesNotExist}
)",
                      errors);
  auto all = selector("selector: {}", errors);
  REQUIRE(errors.empty());
  auto object = [](const model::Value& labels) {
    return model::Value::obj({{"kind", "ServiceMonitor"}, {"metadata", model::Value::obj({{"labels", labels}})}});
  };
  std::vector<model::Value> cases = {
      model::Value::obj({{"app", "web"}, {"tier", "a"}, {"env", "prod"}, {"team", "x"}}),
      model::Value::obj({{"app", "web"}, {"tier", "c"}, {"team", "x"}}),
      model::Value::obj({{"app", "web"}, {"tier", "b"}, {"env", "dev"}, {"team", "x"}}),
      model::Value::obj({{"app", "web"}, {"tier", "a"}, {"team", "x"}, {"canary", ""}}),
      model::Value::obj({{"app", "web"}, {"tier", "a"}}),
      model::Value::obj({{"app", "api"}, {"tier", "a"}, {"team", "x"}}),
      model::Value::obj({{"app", "web"}, {"tier", "a"}, {"team", 5}}),  // not a string: no label
      model::Value::object(),
      model::Value("not an object"),
  };
  std::size_t matched = 0;
  for (const model::Value& labels : cases) {
    model::Value obj = object(labels);
    CHECK(sel->matches_object(obj) == sel->matches(model::object_labels(obj)));
    CHECK(all->matches_object(obj));
    matched += sel->matches_object(obj);
  }
  CHECK(matched == 1);
  CHECK_FALSE(sel->matches_object(model::Value::object()));  // no metadata at all
  CHECK(all->matches_object(model::Value::object()));
}

TEST_CASE("unknown selector operators and bad values are errors with paths", "[selector]") {
  FieldErrors errors;
  selector("selector: {matchExpressions: [{key: a, operator: Gt, values: ['1']}]}", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "spec.selector.matchExpressions[0].operator");
  errors.clear();
  selector("selector: {matchExpressions: [{key: a, operator: In}]}", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "spec.selector.matchExpressions[0].values");
  errors.clear();
  selector("selector: {matchLabels: {a: 1}}", errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "spec.selector.matchLabels.a");
}

TEST_CASE("namespace selectors: nil is the parent's namespace {} is all else Namespace labels", "[selector]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {monitored: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
)");
  FieldErrors errors;
  auto all = selector("selector: {}", errors);
  auto labelled = selector("selector: {matchLabels: {monitored: 'yes'}}", errors);
  CHECK(model::namespace_selected(inv, std::nullopt, "mon", "mon"));
  CHECK_FALSE(model::namespace_selected(inv, std::nullopt, "mon", "team-a"));
  CHECK(model::namespace_selected(inv, all, "mon", "team-b"));
  CHECK(model::namespace_selected(inv, labelled, "mon", "team-a"));
  CHECK_FALSE(model::namespace_selected(inv, labelled, "mon", "team-b"));
  CHECK_FALSE(model::namespace_selected(inv, labelled, "mon", "unknown"));
}
