// Unit tests of the scrape-job building blocks: Prometheus durations,
// regexp quoting, selector rules in both forms, relabel rules, limits and
// the sharding pair, TLS material as files or inline PEM.
#include <catch2/catch.hpp>

#include <re2/re2.h>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/scrape/common.hpp"

using model::Value;
namespace scrape = model::scrape;
using testutil::yaml;

namespace {

Value selector_rules(const model::LabelSelector& sel, bool compat) {
  Value rules = Value::array();
  scrape::append_selector_rules(rules, sel, "__meta_kubernetes_pod_", compat);
  return rules;
}

}  // namespace

TEST_CASE("Prometheus durations", "[metrics]") {
  CHECK(scrape::parse_duration("0") == 0);
  CHECK(scrape::parse_duration("15s") == 15000);
  CHECK(scrape::parse_duration("1m30s") == 90000);
  CHECK(scrape::parse_duration("1h30m") == 5400000);
  CHECK(scrape::parse_duration("250ms") == 250);
  CHECK(scrape::parse_duration("1m500ms") == 60500);
  CHECK(scrape::parse_duration("2d") == 2 * 86400000LL);
  CHECK(scrape::parse_duration("1y1w") == (365 + 7) * 86400000LL);
  for (const char* bad : {"", "s", "10", "1.5s", "30s1m", "1m1m", "10 s", "-1s", "1ms1s", "99999999999999999999y"})
    CHECK_FALSE(scrape::parse_duration(bad).has_value());
}

TEST_CASE("label values are quoted as Go regexp literals", "[metrics]") {
  CHECK(scrape::quote_regexp("web.v1") == "web\\.v1");
  CHECK(scrape::quote_regexp("a+b*(c)|[d]{e}^$?\\") == "a\\+b\\*\\(c\\)\\|\\[d\\]\\{e\\}\\^\\$\\?\\\\");
  CHECK(scrape::quote_regexp("plain-value_1/x") == "plain-value_1/x");
  // The quoted value matches exactly itself.
  for (const char* v : {"web.v1", "a+b", "(x)|y", "1.2.3", "^$"}) {
    RE2 re("^(?:" + scrape::quote_regexp(v) + ")$");
    CHECK(RE2::FullMatch(v, re));
    CHECK_FALSE(RE2::FullMatch(std::string(v) + "x", re));
  }
}

TEST_CASE("selector rules in the default and the upstream form", "[metrics]") {
  model::LabelSelector sel;
  sel.match_labels = {{"tier", "web.v1"}, {"app.kubernetes.io/name", "api"}};
  sel.match_expressions = {{"env", "In", {"prod", "pre.prod"}},
                           {"track", "NotIn", {"canary"}},
                           {"team", "Exists", {}},
                           {"legacy", "DoesNotExist", {}}};
  CHECK(selector_rules(sel, false) == yaml(R"(
- {action: keep, regex: (api);true, source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name, __meta_kubernetes_pod_labelpresent_app_kubernetes_io_name]}
- {action: keep, regex: '(web\.v1);true', source_labels: [__meta_kubernetes_pod_label_tier, __meta_kubernetes_pod_labelpresent_tier]}
- {action: keep, regex: '(prod|pre\.prod);true', source_labels: [__meta_kubernetes_pod_label_env, __meta_kubernetes_pod_labelpresent_env]}
- {action: drop, regex: (canary);true, source_labels: [__meta_kubernetes_pod_label_track, __meta_kubernetes_pod_labelpresent_track]}
- {action: keep, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_team]}
- {action: drop, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_legacy]}
)"));
  CHECK(selector_rules(sel, true) == yaml(R"(
- {action: keep, regex: api, source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name]}
- {action: keep, regex: web.v1, source_labels: [__meta_kubernetes_pod_label_tier]}
- {action: keep, regex: prod|pre.prod, source_labels: [__meta_kubernetes_pod_label_env]}
- {action: drop, regex: canary, source_labels: [__meta_kubernetes_pod_label_track]}
- {action: keep, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_team]}
- {action: drop, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_legacy]}
)"));
}

TEST_CASE("relabel rules keep explicit empty strings outside compat mode", "[metrics]") {
  model::RelabelConfig c;
  c.target_label = "tmp";
  c.replacement = "";
  c.separator = "";
  c.modulus = 0;
  CHECK(scrape::relabel_rule(c, false) == yaml("{target_label: tmp, replacement: '', separator: ''}"));
  CHECK(scrape::relabel_rule(c, true) == yaml("{target_label: tmp}"));
  model::RelabelConfig m;
  m.target_label = "tenant";
  CHECK(scrape::metric_relabel_rules({m, c}, "tenant", false) == Value::arr({scrape::relabel_rule(c, false)}));
}

TEST_CASE("relabel rules drop an empty regex target_label or action in every mode", "[metrics]") {
  // An explicit "" regex would match only the empty string (Prometheus'
  // default is (.*)), so it is dropped like upstream and
  // prometheus-operator drop it; so are "" target_label and action.
  model::RelabelConfig c;
  c.source_labels = {"a"};
  c.regex = "";
  c.target_label = "";
  c.action = "";
  c.replacement = "";
  c.separator = "";
  CHECK(scrape::relabel_rule(c, false) == yaml("{source_labels: [a], replacement: '', separator: ''}"));
  CHECK(scrape::relabel_rule(c, true) == yaml("{source_labels: [a]}"));
  c.regex = "x";
  c.target_label = "t";
  c.action = "replace";
  CHECK(scrape::relabel_rule(c, false) ==
        yaml("{source_labels: [a], regex: x, target_label: t, action: replace, replacement: '', separator: ''}"));
}

TEST_CASE("limits: the lower wins by default enforced wins upstream", "[metrics]") {
  using L = std::optional<std::int64_t>;
  auto lim = [](L user, L enforced, bool compat) { return scrape::effective_limit(user, enforced, compat); };
  // user, enforced -> default / compat
  CHECK(lim(L(), L(), false) == L());
  CHECK(lim(L(), L(), true) == L());
  CHECK(lim(100, L(), false) == L(100));
  CHECK(lim(100, L(), true) == L(100));
  CHECK(lim(L(), 50, false) == L(50));
  CHECK(lim(L(), 50, true) == L(50));
  CHECK(lim(100, 50, false) == L(50));
  CHECK(lim(100, 50, true) == L(50));
  CHECK(lim(10, 50, false) == L(10));
  CHECK(lim(10, 50, true) == L(50));
  CHECK(lim(10, 0, false) == L(10));  // enforced 0 = unlimited
  CHECK(lim(10, 0, true) == L(0));
  CHECK(lim(0, 50, false) == L(50));
  CHECK(lim(0, L(), false) == L());
}

TEST_CASE("sharding pair and hashmod detection", "[metrics]") {
  Value rules = Value::array();
  CHECK_FALSE(scrape::has_hashmod(rules));
  scrape::append_sharding(rules, "__param_target", 4);
  CHECK(rules == yaml(R"(
- {source_labels: [__param_target], target_label: __tmp_hash, modulus: 4, action: hashmod}
- {source_labels: [__tmp_hash], regex: $(SHARD), action: keep}
)"));
  CHECK(scrape::has_hashmod(rules));
  CHECK(scrape::has_hashmod(yaml("[{action: HashMod, modulus: 2, target_label: x}]")));
  CHECK_FALSE(scrape::has_hashmod(yaml("[{action: keep}, {target_label: x}]")));
}

TEST_CASE("kubernetes_sd namespaces follow the namespaceSelector", "[metrics]") {
  model::NamespaceSelector any{true, {"x"}}, names{false, {"a", "b"}}, empty{};
  CHECK(scrape::sd_namespaces(any, "own", false).empty());
  CHECK(scrape::sd_namespaces(names, "own", false) == std::vector<std::string>{"a", "b"});
  CHECK(scrape::sd_namespaces(empty, "own", false) == std::vector<std::string>{"own"});
  CHECK(scrape::sd_namespaces(any, "own", true) == std::vector<std::string>{"own"});
}

TEST_CASE("tls_config renders files by default and inline PEM on request", "[metrics]") {
  model::Inventory inv;
  inv.add(model::parse_json(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ca", "namespace": "ns"},
    "data": {"ca.crt": "CA-PEM"}})"));
  inv.add(model::parse_json(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls", "namespace": "ns"},
    "data": {"tls.key": "S0VZLVBFTQ=="}})"));
  model::TLSConfig tls;
  tls.ca.config_map = model::ConfigMapKeySelector{"ca", "ca.crt"};
  tls.key_secret = model::SecretKeySelector{"tls", "tls.key"};
  tls.cert_file = "/etc/client.crt";  // an explicit file wins in both forms
  model::AssetRefs files(inv), pem(inv);
  CHECK(scrape::tls_config("ns", tls, "spec.tlsConfig", files) ==
        yaml("{ca_file: /var/lib/grafana-agent/secrets/_configMaps_ns_ca_ca_crt, cert_file: /etc/client.crt, "
             "key_file: /var/lib/grafana-agent/secrets/_secrets_ns_tls_tls_key}"));
  CHECK(scrape::tls_config("ns", tls, "spec.tlsConfig", pem, true) ==
        yaml("{ca: CA-PEM, cert_file: /etc/client.crt, key: KEY-PEM}"));
  CHECK(pem.errors.empty());
  // A missing reference is an error at its field in both forms.
  tls.key_secret = model::SecretKeySelector{"tls", "absent"};
  model::AssetRefs missing(inv);
  scrape::tls_config("ns", tls, "spec.tlsConfig", missing, true);
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0].path == "spec.tlsConfig.keySecret");
}
