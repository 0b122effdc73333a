// kubernetes_sd_config parsing (Prometheus's validation, errors naming the
// field), selectors, and http_sd response parsing.
#include <catch2/catch.hpp>

#include "allocation/discovery/http_sd.hpp"
#include "tests/allocation/discovery/fixtures.hpp"

using namespace allocation::discovery;
using discovery_test::Labels;

namespace {

std::string config_error(const std::string& json, std::string_view own = "") {
  try {
    parse_kubernetes_sd_config(model::parse_json(json), "k[0]", own);
  } catch (const DiscoveryError& e) {
    return e.what();
  }
  return "";
}

std::string http_error(const std::string& body) {
  try {
    parse_http_sd(body, "http://sd/x");
  } catch (const DiscoveryError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("kubernetes_sd_config errors name the field", "[discovery]") {
  CHECK(config_error(R"({})") ==
        "k[0].role: role missing (one of: pod, service, endpoints, endpointslice, node, ingress)");
  CHECK(config_error(R"({"role": "nodes"})") == "k[0].role: unknown Kubernetes SD role \"nodes\"");
  CHECK(config_error(R"({"role": "node"})") == "k[0].role: role node is not supported yet");
  CHECK(config_error(R"({"role": "pod", "selectors": [{"role": "service"}]})") ==
        "k[0].selectors[0].role: pod role supports only pod selectors");
  CHECK(config_error(R"({"role": "endpoints", "selectors": [{"role": "ingress"}]})") ==
        "k[0].selectors[0].role: endpoints role supports only pod, service, endpoints selectors");
  CHECK(config_error(R"({"role": "pod", "selectors": [{"role": "pod"}, {"role": "pod"}]})") ==
        "k[0].selectors[1].role: duplicated selector role: pod");
  CHECK(config_error(R"({"role": "pod", "selectors": [{"role": "pod", "label": "a in (b"}]})") ==
        "k[0].selectors[0].label: unable to parse requirement: found '', expected: ',' or ')'");
  CHECK(config_error(R"({"role": "pod", "selectors": [{"role": "pod", "field": "spec.nodeName"}]})") ==
        "k[0].selectors[0].field: invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'");
  CHECK(config_error(R"({"role": "pod", "namespaces": {"names": "a"}})") ==
        "k[0].namespaces.names: must be a list of strings");
  CHECK(config_error(R"({"role": "pod", "attach_metadata": {"node": true}})") ==
        "k[0].attach_metadata.node: not supported yet");
  CHECK(config_error(R"({"role": "service", "api_server": "https://k", "namespaces": {"names": ["a"]}})").empty());
}

TEST_CASE("kubernetes_sd_config namespaces follow own_namespace", "[discovery]") {
  auto parse = [](const std::string& json, std::string_view own) {
    return parse_kubernetes_sd_config(model::parse_json(json), "k", own);
  };
  auto all = parse(R"({"role": "pod"})", "me");
  CHECK(all.all_namespaces);
  CHECK(all.watches_namespace("anything"));
  auto own = parse(R"({"role": "pod", "namespaces": {"own_namespace": true, "names": ["a"]}})", "me");
  CHECK_FALSE(own.all_namespaces);
  CHECK(own.namespaces == std::vector<std::string>{"a", "me"});
  CHECK_FALSE(own.watches_namespace("b"));
  auto unknown_own = parse(R"({"role": "pod", "namespaces": {"own_namespace": true}})", "");
  CHECK_FALSE(unknown_own.all_namespaces);
  CHECK(unknown_own.namespaces.empty());
  CHECK(watch_specs(unknown_own).empty());
}

TEST_CASE("label and field selectors match as the API server does", "[discovery]") {
  auto obj = model::parse_json(R"({"metadata": {"name": "p", "labels": {"app": "web", "tier": "front"}},
                                   "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})");
  struct Row {
    const char* selector;
    bool fields, match;
  };
  const std::vector<Row> rows = {
      {"", false, true},
      {"app", false, true},
      {"!app", false, false},
      {"!missing", false, true},
      {"app=web", false, true},
      {"app==web,tier=front", false, true},
      {"app=web,tier=back", false, false},
      {"app!=web", false, false},
      {"missing!=x", false, true},
      {"app in (api, web)", false, true},
      {"app notin (api,web)", false, false},
      {"missing notin (a)", false, true},
      {"missing in (a)", false, false},
      {"metadata.name=p", true, true},
      {"spec.nodeName==n2", true, false},
      {"status.phase!=Failed,spec.nodeName=n1", true, true},
      {"spec.missing=", true, true},
  };
  for (const auto& r : rows) {
    INFO(r.selector);
    auto s = r.fields ? Selector::parse_fields(r.selector) : Selector::parse_labels(r.selector);
    CHECK(s.matches(obj) == r.match);
  }
  // Prometheus validates with the API server's parser, which takes gt and lt
  // with integer values (this grammar rejected them before it was shared).
  auto gen = model::parse_json(R"({"metadata": {"labels": {"gen": "3"}}})");
  CHECK(Selector::parse_labels("gen>2").matches(gen));
  CHECK_FALSE(Selector::parse_labels("gen<3").matches(gen));
  CHECK_THROWS_AS(Selector::parse_labels("gen>x"), SelectorError);
  CHECK_THROWS_AS(Selector::parse_labels("bad key!=x"), SelectorError);
  CHECK_THROWS_AS(Selector::parse_labels("a,,b"), SelectorError);
  CHECK_THROWS_AS(Selector::parse_labels("a=b c"), SelectorError);
}

TEST_CASE("http_sd response parses into groups with __meta_url", "[discovery][http_sd]") {
  auto groups = parse_http_sd(R"([
    {"targets": ["10.0.0.1:9100", "10.0.0.2:9100"], "labels": {"env": "prod", "__meta_x": "y"}},
    {"targets": []},
    {"targets": ["10.0.0.3:9100"], "labels": null, "extra": 1}])",
                              "http://sd/x");
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].source == "http://sd/x:0");
  CHECK(groups[2].source == "http://sd/x:2");
  CHECK(discovery_test::flatten(groups[0].group).group ==
        Labels{{"env", "prod"}, {"__meta_x", "y"}, {"__meta_url", "http://sd/x"}});
  CHECK(discovery_test::flatten(groups[0].group).targets ==
        std::vector<Labels>{{{"__address__", "10.0.0.1:9100"}}, {{"__address__", "10.0.0.2:9100"}}});
  CHECK(groups[1].group.targets.empty());
  CHECK(discovery_test::flatten(groups[2].group).group == Labels{{"__meta_url", "http://sd/x"}});
  CHECK(parse_http_sd("[]", "u").empty());
}

TEST_CASE("http_sd response errors name the field", "[discovery][http_sd]") {
  CHECK(http_error(R"({"targets": []})") == "body: must be a JSON array of target groups");
  CHECK_THAT(http_error(R"([{"targets": [})"), Catch::StartsWith("body: invalid JSON"));
  CHECK(http_error(R"([null])") == "[0]: nil target group item found");
  CHECK(http_error(R"([{"targets": []}, 3])") == "[1]: must be an object");
  CHECK(http_error(R"([{"targets": "a:1"}])") == "[0].targets: must be a list of strings");
  CHECK(http_error(R"([{"targets": ["a:1", 2]}])") == "[0].targets[1]: must be a string");
  CHECK(http_error(R"([{"targets": [], "labels": []}])") == "[0].labels: must be a map of strings");
  CHECK(http_error(R"([{"targets": [], "labels": {"a-b": "x"}}])") == "[0].labels: \"a-b\" is not a valid label name");
  CHECK(http_error(R"([{"targets": [], "labels": {"a": 1}}])") == "[0].labels.a: must be a string");
}

TEST_CASE("http_sd response status and content type are checked", "[discovery][http_sd]") {
  CHECK_NOTHROW(check_http_sd_response(200, "application/json"));
  CHECK_NOTHROW(check_http_sd_response(200, " Application/JSON; charset=utf-8"));
  CHECK_NOTHROW(check_http_sd_response(200, "application/json;  charset=\"UTF-8\""));
  CHECK_THROWS_WITH(check_http_sd_response(200, "text/plain"), "Content-Type: unsupported content type \"text/plain\"");
  CHECK_THROWS_WITH(check_http_sd_response(200, "application/json; charset=latin1"),
                    Catch::StartsWith("Content-Type: unsupported"));
  CHECK_THROWS_WITH(check_http_sd_response(503, "application/json"), "status: server returned HTTP status 503");
}
