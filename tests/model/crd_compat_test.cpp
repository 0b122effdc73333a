// The CRDs we ship (deploy/crds, ours, and deploy/prometheus-operator-crds,
// upstream's current ones) must accept everything the upstream CRDs in
// ../shared/reference/crds accept, and every example manifest must validate
// against them (a small structural validator: types, required, enums,
// unknown fields unless preserved). Our own schemas describe every field,
// so `kubectl explain` has something to say.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/value.hpp"

using model::Value;

using testutil::yaml_files;

namespace {

std::string str(const Value* v) {
  return v && v->is_string() ? v->as_string() : "";
}

bool flag(const Value& schema, const char* key) {
  const Value* v = schema.find(key);
  return v && v->is_bool() && v->as_bool();
}

bool int_or_string(const Value& s) {
  return flag(s, "x-kubernetes-int-or-string");
}

struct Crd {
  std::string group, kind, version;
  Value schema;
  Value spec;
};

// CRDs of a directory, keyed by metadata.name.
std::map<std::string, Crd> load_crds(const std::string& dir) {
  std::map<std::string, Crd> out;
  for (const auto& file : yaml_files(dir))
    for (auto& doc : model::parse_documents(testutil::read_text(file), file)) {
      if (str(doc.value.find("kind")) != "CustomResourceDefinition") continue;
      const Value& spec = *doc.value.find("spec");
      const Value& version = spec.find("versions")->as_array().at(0);
      Crd crd;
      crd.group = str(spec.find("group"));
      crd.kind = str(spec.find("names")->find("kind"));
      crd.version = str(version.find("name"));
      crd.schema = *version.find("schema")->find("openAPIV3Schema");
      crd.spec = spec;
      out[str(doc.value.find("metadata")->find("name"))] = crd;
    }
  return out;
}

std::vector<std::string> strings_of(const Value* list) {
  std::vector<std::string> out;
  if (list && list->is_array())
    for (const Value& v : list->as_array()) out.push_back(v.is_string() ? v.as_string() : "");
  return out;
}

// Whether a schema of type `ours` accepts every value of type `up`.
bool type_accepts(const Value& ours, const Value& up) {
  if (int_or_string(ours))
    return int_or_string(up) || str(up.find("type")) == "integer" || str(up.find("type")) == "string";
  std::string o = str(ours.find("type"));
  if (o.empty()) return true;
  if (int_or_string(up)) return false;
  std::string u = str(up.find("type"));
  return o == u || (o == "number" && u == "integer");
}

struct Compat {
  std::vector<std::string> problems;
  std::size_t paths = 0;

  void walk(const Value& up, const Value& ours, const std::string& path) {
    ++paths;
    if (!type_accepts(ours, up))
      problems.push_back(path + ": type " + str(ours.find("type")) + " does not accept upstream " +
                         str(up.find("type")));
    if (const Value* e = ours.find("enum")) {
      const Value* ue = up.find("enum");
      if (!ue)
        problems.push_back(path + ": enum where upstream has none");
      else
        for (const Value& v : ue->as_array())
          if (std::find(e->as_array().begin(), e->as_array().end(), v) == e->as_array().end())
            problems.push_back(path + ": enum misses an upstream value");
    }
    if (const Value* p = ours.find("pattern"))
      if (!up.find("pattern") || *up.find("pattern") != *p)
        problems.push_back(path + ": pattern stricter than upstream");
    auto up_required = strings_of(up.find("required"));
    for (const auto& r : strings_of(ours.find("required")))
      if (std::find(up_required.begin(), up_required.end(), r) == up_required.end())
        problems.push_back(path + ": requires " + r + " which upstream does not");
    if (flag(ours, "x-kubernetes-preserve-unknown-fields")) return;  // everything below is accepted
    if (flag(up, "x-kubernetes-preserve-unknown-fields"))
      problems.push_back(path + ": upstream preserves unknown fields");

    const Value* up_props = up.find("properties");
    const Value* our_props = ours.find("properties");
    const Value* our_extra = ours.find("additionalProperties");
    if (up_props)
      for (const auto& [name, sub] : up_props->as_object()) {
        const Value* mine = our_props ? our_props->find(name) : nullptr;
        if (!mine && our_extra && our_extra->is_object()) mine = our_extra;
        if (!mine) {
          if (path == "" && name == "metadata") continue;
          problems.push_back(path + "." + name + ": not accepted");
          continue;
        }
        if (path == "" && name == "metadata") continue;  // the server owns metadata's schema
        walk(sub, *mine, path + "." + name);
      }
    if (const Value* extra = up.find("additionalProperties"); extra && extra->is_object()) {
      if (our_extra && our_extra->is_object())
        walk(*extra, *our_extra, path + ".*");
      else if (!(our_extra && our_extra->is_bool() && our_extra->as_bool()))
        problems.push_back(path + ".*: map values not accepted");
    }
    if (const Value* items = up.find("items")) {
      if (const Value* mine = ours.find("items"))
        walk(*items, *mine, path + "[]");
      else if (str(ours.find("type")) == "array")
        problems.push_back(path + "[]: no item schema");
    }
    if (const Value* any = up.find("anyOf"))
      for (const Value& alt : any->as_array())
        if (!type_accepts(ours, alt)) problems.push_back(path + ": anyOf alternative not accepted");
  }
};

bool value_has_type(const Value& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_int();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_bool();
  return true;
}

// Structural validation of `v` against `schema`; problems are appended to `out`.
void validate(const Value& v, const Value& schema, const std::string& path, std::vector<std::string>& out) {
  if (int_or_string(schema)) {
    if (!v.is_int() && !v.is_string()) out.push_back(path + ": want int or string");
    return;
  }
  std::string type = str(schema.find("type"));
  if (!type.empty() && !value_has_type(v, type)) {
    out.push_back(path + ": want " + type);
    return;
  }
  if (const Value* e = schema.find("enum"))
    if (std::find(e->as_array().begin(), e->as_array().end(), v) == e->as_array().end())
      out.push_back(path + ": value not in enum");
  if (v.is_object()) {
    for (const auto& r : strings_of(schema.find("required")))
      if (!v.find(r)) out.push_back(path + ": missing required " + r);
    const Value* props = schema.find("properties");
    const Value* extra = schema.find("additionalProperties");
    bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    for (const auto& [name, sub] : v.as_object()) {
      const Value* s = props ? props->find(name) : nullptr;
      if (!s && extra && extra->is_object()) s = extra;
      if (s) {
        if (!(path.empty() && name == "metadata")) validate(sub, *s, path + "." + name, out);
      } else if (!preserve && !(extra && extra->is_bool() && extra->as_bool())) {
        out.push_back(path + "." + name + ": unknown field");
      }
    }
  } else if (v.is_array()) {
    if (const Value* items = schema.find("items"))
      for (std::size_t i = 0; i < v.as_array().size(); ++i)
        validate(v.as_array()[i], *items, path + "[" + std::to_string(i) + "]", out);
  }
}

// Everything deploy/ installs: our CRDs and prometheus-operator's.
const std::map<std::string, Crd>& ours() {
  static const auto crds = [] {
    auto all = load_crds(testutil::source_path("deploy/crds"));
    all.merge(load_crds(testutil::source_path("deploy/prometheus-operator-crds")));
    return all;
  }();
  return crds;
}

const Crd* crd_for(const Value& obj) {
  std::string api = str(obj.find("apiVersion")), kind = str(obj.find("kind"));
  for (const auto& [name, crd] : ours())
    if (crd.kind == kind && api == crd.group + "/" + crd.version) return &crd;
  return nullptr;
}

std::vector<std::string> validate_object(const std::string& yaml) {
  auto docs = model::parse_documents(yaml, "<test>");
  REQUIRE(docs.size() == 1);
  const Crd* crd = crd_for(docs[0].value);
  REQUIRE(crd);
  std::vector<std::string> problems;
  validate(docs[0].value, crd->schema, "", problems);
  return problems;
}

}  // namespace

TEST_CASE("the shipped CRDs define every upstream kind with the same names and scope", "[crd]") {
  auto upstream = load_crds(testutil::reference_path("crds"));
  REQUIRE(upstream.size() == 8);
  // Plus the two kinds upstream never shipped (issue 14's design 2) and
  // prometheus-operator's ScrapeConfig, which only the target allocator reads.
  REQUIRE(ours().size() == upstream.size() + 3);
  for (const char* extra : {"metricsintegrations.monitoring.grafana.com", "integrationmonitors.monitoring.grafana.com",
                            "scrapeconfigs.monitoring.coreos.com"})
    CHECK(ours().count(extra) == 1);
  for (const auto& [name, up] : upstream) {
    INFO(name);
    REQUIRE(ours().count(name) == 1);
    const Crd& mine = ours().at(name);
    CHECK(mine.group == up.group);
    CHECK(mine.kind == up.kind);
    CHECK(mine.version == up.version);
    CHECK(*mine.spec.find("scope") == *up.spec.find("scope"));
    for (const char* key : {"plural", "singular", "listKind"})
      CHECK(*mine.spec.find("names")->find(key) == *up.spec.find("names")->find(key));
    if (mine.group == "monitoring.grafana.com")
      CHECK(strings_of(mine.spec.find("names")->find("categories")) == std::vector<std::string>{"agent-operator"});
  }
}

// Where prometheus-operator's current CRDs (deploy/prometheus-operator-crds,
// shipped unchanged) are stricter than the versions the Grafana Agent
// Operator's reference CRDs were taken from: from v0.82 to v0.92 upstream
// added URL patterns to proxyUrl (http, https or socks5) and
// oauth2.tokenUrl (http or https). A cluster running prometheus-operator
// enforces the same.
const std::map<std::string, std::set<std::string>> kUpstreamTightenings = {
    {"servicemonitors.monitoring.coreos.com",
     {".spec.endpoints[].oauth2.tokenUrl: pattern stricter than upstream",
      ".spec.endpoints[].proxyUrl: pattern stricter than upstream"}},
    {"podmonitors.monitoring.coreos.com",
     {".spec.podMetricsEndpoints[].oauth2.tokenUrl: pattern stricter than upstream",
      ".spec.podMetricsEndpoints[].proxyUrl: pattern stricter than upstream"}},
    {"probes.monitoring.coreos.com",
     {".spec.oauth2.tokenUrl: pattern stricter than upstream",
      ".spec.prober.proxyUrl: pattern stricter than upstream"}},
};

TEST_CASE("the shipped CRDs accept every field path of the upstream schemas", "[crd]") {
  auto upstream = load_crds(testutil::reference_path("crds"));
  std::size_t total = 0;
  for (const auto& [name, up] : upstream) {
    INFO(name);
    REQUIRE(ours().count(name) == 1);
    Compat c;
    c.walk(up.schema, ours().at(name).schema, "");
    std::set<std::string> known;
    if (auto it = kUpstreamTightenings.find(name); it != kUpstreamTightenings.end()) known = it->second;
    std::set<std::string> found(c.problems.begin(), c.problems.end());
    for (const auto& p : found)
      if (!known.count(p)) FAIL_CHECK(p);
    CHECK(found == known);
    CHECK(c.paths > 10);
    total += c.paths;
  }
  CHECK(total > 1000);
}

TEST_CASE("the GrafanaAgent CRD has a status subresource and a status schema", "[crd]") {
  const Crd& ga = ours().at("grafanaagents.monitoring.grafana.com");
  const Value& version = ga.spec.find("versions")->as_array().at(0);
  REQUIRE(version.find("subresources"));
  CHECK(version.find("subresources")->find("status"));
  CHECK(version.find("additionalPrinterColumns"));
  auto problems = validate_object(R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a}
spec: {}
status:
  observedGeneration: 3
  conditions:
  - {type: Reconciled, status: "True", reason: Synced, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Ready, status: "False", reason: Pending}
  counts: {metricsInstances: 1, serviceMonitors: 4, podLogs: 0, integrations: 2}
  problems:
  - {kind: ServiceMonitor, namespace: default, name: sm, reason: MissingSecret, message: secret x not found}
)");
  for (const auto& p : problems) FAIL_CHECK(p);
  CHECK(!validate_object("apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: a}\n"
                         "status:\n  conditions:\n  - {type: Ready, status: Maybe}\n")
             .empty());
}

namespace {

// Field paths under `schema` without a description (the fields inside
// preserve-unknown-fields objects are not declared, so not counted).
void undescribed(const Value& schema, const std::string& path, std::vector<std::string>& out, std::size_t& fields) {
  if (const Value* props = schema.find("properties"); props && props->is_object())
    for (const auto& [name, sub] : props->as_object()) {
      ++fields;
      if (str(sub.find("description")).empty()) out.push_back(path + "." + name);
      undescribed(sub, path + "." + name, out, fields);
    }
  if (const Value* items = schema.find("items"); items && items->is_object())
    undescribed(*items, path + "[]", out, fields);
  if (const Value* extra = schema.find("additionalProperties"); extra && extra->is_object())
    undescribed(*extra, path + "{}", out, fields);
}

}  // namespace

// `kubectl explain grafanaagent.spec.metrics` prints these (a real API
// server and simcluster publish them through /openapi/v3).
TEST_CASE("our CRDs describe every field they declare", "[crd]") {
  auto crds = load_crds(testutil::source_path("deploy/crds"));
  REQUIRE(crds.size() == 7);
  std::size_t fields = 0;
  for (const auto& [name, crd] : crds) {
    INFO(name);
    CHECK(!str(crd.schema.find("description")).empty());
    std::vector<std::string> missing;
    undescribed(crd.schema, crd.kind, missing, fields);
    for (const auto& path : missing) FAIL_CHECK(path << ": no description");
  }
  CHECK(fields > 700);
}

TEST_CASE("every example manifest validates against the shipped CRDs", "[crd]") {
  std::vector<std::string> files = yaml_files(testutil::reference_path("examples"));
  for (const auto& f : yaml_files(testutil::source_path("deploy/examples"))) files.push_back(f);
  std::size_t validated = 0;
  for (const auto& file : files)
    for (auto& doc : model::parse_documents(testutil::read_text(file), file)) {
      if (!doc.value.is_object()) continue;
      const Crd* crd = crd_for(doc.value);
      if (!crd) continue;
      INFO(file << ":" << doc.line << " " << crd->kind);
      std::vector<std::string> problems;
      validate(doc.value, crd->schema, "", problems);
      for (const auto& p : problems) FAIL_CHECK(p);
      ++validated;
    }
  CHECK(validated > 10);
}

TEST_CASE("the structural validator rejects wrong types and unknown or missing fields", "[crd]") {
  CHECK(validate_object("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: a}\n"
                        "spec: {selector: {}, endpoints: [{port: web}]}\n")
            .empty());
  CHECK(!validate_object("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: a}\n").empty());
  CHECK(!validate_object("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: a}\n"
                         "spec: {selector: {}, bogus: 1}\n")
             .empty());
  CHECK(!validate_object("apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: a}\n"
                         "spec: {metrics: {replicas: many}}\n")
             .empty());
  CHECK(validate_object("apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: a}\n"
                        "spec: {containers: [{name: x, anything: {goes: here}}]}\n")
            .empty());
}

// The field names the model decodes must be the CRDs' own: a misspelt one
// would be pruned by the API server and silently never reach the decoder.
TEST_CASE("the fields the ScrapeConfig and scrapeClass decoders read are in the shipped CRDs", "[crd]") {
  auto problems = validate_object(R"(apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: s, namespace: ns}
spec:
  jobName: j
  metricsPath: /m
  scrapeInterval: 30s
  scrapeTimeout: 10s
  scheme: HTTPS
  scrapeProtocols: [PrometheusProto]
  fallbackScrapeProtocol: PrometheusText0.0.4
  honorTimestamps: false
  trackTimestampsStaleness: true
  honorLabels: true
  enableCompression: false
  enableHTTP2: false
  params: {module: [a]}
  basicAuth: {username: {name: c, key: u}, password: {name: c, key: p}}
  tlsConfig: {ca: {secret: {name: c, key: ca}}, cert: {secret: {name: c, key: crt}}, keySecret: {name: c, key: k},
              serverName: s, insecureSkipVerify: true}
  proxyUrl: http://proxy:3128
  noProxy: localhost
  proxyConnectHeader: {X-A: [{name: c, key: p}]}
  sampleLimit: 1
  targetLimit: 1
  labelLimit: 1
  labelNameLengthLimit: 1
  labelValueLengthLimit: 1
  keepDroppedTargets: 1
  bodySizeLimit: 10MiB
  scrapeNativeHistograms: true
  nativeHistogramBucketLimit: 1
  nativeHistogramMinBucketFactor: "1.1"
  scrapeClassicHistograms: true
  convertClassicHistogramsToNHCB: true
  nameValidationScheme: Legacy
  nameEscapingScheme: Underscores
  scrapeClass: c
  relabelings: [{sourceLabels: [a], targetLabel: b}]
  metricRelabelings: [{sourceLabels: [a], action: drop}]
  staticConfigs: [{targets: [a:1], labels: {a: b}}]
  fileSDConfigs: [{files: [/f.json], refreshInterval: 1m}]
  httpSDConfigs:
  - url: https://sd
    refreshInterval: 1m
    authorization: {type: Bearer, credentials: {name: c, key: t}}
    tlsConfig: {serverName: s}
    proxyUrl: http://p:1
    followRedirects: true
    enableHTTP2: true
  - url: https://sd2
    basicAuth: {username: {name: c, key: u}}
  - url: https://sd3
    oauth2: {clientId: {secret: {name: c, key: i}}, clientSecret: {name: c, key: s}, tokenUrl: https://t}
  kubernetesSDConfigs:
  - role: Endpoints
    apiServer: https://api
    namespaces: {names: [a], ownNamespace: false}
    attachMetadata: {node: true}
    selectors: [{role: Pod, label: a=b, field: c=d}]
    authorization: {credentials: {name: c, key: t}}
    tlsConfig: {serverName: s}
    noProxy: x
    followRedirects: true
    enableHTTP2: true
)");
  for (const auto& p : problems) FAIL_CHECK(p);
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe"}) {
    INFO(kind);
    auto monitor = validate_object(std::string("apiVersion: monitoring.coreos.com/v1\nkind: ") + kind +
                                   "\nmetadata: {name: a}\nspec: {scrapeClass: c, fallbackScrapeProtocol: "
                                   "PrometheusProto}\n");
    for (const auto& p : monitor)
      if (p.find("scrapeClass") != std::string::npos || p.find("fallbackScrapeProtocol") != std::string::npos)
        FAIL_CHECK(p);
  }
}
