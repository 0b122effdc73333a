// The relabel filter's shortcuts must not change a single result: hash
// tails, newline and literal checks in the regex fast paths, the label
// sets' name filter, and the per-target memo of the rules' reads.
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <random>

#include "allocation/filter.hpp"
#include "allocation/hash.hpp"
#include "allocation/parallel.hpp"
#include "allocation/prom_regex.hpp"
#include "allocation/relabel.hpp"
#include "allocation/scrape_job.hpp"
#include "model/parse.hpp"

using namespace allocation;

namespace {

// hash_bytes as its header defines it, with the tail read byte by byte.
std::uint64_t reference_hash(std::string_view bytes, std::uint64_t seed) {
  auto step = [](std::uint64_t h, std::uint64_t w) {
    w *= 0x87c37b91114253d5ULL;
    w = std::rotl(w, 31);
    w *= 0x4cf5ad432745937fULL;
    h ^= w;
    return std::rotl(h, 27) * 5 + 0x52dce729;
  };
  std::uint64_t h = seed ^ (bytes.size() * 0x9e3779b97f4a7c15ULL);
  std::size_t i = 0;
  auto word = [&](std::size_t from, std::size_t n) {
    std::uint64_t w = 0;
    for (std::size_t k = 0; k < n; ++k) w |= std::uint64_t{static_cast<unsigned char>(bytes[from + k])} << (8 * k);
    return w;
  };
  for (; i + 8 <= bytes.size(); i += 8) h = step(h, word(i, 8));
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) h = step(h, word(i, rest) ^ (std::uint64_t{rest} << 59));
  return mix64(h ^ bytes.size());
}

}  // namespace

TEST_CASE("hash_bytes reads every tail length as the byte-by-byte word", "[allocation][hash]") {
  std::string text;
  for (int i = 0; i < 40; ++i) {
    for (std::uint64_t seed : {0ULL, 0x61646472ULL, 0xfedcba9876543210ULL}) {
      INFO("length " << text.size());
      REQUIRE(hash_bytes(text, seed) == reference_hash(text, seed));
    }
    text.push_back(static_cast<char>(0x30 + i * 7));  // bytes above 0x7f too
  }
}

TEST_CASE("regex fast paths refuse a newline at every position and compare literals exactly", "[allocation][relabel]") {
  const PromRegex everything("(.*)"), prefix("ab.*"), literal("http-metrics-and-more"), alternatives("x|yz|Running");
  for (std::size_t n = 0; n < 80; ++n) {
    std::string s = "ab" + std::string(n, 'q');
    REQUIRE(everything.match(s));
    REQUIRE(prefix.match(s));
    for (std::size_t at = 0; at < s.size(); ++at) {
      std::string t = s;
      t[at] = '\n';
      INFO("length " << t.size() << ", newline at " << at);
      REQUIRE(!everything.match(t));
      REQUIRE(!prefix.match(t));
    }
  }
  for (std::string lit : {"", "a", "Running", "http-met", "http-metrics", "http-metrics-and-more"}) {
    const PromRegex re(lit.empty() ? "()" : lit);
    REQUIRE(re.match(lit));
    for (std::size_t at = 0; at < lit.size(); ++at) {
      std::string t = lit;
      t[at] = static_cast<char>(t[at] ^ 0x20);
      INFO("literal " << lit << " changed at " << at);
      REQUIRE(!re.match(t));
    }
    REQUIRE(!re.match(lit + "x"));
  }
  CHECK(literal.match("http-metrics-and-more"));
  CHECK(alternatives.match("Running"));
  CHECK(alternatives.match("yz"));
  CHECK(!alternatives.match("Runninh"));
  CHECK(!alternatives.match("y"));
}

TEST_CASE("a label set finds each of its names and no other", "[allocation][labels]") {
  std::vector<Label> labels;
  for (int i = 0; i < 60; i += 2) labels.push_back({Name::intern("fast_path_name_" + std::to_string(i)), "v"});
  const LabelSet set(labels);
  for (int i = 0; i < 60; ++i) {
    const Name n = Name::intern("fast_path_name_" + std::to_string(i));
    INFO(n.text());
    REQUIRE((set.index_of(n) < set.size()) == (i % 2 == 0));
    REQUIRE(set.get(n) == (i % 2 == 0 ? "v" : ""));
    if (i % 2 == 0) REQUIRE(set.holds(set.get(n)));
  }
  CHECK(!set.holds(std::string_view("v")));
  CHECK(set.index_of(Name()) == set.size());
}

namespace {

// Random discovery output over a small pool of names, so group and own
// sets overlap, seedable names (job, __scheme__) appear, and some sets
// lack labels the rules read.
std::vector<TargetGroup> random_groups(std::mt19937& rng, std::size_t targets) {
  static const char* kNames[] = {"__meta_a", "__meta_b", "__meta_c", "team", "job", "__scheme__", "__param_x"};
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<TargetGroup> groups;
  for (std::size_t i = 0; i < targets;) {
    TargetGroup g;
    std::vector<Label> gl;
    for (const char* n : kNames) {
      if (pick(3) == 0) gl.push_back({Name::intern(n), "g" + std::to_string(pick(3))});
    }
    if (pick(5) == 0) gl.push_back({Names::get().address, "group-host:1"});
    g.labels = std::make_shared<const LabelSet>(LabelSet(std::move(gl)));
    for (std::size_t k = pick(12) + 1; k > 0 && i < targets; --k, ++i) {
      std::vector<Label> own;
      for (const char* n : kNames) {
        if (pick(2) == 0) own.push_back({Name::intern(n), pick(9) == 0 ? "two\nlines" : "o" + std::to_string(pick(4))});
      }
      if (pick(8) != 0) own.push_back({Names::get().address, "10.1." + std::to_string(i % 7) + ":80"});
      g.targets.push_back(std::make_shared<const LabelSet>(LabelSet(std::move(own))));
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

const char* kMemoRules = R"(
- {source_labels: [__meta_a], regex: 'o.*', action: keep}
- {source_labels: [__meta_b], target_label: team}
- {source_labels: [team, job], separator: '-', target_label: joined}
- {source_labels: [__meta_c], regex: 'g(.*)', target_label: __meta_a, replacement: 'x$1'}
- {source_labels: [__meta_a], target_label: copied}
- {regex: '__param_(.*)', action: labelmap, replacement: 'param_$1'}
- {source_labels: [__scheme__], regex: 'https', action: drop}
- {source_labels: [__address__], modulus: 3, target_label: __tmp_shard, action: hashmod}
- {source_labels: [__meta_b], regex: 'o3', target_label: __address__, replacement: 'moved:9'}
- {regex: '__meta_c', action: labeldrop}
)";

struct Outcome {
  bool kept;
  std::uint64_t hash, key;
  bool operator==(const Outcome&) const = default;
};

// Each target through a plain builder (no memo, no name filter shortcuts
// in the builder) and finish_target.
std::vector<Outcome> reference(const TargetList& items, const std::vector<ScrapeJob>& jobs) {
  std::vector<Outcome> out;
  for (const auto& t : items) {
    const ScrapeJob& job = t.job == jobs[0].job ? jobs[0] : jobs[1];
    Relabeler rules(job.relabel_configs);
    LabelBuilder b;
    b.reset(t.group.get(), t.own.get(), job.seeds);
    TargetIdentity id;
    const bool kept = rules.process(b) && finish_target(b, job, id);
    out.push_back({kept, kept ? id.hash : 0, kept ? id.key : 0});
  }
  return out;
}

}  // namespace

TEST_CASE("the filter's read memo gives the plain builder's result for every target", "[allocation][relabel]") {
  std::mt19937 rng(20261125);
  const auto rules = parse_relabel_configs(model::parse_documents(kMemoRules, "test").at(0).value, "relabel_configs");
  const std::vector<ScrapeJob> jobs = {default_scrape_job(Name::intern("memo-a"), rules),
                                       default_scrape_job(Name::intern("memo-b"), {rules.begin() + 1, rules.end()})};
  for (std::size_t n : {std::size_t{300}, kParallelMin + 301}) {
    for (int pass = 0; pass < 2; ++pass) {  // fresh sets each pass: nothing stale may be reused
      const auto groups = random_groups(rng, n);
      TargetList items;
      const std::size_t half = groups.size() / 2;
      append_targets(jobs[0].job, std::span(groups).first(half), items);
      append_targets(jobs[1].job, std::span(groups).subspan(half), items);
      append_targets(jobs[0].job, std::span(groups).subspan(half, 1), items);  // a job change mid-run
      const auto expected = reference(items, jobs);
      for (unsigned lanes : {1u, 2u}) {
        RelabelFilter filter(lanes);
        for (const auto& j : jobs) filter.set_job(j);
        TargetList got = items;
        filter.apply(got);
        std::vector<Outcome> kept;
        for (const auto& e : expected) {
          if (e.kept) kept.push_back(e);
        }
        INFO(n << " targets, pass " << pass << ", " << lanes << " lanes");
        REQUIRE(got.size() == kept.size());
        REQUIRE(kept.size() > n / 20);
        for (std::size_t i = 0; i < got.size(); ++i) REQUIRE((Outcome{true, got[i].hash, got[i].key}) == kept[i]);
      }
    }
  }
}

namespace {

// Go's net.SplitHostPort success, written out step by step.
bool reference_has_port(std::string_view s) {
  const std::size_t colon = s.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::size_t open_from = 0, close_from = 0;
  if (!s.empty() && s[0] == '[') {
    const std::size_t end = s.find(']');
    if (end == std::string_view::npos || end + 1 != colon) return false;
    open_from = 1, close_from = end + 1;
  } else if (s.substr(0, colon).find(':') != std::string_view::npos) {
    return false;
  }
  return s.find('[', open_from) == std::string_view::npos && s.find(']', close_from) == std::string_view::npos;
}

}  // namespace

TEST_CASE("has_port agrees with SplitHostPort on every short address", "[allocation][relabel]") {
  static constexpr char kAlphabet[] = {':', '[', ']', 'a', '1'};
  std::size_t with_port = 0;
  for (std::size_t len = 0; len <= 7; ++len) {
    std::vector<std::size_t> digits(len, 0);
    for (bool more = true; more;) {
      std::string s;
      for (std::size_t d : digits) s.push_back(kAlphabet[d]);
      INFO("address " << s);
      REQUIRE(has_port(s) == reference_has_port(s));
      with_port += has_port(s);
      more = false;
      for (std::size_t i = 0; i < len && !more; ++i) {
        if (++digits[i] < 5)
          more = true;
        else
          digits[i] = 0;
      }
    }
  }
  CHECK(with_port > 1000);
  CHECK(has_port("[::1]:80"));
  CHECK(!has_port("a:b:c"));
}

TEST_CASE("an address left as discovered is checked as one the rules rewrote", "[allocation][relabel]") {
  const ScrapeJob job = default_scrape_job(Name::intern("address-check"), {});
  const Name address = Names::get().address;
  for (std::string_view addr : {"a:80", "a", "a/b:80", "a:1/2", "[::1]:80", "[::1]", "a:b:c", "[a]b:1", "x:", ":9"}) {
    INFO("address " << addr);
    const LabelSet own({{"__address__", addr}, {"__meta_x", "y"}});
    REQUIRE(own.address_scrapable() == (has_port(addr) && addr.find('/') == std::string_view::npos));
    auto run = [&](bool rewrite, std::string& why) {
      LabelBuilder b;
      b.reset(nullptr, &own, job.seeds);
      if (rewrite) b.set(address, std::string(addr));  // a copy: not a view of the set
      TargetIdentity id;
      const bool kept = finish_target(b, job, id, &why);
      return Outcome{kept, kept ? id.hash : 0, kept ? id.key : 0};
    };
    std::string why_discovered, why_rewritten;
    REQUIRE(run(false, why_discovered) == run(true, why_rewritten));
    CHECK(why_discovered == why_rewritten);
  }
}
