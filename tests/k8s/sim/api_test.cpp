#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "k8s/sim/api.hpp"
#include "k8s/sim/loader.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;
using model::Value;

namespace {

struct ApiFixture : simtest::SimFixture {
  Api api;
  explicit ApiFixture(ApiOptions o = {}) : api(cluster, o) {}

  HttpResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                    const std::string& content_type = "application/json",
                    std::multimap<std::string, std::string> query = {}) {
    HttpRequest r{method, path, std::move(query), "application/json", content_type, body};
    return api.handle(r);
  }
  Value json(const HttpResponse& r) { return model::parse_json(r.body); }
};

std::string field(const Value& v, const std::string& path) {
  return field_text(v, path);
}

}  // namespace

TEST_CASE("discovery lists built-in and CRD resources", "[k8s][api]") {
  ApiFixture f;
  Value core = f.json(f.call("GET", "/api/v1"));
  bool pods_status = false;
  for (const Value& r : core.find("resources")->as_array()) pods_status |= field(r, "name") == "pods/status";
  CHECK(pods_status);
  Value groups = f.json(f.call("GET", "/apis"));
  CHECK(field(groups.find("groups")->as_array()[0], "name") == "apps");
  CHECK(f.call("GET", "/apis/monitoring.grafana.com/v1alpha1").status == 404);
  load_manifests(f.cluster, {testutil::reference_path("crds")});
  Value agents = f.json(f.call("GET", "/apis/monitoring.grafana.com/v1alpha1"));
  bool found = false;
  for (const Value& r : agents.find("resources")->as_array())
    found |= field(r, "name") == "grafanaagents" && field(r, "kind") == "GrafanaAgent";
  CHECK(found);
  HttpRequest agg{"GET", "/apis", {}, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "", ""};
  HttpResponse r = f.api.handle(agg);
  CHECK(r.content_type.find("apidiscovery.k8s.io") != std::string::npos);
  CHECK(f.json(r).find("items")->size() >= 6);
}

TEST_CASE("openapi v3 documents advertise fieldValidation and carry schemas", "[k8s][api][openapi]") {
  ApiFixture f;
  load_manifests(f.cluster, {testutil::reference_path("crds")});
  Value index = f.json(f.call("GET", "/openapi/v3"));
  std::string url = field(*index.find("paths")->find("apis/monitoring.grafana.com/v1alpha1"), "serverRelativeURL");
  REQUIRE(url.find("?hash=") != std::string::npos);
  Value doc = f.json(f.call("GET", url.substr(0, url.find('?'))));
  const Value* patch = doc.find("paths")
                           ->find("/apis/monitoring.grafana.com/v1alpha1/namespaces/{namespace}/grafanaagents/{name}")
                           ->find("patch");
  REQUIRE(patch);
  CHECK(field(*patch, "x-kubernetes-group-version-kind.kind") == "GrafanaAgent");
  bool validation = false;
  for (const Value& p : patch->find("parameters")->as_array()) validation |= field(p, "name") == "fieldValidation";
  CHECK(validation);
  CHECK(doc.find("components")->find("schemas")->find("com.grafana.monitoring.v1alpha1.GrafanaAgent"));
  Value core = f.json(f.call("GET", "/openapi/v3/api/v1"));
  const Value* container = core.find("components")->find("schemas")->find("io.k8s.api.core.v1.PodSpec");
  REQUIRE(container);
  CHECK(field(*container, "properties.containers.x-kubernetes-patch-merge-key") == "name");
  CHECK(f.call("GET", "/openapi/v2").status == 404);
}

TEST_CASE("REST verbs return real status codes and Status bodies", "[k8s][api]") {
  ApiFixture f;
  auto created =
      f.call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"},"data":{"k":"v"}})");
  CHECK(created.status == 201);
  auto missing = f.call("GET", "/api/v1/namespaces/default/configmaps/b");
  CHECK(missing.status == 404);
  CHECK(field(f.json(missing), "reason") == "NotFound");
  CHECK(field(f.json(missing), "message") == "configmaps \"b\" not found");
  auto dup = f.call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})");
  CHECK(dup.status == 409);
  auto stale = f.call("PUT", "/api/v1/namespaces/default/configmaps/a",
                      R"({"metadata":{"name":"a","resourceVersion":"1"},"data":{}})");
  CHECK(stale.status == 409);
  CHECK(field(f.json(stale), "reason") == "Conflict");
  auto patched = f.call("PATCH", "/api/v1/namespaces/default/configmaps/a", R"({"data":{"x":"y"}})",
                        "application/merge-patch+json");
  CHECK(field(f.json(patched), "data.x") == "y");
  auto unknown = f.call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"},"bogus":1})",
                        "application/json", {{"fieldValidation", "Strict"}});
  CHECK(unknown.status == 400);
  CHECK(field(f.json(unknown), "message").find("strict decoding error: unknown field \"bogus\"") != std::string::npos);
  auto warned = f.call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"d"},"bogus":1})");
  CHECK(warned.status == 201);
  CHECK(warned.warnings == std::vector<std::string>{"unknown field \"bogus\""});
  auto list = f.json(f.call("GET", "/api/v1/configmaps", "", "", {{"limit", "1"}}));
  CHECK(field(list, "kind") == "ConfigMapList");
  CHECK(list.find("items")->size() == 1);
  CHECK(!field(list, "metadata.continue").empty());
  CHECK(f.call("DELETE", "/api/v1/namespaces/default/configmaps/a").status == 200);
  CHECK(f.call("GET", "/api/v1/namespaces/default/configmaps/a").status == 404);
  CHECK(f.call("GET", "/api/v1/nope").status == 404);
}

TEST_CASE("custom resources are validated pruned and merge-patched", "[k8s][api][crd]") {
  ApiFixture f;
  load_manifests(f.cluster, {testutil::reference_path("crds")});
  std::string base = "/apis/monitoring.grafana.com/v1alpha1/namespaces/default/grafanaagents";
  auto bad = f.call("POST", base, R"({"metadata":{"name":"a"},"spec":{"paused":"yes"}})");
  CHECK(bad.status == 422);
  CHECK(field(f.json(bad), "message").find("spec.paused in body must be of type boolean") != std::string::npos);
  auto ok = f.call("POST", base, R"({"metadata":{"name":"a"},"spec":{"logLevel":"info","bogus":true}})");
  REQUIRE(ok.status == 201);
  CHECK(f.json(ok).find("spec")->find("bogus") == nullptr);  // pruned
  CHECK(ok.warnings == std::vector<std::string>{"unknown field \"spec.bogus\""});
  CHECK(f.call("PATCH", base + "/a", R"({"spec":{"logLevel":"debug"}})", "application/strategic-merge-patch+json")
            .status == 415);
  auto merged = f.call("PATCH", base + "/a", R"({"spec":{"logLevel":"debug"}})", "application/merge-patch+json");
  CHECK(field(f.json(merged), "spec.logLevel") == "debug");
  CHECK(field(f.json(merged), "metadata.generation") == "2");
  auto crd = f.json(
      f.call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/grafanaagents.monitoring.grafana.com"));
  CHECK(field(crd.find("status")->find("conditions")->as_array()[1], "type") == "Established");
  f.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/grafanaagents.monitoring.grafana.com");
  CHECK(f.call("GET", base).status == 404);
}

TEST_CASE("a watch stream sends JSON lines bookmarks and 410 errors", "[k8s][api][watch]") {
  ApiFixture f(ApiOptions{"127.0.0.1:1", std::chrono::milliseconds(0)});
  f.call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})");
  auto w = f.call("GET", "/api/v1/namespaces/default/configmaps", "", "",
                  {{"watch", "true"}, {"allowWatchBookmarks", "true"}});
  REQUIRE(w.stream);
  std::string first = *w.stream->next(std::chrono::milliseconds(100));
  CHECK(first.rfind("{\"type\":\"ADDED\",\"object\":{", 0) == 0);
  CHECK(first.find("\n{\"type\":\"BOOKMARK\"") != std::string::npos);
  f.cluster.store().compact();
  auto expired =
      f.call("GET", "/api/v1/namespaces/default/configmaps", "", "", {{"watch", "1"}, {"resourceVersion", "1"}});
  REQUIRE(expired.status == 200);
  std::string line = *expired.stream->next(std::chrono::milliseconds(10));
  Value event = model::parse_json(line);
  CHECK(field(event, "type") == "ERROR");
  CHECK(field(event, "object.code") == "410");
  CHECK(field(event, "object.reason") == "Expired");
  CHECK_FALSE(expired.stream->next(std::chrono::milliseconds(10)).has_value());
  auto timed = f.call("GET", "/api/v1/configmaps", "", "", {{"watch", "true"}, {"timeoutSeconds", "0"}});
  CHECK_FALSE(timed.stream->next(std::chrono::milliseconds(10)).has_value());
}

TEST_CASE("custom resources get schema defaults and value constraints", "[k8s][api][crd]") {
  ApiFixture f;
  load_manifests(f.cluster, {testutil::reference_path("crds")});
  std::string base = "/apis/monitoring.coreos.com/v1/namespaces/default/servicemonitors";
  auto ok = f.call("POST", base,
                   R"({"metadata":{"name":"sm"},"spec":{"selector":{},"endpoints":[{"port":"web","interval":"30s",
                       "relabelings":[{"sourceLabels":["__name__"],"targetLabel":"x"}]}]}})");
  REQUIRE(ok.status == 201);
  Value created = f.json(ok);
  const Value& relabel = created.find("spec")->find("endpoints")->as_array()[0].find("relabelings")->as_array()[0];
  CHECK(field(relabel, "action") == "replace");  // the CRD's default
  auto bad = f.call("POST", base,
                    R"({"metadata":{"name":"bad"},"spec":{"selector":{},"endpoints":[{"interval":"30 seconds",
                        "scheme":"ftp"}]}})");
  REQUIRE(bad.status == 422);
  std::string message = field(f.json(bad), "message");
  CHECK(message.find("spec.endpoints[0].interval: Invalid value: \"30 seconds\": spec.endpoints[0].interval in body "
                     "should match") != std::string::npos);
  CHECK(message.find("spec.endpoints[0].scheme: Unsupported value: \"ftp\": supported values: \"http\", \"https\"") !=
        std::string::npos);
  CHECK(f.json(bad).find("details")->find("causes")->size() == 2);
}

TEST_CASE("boolean query parameters decode as the API server decodes them", "[k8s][api][watch]") {
  ApiFixture f;
  auto q = [](const char* v) { return std::multimap<std::string, std::string>{{"watch", v}}; };
  // Absent, "0" and any case of "false" are false: a list.
  for (const char* v : {"0", "false", "False", "FALSE"}) {
    INFO(v);
    HttpResponse r = f.call("GET", "/api/v1/namespaces/default/configmaps", "", "application/json", q(v));
    CHECK(r.status == 200);
    CHECK(field(f.json(r), "kind") == "ConfigMapList");
  }
  // Everything else is true (the Python client sends "True").
  for (const char* v : {"True", "true", "1", "t", "yes", ""}) {
    INFO(v);
    HttpRequest req{"GET", "/api/v1/namespaces/default/configmaps", q(v), "application/json", "", ""};
    CHECK(req.flag("watch"));
  }
  HttpRequest none{"GET", "/", {}, "application/json", "", ""};
  CHECK_FALSE(none.flag("watch"));
}
