#include <catch2/catch.hpp>

#include "allocation/responses.hpp"
#include "model/parse.hpp"

using namespace allocation;

namespace {

Target target(const std::string& job, const std::string& address,
              std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  auto group = std::make_shared<const LabelSet>(LabelSet{{"__meta_group", "g"}, {"env", "group"}});
  std::vector<Label> own = {{Name::intern("__address__"), address}};
  for (const auto& [k, v] : labels) own.push_back({Name::intern(k), std::string(v)});
  Target t;
  REQUIRE(make_target(Name::intern(job), group, std::make_shared<const LabelSet>(LabelSet(std::move(own))), t));
  return t;
}

}  // namespace

TEST_CASE("JSON strings are escaped as Go's encoding/json does", "[allocation][http]") {
  std::string out;
  append_json_string(out, "a\"b\\c\n\t<&>\x01\xe2\x80\xa8ü");
  CHECK(out == "\"a\\\"b\\\\c\\n\\t\\u003c\\u0026\\u003e\\u0001\\u2028ü\"");
  CHECK(query_escape("a b/c?d=é") == "a+b%2Fc%3Fd%3D%C3%A9");
}

TEST_CASE("responses have upstream's shapes", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({{"col-1", "", true, {}}, {"col-2", "", false, {}}});
  a.set_targets({target("my job", "10.0.0.1:80", {{"env", "prod"}}), target("other", "h:1", {})});

  CHECK(jobs_json(a) == R"({"my job":{"_link":"/jobs/my+job/targets"},"other":{"_link":"/jobs/other/targets"}})"
                        "\n");
  const std::string item =
      R"({"targets":["10.0.0.1:80"],"labels":{"__address__":"10.0.0.1:80","__meta_group":"g","env":"prod"}})";
  CHECK(collector_targets_json(a, "col-1", "my job") == "[" + item + "]\n");
  CHECK(collector_targets_json(a, "col-2", "my job") == "[]\n");
  CHECK(collector_targets_json(a, "nobody", "my job") == "[]\n");
  CHECK(collector_targets_json(a, "col-1", "nojob") == "[]\n");
  CHECK(job_targets_json(a, "my job") ==
        R"({"col-1":{"_link":"/jobs/my+job/targets?collector_id=col-1","targets":[)" + item +
            R"(]},"col-2":{"_link":"/jobs/my+job/targets?collector_id=col-2","targets":[]}})"
            "\n");
}

TEST_CASE("per-collector bodies are cached until that collector's bucket changes", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({{"col-1", "", true, {}}, {"col-2", "", true, {}}});
  TargetList targets = {target("j", "a:1", {}), target("j", "b:1", {}), target("k", "c:1", {})};
  a.set_targets(targets);
  ResponseCache cache;
  const std::string c1 = a.collectors()[a.collector_of(0)].name;
  auto first = cache.collector_targets(a, c1, "j");
  CHECK(*first == collector_targets_json(a, c1, "j"));
  CHECK(cache.collector_targets(a, c1, "j") == first);  // same bytes, not rebuilt
  targets.push_back(target("k", "d:1", {}));            // job k changes, job j does not
  a.set_targets(targets);
  CHECK(cache.collector_targets(a, c1, "j") == first);
  targets.push_back(target("j", "e:1", {}));
  targets.push_back(target("j", "f:1", {}));
  a.set_targets(targets);
  auto second = cache.collector_targets(a, c1, "j");
  CHECK(second != first);
  CHECK(*second == collector_targets_json(a, c1, "j"));
  CHECK(*cache.collector_targets(a, "nobody", "j") == "[]\n");
  a.set_targets({});
  cache.prune(a);
  CHECK(cache.size() == 0);
}

TEST_CASE("/scrape_configs maps job names to configs with secrets masked", "[allocation][http]") {
  auto docs = model::parse_documents(R"(
- job_name: web
  basic_auth: {username: u, password: p}
  tls_config: {ca_file: /ca, key: k}
  oauth2: {client_id: i, client_secret: s}
  proxy_connect_header: {X-Auth: [v1, v2]}
  static_configs: [{targets: ['a:1']}]
)",
                                     "test");
  CHECK(
      scrape_configs_json(docs.at(0).value) ==
      R"({"web":{"basic_auth":{"password":"<secret>","username":"u"},"job_name":"web",)"
      R"("oauth2":{"client_id":"i","client_secret":"<secret>"},"proxy_connect_header":{"X-Auth":["<secret>","<secret>"]},)"
      R"("static_configs":[{"targets":["a:1"]}],"tls_config":{"ca_file":"/ca","key":"<secret>"}}})"
      "\n");
}

TEST_CASE("/scrape_configs masks every Secret-typed field Prometheus has, field by field", "[allocation][http]") {
  // Each row: a job fragment holding one secret value "S3CR3T" (and, where the
  // field sits beside non-secrets, one of those that must stay).
  const std::vector<std::pair<std::string, std::string>> cases{
      {"basic_auth: {username: u, password: S3CR3T}", "u"},
      {"authorization: {type: Bearer, credentials: S3CR3T}", "Bearer"},
      {"oauth2: {client_id: i, client_secret: S3CR3T, token_url: 'http://t'}", "http://t"},
      {"oauth2: {client_id: i, client_secret: c, token_url: 'http://t', tls_config: {key: S3CR3T}}", "http://t"},
      {"oauth2: {client_id: i, client_secret: c, proxy_connect_header: {X-P: [S3CR3T]}}", "X-P"},
      {"bearer_token: S3CR3T", ""},
      {"tls_config: {ca_file: /ca, key: S3CR3T}", "/ca"},
      {"proxy_connect_header: {X-Auth: [S3CR3T]}", "X-Auth"},
      {"http_headers: {X-Token: {values: [plain], secrets: [S3CR3T], files: [/f]}}", "plain"},
      {"http_sd_configs: [{url: 'http://sd', basic_auth: {username: u, password: S3CR3T}}]", "http://sd"},
      {"http_sd_configs: [{url: 'http://sd', http_headers: {X-Key: {secrets: [S3CR3T]}}}]", "http://sd"},
      {"kubernetes_sd_configs: [{role: pod, authorization: {credentials: S3CR3T}}]", "pod"},
      {"kubernetes_sd_configs: [{role: pod, tls_config: {key: S3CR3T}}]", "pod"},
      {"consul_sd_configs: [{server: 'c:8500', token: S3CR3T}]", "c:8500"},
      {"ec2_sd_configs: [{region: eu, secret_key: S3CR3T}]", "eu"},
      {"lightsail_sd_configs: [{region: eu, secret_key: S3CR3T}]", "eu"},
      {"azure_sd_configs: [{subscription_id: sub, client_secret: S3CR3T}]", "sub"},
      {"marathon_sd_configs: [{servers: ['m'], auth_token: S3CR3T}]", "m"},
      {"openstack_sd_configs: [{role: instance, password: S3CR3T}]", "instance"},
      {"openstack_sd_configs: [{role: instance, application_credential_secret: S3CR3T}]", "instance"},
      {"ovhcloud_sd_configs: [{service: vps, application_secret: S3CR3T}]", "vps"},
      {"ovhcloud_sd_configs: [{service: vps, consumer_key: S3CR3T}]", "vps"},
      {"scaleway_sd_configs: [{role: instance, secret_key: S3CR3T}]", "instance"},
      {"uyuni_sd_configs: [{server: 'u', password: S3CR3T}]", "u"},
  };
  for (const auto& [fragment, kept] : cases) {
    INFO(fragment);
    auto docs = model::parse_documents("- job_name: j\n  " + fragment + "\n", "test");
    const std::string masked = scrape_configs_json(docs.at(0).value);
    CHECK(masked.find("S3CR3T") == std::string::npos);
    CHECK(masked.find("<secret>") != std::string::npos);
    if (!kept.empty()) CHECK(masked.find("\"" + kept + "\"") != std::string::npos);
    CHECK(scrape_configs_json(docs.at(0).value, false).find("S3CR3T") != std::string::npos);
  }
}

TEST_CASE("/scrape_configs without masking keeps the real secrets", "[allocation][http]") {
  auto docs = model::parse_documents(R"(
- job_name: web
  basic_auth: {username: u, password: p}
  tls_config: {key: k}
)",
                                     "test");
  const std::string body = scrape_configs_json(docs.at(0).value, false);
  CHECK(body == R"({"web":{"basic_auth":{"password":"p","username":"u"},"job_name":"web","tls_config":{"key":"k"}}})"
                "\n");
  CHECK(body.find("<secret>") == std::string::npos);
}
