// Config and assets Secrets (gzip, data keys, labels, ownerReferences) and
// the operator's -labels flag across every object.
#include <zlib.h>
#include <catch2/catch.hpp>
#include <cstdint>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/render.hpp"
#include "model/workloads.hpp"
#include "test_render.hpp"

namespace {

using model::Value;

model::GrafanaAgent agent_named_a() {
  return testutil::agent_from_spec("", ", uid: u");
}

std::string decoded_config(const Value& secret) {
  auto bytes = model::base64_decode(secret.find("data")->find("agent.yml")->as_string());
  REQUIRE(bytes);
  return *bytes;
}

const Value& labels_of(const Value& o) {
  return *o.find("metadata")->find("labels");
}

}  // namespace

TEST_CASE("config Secret: agent.yml gzipped only above the threshold", "[workloads]") {
  auto agent = agent_named_a();
  model::RenderOptions opts;
  opts.gzip_threshold = 64;
  std::string small(64, 'x');
  Value plain = model::make_config_secret(agent, "a-config", small, opts);
  CHECK(decoded_config(plain) == small);
  CHECK(plain.find("data")->size() == 1);

  std::string big;
  for (int i = 0; i < 40; ++i) big += "line " + std::to_string(i) + ": value\n";
  Value zipped = model::make_config_secret(agent, "a-config", big, opts);
  std::string stored = decoded_config(zipped);
  CHECK(stored != big);
  CHECK(stored.size() < big.size());
  CHECK(stored.substr(0, 2) == std::string("\x1f\x8b"));
  auto unzipped = model::gzip_decompress(stored);
  REQUIRE(unzipped);
  CHECK(*unzipped == big);
  CHECK(model::make_config_secret(agent, "a-config", big, opts) == zipped);  // deterministic
}

TEST_CASE("config Secret: fast gzip level unless the result stays large", "[workloads]") {
  auto agent = agent_named_a();
  model::RenderOptions opts;
  std::string jobs;
  for (int i = 0; i < 4000; ++i) jobs += "- job_name: serviceMonitor/ns/app-" + std::to_string(i) + "/0\n  x: y\n";
  const std::string fast = decoded_config(model::make_config_secret(agent, "a-config", jobs, opts));
  CHECK(fast == model::gzip_compress(jobs, 3));
  CHECK(fast != model::gzip_compress(jobs));
  // Incompressible text stays above 256 KiB at level 3: the default level
  // is used instead (the same bytes as gzip_compress with no level).
  std::string noise;
  std::uint64_t x = 88172645463325252ull;
  while (noise.size() < 400 * 1024) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    noise += static_cast<char>('!' + x % 90);
  }
  const std::string slow = decoded_config(model::make_config_secret(agent, "a-config", noise, opts));
  CHECK(slow == model::gzip_compress(noise));
  REQUIRE(model::gzip_decompress(slow));
  CHECK(*model::gzip_decompress(slow) == noise);
}

TEST_CASE("config Secret metadata: managed-by -labels non-controller owner", "[workloads]") {
  model::RenderOptions opts;
  opts.operator_labels = {{"team", "infra"}};
  Value s = model::make_config_secret(agent_named_a(), "a-logs-config", "x: 1\n", opts);
  CHECK(s.find("kind")->as_string() == "Secret");
  CHECK(s.find("metadata")->find("name")->as_string() == "a-logs-config");
  CHECK(s.find("metadata")->find("namespace")->as_string() == "ns");
  CHECK(labels_of(s) == Value::obj({{"app.kubernetes.io/managed-by", "grafana-agent-operator"}, {"team", "infra"}}));
  CHECK(*s.find("metadata")->find("ownerReferences") ==
        Value::arr({Value::obj({{"apiVersion", "monitoring.grafana.com/v1alpha1"},
                                {"kind", "GrafanaAgent"},
                                {"name", "a"},
                                {"uid", "u"},
                                {"blockOwnerDeletion", true}})}));
}

TEST_CASE("assets Secret: sanitised keys base64 values no -labels", "[workloads]") {
  model::RenderOptions opts;
  opts.operator_labels = {{"team", "infra"}};
  std::map<std::string, std::string> assets{{"/secrets/app/api-tls/ca.crt", "CA"}, {"/configMaps/app/cm/key", "v"}};
  Value s = model::make_assets_secret(agent_named_a(), assets, opts);
  CHECK(s.find("metadata")->find("name")->as_string() == "a-secrets");
  CHECK(labels_of(s) == Value::obj({{"app.kubernetes.io/managed-by", "grafana-agent-operator"}}));
  CHECK(!s.find("metadata")->find("ownerReferences")->as_array()[0].find("controller"));
  CHECK(*s.find("data") == Value::obj({{"_secrets_app_api_tls_ca_crt", model::base64_encode("CA")},
                                       {"_configMaps_app_cm_key", model::base64_encode("v")}}));
  CHECK(!model::make_assets_secret(agent_named_a(), {}, opts).find("data"));
}

TEST_CASE("operator -labels win everywhere except on <ga>-secrets", "[workloads]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ns}
spec:
  podMetadata: {labels: {team: pods}}
  metrics: {instanceSelector: {}}
  logs: {instanceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: m, namespace: ns}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: l, namespace: ns}
)");
  model::RenderOptions opts;
  opts.operator_labels = {{"team", "infra"}, {"app.kubernetes.io/instance", "forced"}};
  auto r = model::render_agent(inv, testutil::only_agent(inv), opts);
  REQUIRE(r.objects.size() == 6);
  for (const Value& o : r.objects) {
    std::string name = o.find("metadata")->find("name")->as_string();
    INFO(name);
    const Value& labels = labels_of(o);
    if (name == "a-secrets") {
      CHECK(!labels.find("team"));
      continue;
    }
    CHECK(labels.find("team")->as_string() == "infra");
    const Value* spec = o.find("spec");
    if (!spec || !spec->find("template")) continue;
    const Value& selector = *spec->find("selector")->find("matchLabels");
    const Value& pod = *spec->find("template")->find("metadata")->find("labels");
    CHECK(selector.find("team")->as_string() == "infra");
    CHECK(selector.find("app.kubernetes.io/instance")->as_string() == "forced");
    CHECK(pod.find("team")->as_string() == "infra");
    CHECK(pod.find("app.kubernetes.io/instance")->as_string() == "forced");
    CHECK(labels.find("app.kubernetes.io/instance")->as_string() == "forced");
  }
}

TEST_CASE("gzip: the output buffer grows in steps, the bytes stay zlib's one-shot bytes", "[workloads]") {
  // The one-shot reference: deflate into a buffer of deflateBound's size,
  // which is what gzip_compress did before it grew its output.
  auto one_shot = [](const std::string& in, int level) {
    z_stream zs{};
    deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, static_cast<uLong>(in.size())) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
  };
  std::uint64_t x = 12345;
  std::string text;
  for (std::size_t size : {0, 1, 100, 5000, 70000, 3000000}) {
    while (text.size() < size) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      // Half repetitive, half noise: ratios in between the extremes.
      text += (x % 2) ? std::string("  - source_labels: [__meta_kubernetes_pod_label_app]\n")
                      : std::string(1, static_cast<char>('!' + x % 90));
    }
    const std::string in = text.substr(0, size);
    for (int level : {1, 3, -1}) {
      INFO("size " << size << " level " << level);
      const std::string want = one_shot(in, level);
      CHECK(model::gzip_compress(in, level) == want);
      // A limit at the exact size keeps the result; one byte less refuses it.
      CHECK(model::gzip_compress_within(in, level, want.size()) == want);
      CHECK_FALSE(model::gzip_compress_within(in, level, want.size() - 1));
    }
  }
}

TEST_CASE("gzip: a level zlib does not know is an error, not an endless loop", "[workloads]") {
  CHECK_THROWS_AS(model::gzip_compress("text", 42), std::invalid_argument);
  CHECK_THROWS_AS(model::gzip_compress_within("text", 42, 100), std::invalid_argument);
}
