// Every field of prometheus-operator's CRDs as we ship them
// (deploy/prometheus-operator-crds), taken from their openAPIV3Schema, is
// read by the model's decoder, and setting it either changes the rendered
// scrape jobs or raises a warning naming it, never neither: for the
// Grafana Agent, for --upstream-compat and for the target allocator
// (prometheus-operator's rendering). A CRD update that adds a field fails
// here until the field is rendered or reported. The agent's warnings are
// the table in docs/differences.md.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "crd_fields.hpp"
#include "golden_util.hpp"
#include "model/assets.hpp"
#include "model/monitors.hpp"
#include "model/parse.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape_config.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

using crdfields::Field;
using model::Value;

namespace {

enum class Target { agent, compat, allocator };

const char* target_name(Target t) {
  return t == Target::agent ? "the Grafana Agent" : t == Target::compat ? "--upstream-compat" : "the target allocator";
}

// The GrafanaAgent and MetricsInstance that select every monitor, and the
// Secrets and ConfigMaps the samples reference (creds/creds2, keys k/k2,
// all values different).
const std::string kFixture = testutil::metrics_agent_yaml("mon", "{instanceSelector: {}}") +
                             testutil::select_all_instance_yaml("name: primary, namespace: mon") + R"(
---
{apiVersion: v1, kind: Secret, metadata: {name: creds, namespace: app}, stringData: {k: s1, k2: s2}}
---
{apiVersion: v1, kind: Secret, metadata: {name: creds2, namespace: app}, stringData: {k: s3, k2: s4}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: creds, namespace: app}, data: {k: c1, k2: c2}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: creds2, namespace: app}, data: {k: c3, k2: c4}}
)";

Value manifest(const std::string& yaml) {
  return model::parse_documents(yaml, "<base>").at(0).value;
}

// The smallest valid object of each kind the field can live in.
Value base_object(const Field& f) {
  const std::string head = "metadata: {name: m, namespace: app}, ";
  if (f.kind == "ServiceMonitor")
    return manifest("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, " + head +
                    "spec: {selector: {}, endpoints: [{}]}}");
  if (f.kind == "PodMonitor")
    return manifest("{apiVersion: monitoring.coreos.com/v1, kind: PodMonitor, " + head +
                    "spec: {selector: {}, podMetricsEndpoints: [{}]}}");
  if (f.kind == "ScrapeConfig")
    return manifest("{apiVersion: monitoring.coreos.com/v1alpha1, kind: ScrapeConfig, " + head +
                    "spec: {staticConfigs: [{targets: ['base.example:80']}]}}");
  // Static targets win over ingress ones, so ingress fields need a Probe without.
  const std::string targets =
      f.generic().starts_with("spec.targets.ingress") ? "{ingress: {}}" : "{staticConfig: {static: [base:80]}}";
  return manifest("{apiVersion: monitoring.coreos.com/v1, kind: Probe, " + head +
                  "spec: {prober: {url: 'base.example:9115'}, targets: " + targets + "}}");
}

struct Outcome {
  Value jobs;
  std::vector<model::Problem> problems;  // of the object only
  bool has_errors() const { return model::has_errors(problems); }
};

Outcome render_allocator(const std::string& kind, const Value& object, model::Inventory& inv) {
  model::GrafanaAgent agent;
  model::RenderOptions options;
  options.inline_tls = true;
  const Value sd_fields = Value::object();
  model::ScrapeClasses classes;
  // A class the samples can name, which changes the job when used.
  classes.classes.push_back(
      model::ScrapeClass{.name = "x", .relabelings = {{.target_label = "class", .replacement = "x"}}});
  const model::scrape::PromOperatorSettings settings{classes, "prometheus_cr.deny_fs_access_through_sms"};
  const model::scrape::JobContext ctx{agent, options, 1, sd_fields, &settings};
  model::AssetRefs assets(inv);
  Outcome out;
  model::FieldErrors decode;
  const model::Key key{"app", "m"};
  if (kind == "ScrapeConfig") {
    auto sc = model::decode_scrape_config(object, decode);
    if (decode.empty()) out.jobs = model::scrape::scrape_config_job(ctx, sc, assets);
  } else if (kind == "ServiceMonitor") {
    out.jobs = model::scrape::service_monitor_jobs(ctx, *inv.service_monitors.at(key).decoded, assets);
  } else if (kind == "PodMonitor") {
    out.jobs = model::scrape::pod_monitor_jobs(ctx, *inv.pod_monitors.at(key).decoded, assets);
  } else {
    out.jobs = model::scrape::probe_job(ctx, *inv.probes.at(key).decoded, assets);
  }
  for (const auto& e : decode) out.problems.push_back({kind, "app", "m", e.path, e.message});
  for (const auto& e : assets.errors) out.problems.push_back({kind, "app", "m", e.path, e.message});
  for (const auto& w : assets.warnings) out.problems.push_back({kind, "app", "m", w.path, w.message, true});
  return out;
}

Outcome render(Target t, const std::string& kind, const Value& object) {
  static const model::Inventory fixture = testutil::inventory_from_yaml(kFixture);
  model::Inventory inv = fixture;
  inv.add(object);
  Outcome out;
  for (const auto& p : inv.problems())
    if (p.kind == kind) out.problems.push_back(p);
  if (!out.problems.empty()) return out;
  if (t == Target::allocator) return render_allocator(kind, object, inv);
  testutil::ConfigRender r = testutil::render_metrics(inv, t == Target::compat);
  for (const auto& p : r.problems)
    if (p.kind == kind) out.problems.push_back(p);
  if (const Value* m = r.config.find("metrics"))
    if (const Value* c = m->find("configs"); c && c->size() > 0)
      if (const Value* jobs = c->as_array()[0].find("scrape_configs")) out.jobs = *jobs;
  return out;
}

enum class Verdict { rendered, warned, silent };

struct Result {
  Verdict verdict = Verdict::silent;
  std::vector<std::string> warnings;  // messages naming the field
  std::vector<std::string> rejected;  // why samples were refused
};

bool is_reference_optional(const Field& f) {
  if (f.name() != "optional" || f.steps.size() < 2) return false;
  const Value* props = f.steps[f.steps.size() - 2].schema->find("properties");
  return props && props->find("name") && props->find("key");
}

// An `optional` reference only matters when its target is missing: then
// it must turn the error into something else.
Result judge_optional(Target t, const Field& f) {
  Value object = crdfields::with_containers(base_object(f), f);
  crdfields::point_at_missing(object, f);
  Outcome required = render(t, f.kind, object);
  crdfields::set_leaf(object, f, Value(true));
  Outcome optional = render(t, f.kind, object);
  Result r;
  for (const auto& p : optional.problems)
    if (p.warning && f.within(p.path)) r.warnings.push_back(p.message);
  if (!r.warnings.empty())
    r.verdict = Verdict::warned;
  else if (optional.problems != required.problems || optional.jobs != required.jobs)
    r.verdict = Verdict::rendered;
  return r;
}

Result judge(Target t, const Field& f) {
  if (is_reference_optional(f)) return judge_optional(t, f);
  const Value object = crdfields::with_containers(base_object(f), f);
  const Outcome base = render(t, f.kind, object);
  Result r;
  for (const auto& p : base.problems)
    if (!p.warning) r.rejected.push_back("baseline: " + p.str());
  if (!r.rejected.empty()) return r;
  const Value* before = crdfields::leaf(object, f);
  std::size_t tried = 0;
  for (const Value& v : crdfields::candidates(f)) {
    if (before && *before == v) continue;
    ++tried;
    Value changed = object;
    crdfields::set_leaf(changed, f, v);
    Outcome o = render(t, f.kind, changed);
    if (o.has_errors()) {
      for (const auto& p : o.problems) r.rejected.push_back(model::to_json(v) + ": " + p.str());
      continue;
    }
    for (const auto& p : o.problems)
      if (p.warning && f.within(p.path)) r.warnings.push_back(p.message);
    if (!r.warnings.empty()) {
      r.verdict = Verdict::warned;
      return r;
    }
    if (o.jobs != base.jobs) r.verdict = Verdict::rendered;
  }
  if (tried == 0) r.rejected.push_back("every sample equals the baseline; add another in crd_fields.cpp");
  return r;
}

// A top-level *SDConfigs field that the ScrapeConfig decoder refuses whole
// (service discovery the target allocator cannot run): an error there,
// naming the field, instead of reading its fields.
bool refused_sd(const std::string& field) {
  if (!field.ends_with("SDConfigs")) return false;
  Value object = manifest(
      "{apiVersion: monitoring.coreos.com/v1alpha1, kind: ScrapeConfig, "
      "metadata: {name: m, namespace: app}, spec: {}}");
  object.find("spec")->set(field, Value::arr({Value::object()}));
  model::FieldErrors errors;
  model::decode_scrape_config(object, errors);
  return std::any_of(errors.begin(), errors.end(), [&](const model::FieldError& e) {
    return e.path == "spec." + field && e.message.find("not supported") != std::string::npos;
  });
}

// The fields to render: ScrapeConfig's refused SD kinds are not.
std::vector<Field> fields_of(const std::string& kind) {
  std::vector<Field> out;
  std::map<std::string, bool> refused;
  for (Field& f : crdfields::leaf_fields(kind)) {
    const std::string& top = f.steps.at(1).name;
    if (kind == "ScrapeConfig" && !refused.count(top)) refused[top] = refused_sd(top);
    if (kind == "ScrapeConfig" && refused[top]) continue;
    out.push_back(std::move(f));
  }
  return out;
}

// Verdicts of every field of the four kinds for `t` (ScrapeConfig only
// for the target allocator: the operator does not read the kind).
const std::map<std::pair<std::string, std::string>, Result>& results(Target t) {
  static std::map<Target, std::map<std::pair<std::string, std::string>, Result>> cache;
  auto [it, fresh] = cache.try_emplace(t);
  if (!fresh) return it->second;
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig"}) {
    if (std::string(kind) == "ScrapeConfig" && t != Target::allocator) continue;
    for (const Field& f : fields_of(kind)) it->second[{kind, f.generic()}] = judge(t, f);
  }
  return it->second;
}

void check_no_silent_field(Target t) {
  std::size_t rendered = 0, warned = 0;
  for (const auto& [field, r] : results(t)) {
    if (r.verdict == Verdict::silent) {
      std::string why;
      for (const auto& w : r.rejected) why += "\n  refused " + w;
      FAIL_CHECK(target_name(t) << ": " << field.first << " " << field.second
                                << ": setting it changes no job and raises no warning naming it" << why);
    }
    rendered += r.verdict == Verdict::rendered;
    warned += r.verdict == Verdict::warned;
  }
  CHECK(rendered > 100);
  UNSCOPED_INFO(target_name(t) << ": " << rendered << " fields rendered, " << warned << " reported");
  CHECK(rendered + warned == results(t).size());
}

}  // namespace

TEST_CASE("the model decodes every field of the shipped prometheus-operator CRDs", "[crd][decode]") {
  std::size_t fields = 0, refused = 0;
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig"}) {
    std::set<std::string> refused_kinds;
    for (const Field& f : crdfields::leaf_fields(kind)) {
      INFO(kind << " " << f.generic());
      const std::string& top = f.steps.at(1).name;
      if (std::string(kind) == "ScrapeConfig" && (refused_kinds.count(top) || refused_sd(top))) {
        refused_kinds.insert(top);
        ++refused;
        continue;
      }
      Value object = crdfields::with_containers(base_object(f), f);
      crdfields::set_leaf(object, f, crdfields::candidates(f).front());
      model::FieldLookupLog log;
      model::Inventory inv;
      if (std::string(kind) == "ScrapeConfig") {
        model::FieldErrors errors;
        model::decode_scrape_config(object, errors);
      } else {
        inv.add(object);
      }
      for (const auto& path : f.property_paths())
        if (!log.contains(path)) FAIL_CHECK(path << " is never read by the decoder");
      ++fields;
    }
  }
  CHECK(fields > 600);
  CHECK(refused > 1000);  // ScrapeConfig's service discovery other than static, file, http and kubernetes
}

TEST_CASE("every CRD field is rendered or reported for the Grafana Agent", "[crd][metrics]") {
  check_no_silent_field(Target::agent);
}

TEST_CASE("every CRD field is rendered or reported with upstream compat", "[crd][metrics]") {
  check_no_silent_field(Target::compat);
}

TEST_CASE("every CRD field is rendered or reported for the target allocator", "[crd][metrics]") {
  check_no_silent_field(Target::allocator);
  // Its collectors run Prometheus 3, which takes every field.
  for (const auto& [field, r] : results(Target::allocator)) {
    INFO(field.first << " " << field.second);
    CHECK(r.verdict != Verdict::warned);
  }
}

TEST_CASE("docs/differences.md lists exactly the fields the Grafana Agent cannot honour", "[crd][docs]") {
  std::set<std::pair<std::string, std::string>> warned;
  for (const auto& [field, r] : results(Target::agent))
    if (r.verdict == Verdict::warned) warned.insert(field);
  // The table after the marker: | Kinds | `field` | why |
  const std::string doc = testutil::read_text(testutil::source_path("docs/differences.md"));
  const std::string marker = "<!-- unhonoured fields: checked by tests/model/crd_fields_test.cpp -->";
  auto start = doc.find(marker);
  REQUIRE(start != std::string::npos);
  std::set<std::pair<std::string, std::string>> listed;
  std::size_t pos = doc.find('\n', start) + 1;
  while (pos < doc.size() && doc[pos] == '|') {
    std::size_t end = doc.find('\n', pos);
    std::string row = doc.substr(pos, end - pos);
    pos = end + 1;
    auto tick = row.find('`'), tick2 = row.find('`', tick + 1);
    if (tick == std::string::npos) continue;  // the header rows
    std::string field = row.substr(tick + 1, tick2 - tick - 1);
    std::string kinds = row.substr(2, row.find('|', 1) - 3);
    for (std::size_t k = 0; k < kinds.size();) {
      std::size_t comma = kinds.find(", ", k);
      listed.emplace(kinds.substr(k, comma - k), field);
      k = comma == std::string::npos ? kinds.size() : comma + 2;
    }
  }
  for (const auto& f : warned)
    if (!listed.count(f)) FAIL_CHECK("not in the table: " << f.first << " " << f.second);
  for (const auto& f : listed)
    if (!warned.count(f)) FAIL_CHECK("in the table but rendered: " << f.first << " " << f.second);
  CHECK(!warned.empty());
}
