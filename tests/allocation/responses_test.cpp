#include <catch2/catch.hpp>

#include <random>
#include <thread>

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

// Go's escaping, one byte at a time: the oracle for the run-copying escaper.
std::string escaped_bytewise(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out += std::string("\\u00") + hex[c >> 4] + hex[c & 15];
    } else if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xa8 || static_cast<unsigned char>(s[i + 2]) == 0xa9)) {
      out += static_cast<unsigned char>(s[i + 2]) == 0xa8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

TEST_CASE("the JSON string escaper matches a byte-at-a-time oracle on random bytes", "[allocation][http]") {
  std::mt19937 rng(42);
  // Bytes weighted towards the ones that need a look, so runs end often.
  const std::string_view alphabet("ab\"\\<>&\n\r\t\x01\x1f\xe2\x80\xa8\xa9\xc3\xbc ", 20);
  for (int round = 0; round < 40000; ++round) {
    // Odd rounds: longer strings of mostly plain letters, so long plain
    // runs end at a byte to look at in every position (a block-skipping
    // escaper was tried in session 36; one that missed '&' failed here).
    const bool long_run = round % 2 == 1;
    std::string s(long_run ? rng() % 80 : rng() % 12, '\0');
    for (char& c : s) {
      if (long_run && rng() % 10 != 0) {
        c = static_cast<char>('a' + rng() % 26);
      } else {
        c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
      }
    }
    std::string out = "x";  // appends, never replaces
    append_json_string(out, s);
    REQUIRE(out == "x" + escaped_bytewise(s));
  }
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
  CHECK(first->str() == collector_targets_json(a, c1, "j"));
  CHECK(cache.collector_targets(a, c1, "j") == first);  // same bytes, not rebuilt
  targets.push_back(target("k", "d:1", {}));            // job k changes, job j does not
  a.set_targets(targets);
  CHECK(cache.collector_targets(a, c1, "j") == first);
  targets.push_back(target("j", "e:1", {}));
  targets.push_back(target("j", "f:1", {}));
  a.set_targets(targets);
  auto second = cache.collector_targets(a, c1, "j");
  CHECK(second != first);
  CHECK(second->str() == collector_targets_json(a, c1, "j"));
  CHECK(cache.collector_targets(a, "nobody", "j")->str() == "[]\n");
  a.set_targets({});
  cache.prune(a);
  CHECK(cache.size() == 0);
}

TEST_CASE("a job's body over all collectors is assembled on first use from what it was given", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({{"col-1", "", true, {}}, {"col-2", "", true, {}}, {"idle", "", false, {}}});
  a.set_targets({target("j", "a:1", {}), target("j", "b:1", {}), target("j", "c:1", {})});
  ResponseCache cache;
  const Name job = Name::find("j");
  const std::string expected = job_targets_json(a, "j");
  const auto all = cache.job_targets(a, job);
  CHECK(cache.job_targets(a, job) == all);  // the same object until the job changes
  a.set_targets({target("j", "z:1", {})});  // after publishing, the allocator moves on
  std::vector<std::string> seen(4);
  std::vector<std::thread> readers;
  for (auto& s : seen) readers.emplace_back([&s, &all] { s = all->body() + all->etag(); });
  for (auto& t : readers) t.join();
  for (const auto& s : seen) CHECK(s == expected + body_etag(expected));
  CHECK(cache.job_targets(a, job) != all);
  CHECK(cache.job_targets(a, job)->body() == job_targets_json(a, "j"));
}

TEST_CASE("a cached body follows new labels of a target that keeps its identity", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({{"col-1", "", true, {}}});
  // The relabeling filter gives both the same identity (say, job + address
  // after rules that drop the version label).
  Target v1 = target("j", "a:1", {{"version", "1"}}), v2 = target("j", "a:1", {{"version", "2"}});
  v1.hash = v2.hash = 42;
  ResponseCache cache;
  a.set_targets({v1});
  CHECK(cache.collector_targets(a, "col-1", "j")->str() == collector_targets_json(a, "col-1", "j"));
  a.set_targets({v2});
  const auto body = cache.collector_targets(a, "col-1", "j");
  CHECK(body->str().find("\"version\":\"2\"") != std::string::npos);
  CHECK(body->str() == collector_targets_json(a, "col-1", "j"));
}

TEST_CASE("a cache shared by two allocators never serves one's body for the other's", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  ResponseCache cache;
  for (const char* address : {"a:1", "b:1"}) {
    // A new allocator (as after a strategy change) numbers bucket versions
    // from the start again.
    Allocator a(make_strategy(config), {}, clock);
    a.set_collectors({{"col-1", "", true, {}}});
    a.set_targets({target("j", address, {})});
    CHECK(cache.collector_targets(a, "col-1", "j")->str() == collector_targets_json(a, "col-1", "j"));
  }
}

TEST_CASE("a rebuilt body serialises only the targets whose label sets changed", "[allocation][http]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({{"col-1", "", true, {}}, {"col-2", "", true, {}}});
  TargetList targets;
  for (int i = 0; i < 60; ++i) targets.push_back(target("j", "h" + std::to_string(i) + ":1", {{"i", "v<&>"}}));
  ResponseCache cache;
  auto served = [&] {
    for (Name job : a.jobs()) {
      const auto all = cache.job_targets(a, job);
      CHECK(all->body() == job_targets_json(a, job.text()));
      CHECK(all->etag() == body_etag(job_targets_json(a, job.text())));
      for (const auto& c : a.collectors())
        CHECK(cache.collector_targets(a, c.name, job.text())->str() == collector_targets_json(a, c.name, job.text()));
    }
    cache.prune(a);
  };
  a.set_targets(targets);
  served();
  CHECK(cache.build_stats().serialised_targets == 60);
  // One target gets new labels (a new label set), two leave, twenty in a
  // row leave (past the finder's window), one arrives.
  targets[5] = target("j", "h5:1", {{"i", "changed"}});
  targets.erase(targets.begin() + 30, targets.begin() + 50);
  targets.erase(targets.begin() + 10, targets.begin() + 12);
  targets.push_back(target("j", "new:1", {}));
  a.set_targets(targets);
  served();
  // The two new label sets, plus at most the targets after the long gap in
  // the one bucket that had it (found again by a later window or not).
  CHECK(cache.build_stats().serialised_targets >= 62);
  CHECK(cache.build_stats().serialised_targets <= 62 + 10);
  a.set_targets(targets);  // same sets again: nothing to serialise
  served();
  CHECK(cache.build_stats().serialised_targets <= 62 + 10);
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
