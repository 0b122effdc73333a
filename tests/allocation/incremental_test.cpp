// Allocator::update_targets against the full reprocess it stands in for:
// two allocators with one history, one updated incrementally, the other
// with set_targets of the whole new set, must agree on every bucket (order
// and version), the generation and every response body, through random
// removals, additions, label changes (with and without a new identity) and
// job changes, with collectors joining in between.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <unordered_map>

#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "allocation/flat_index.hpp"
#include "allocation/responses.hpp"
#include "allocation/targets_body.hpp"

using namespace allocation;

namespace {

constexpr std::size_t kJobs = 3, kGroups = 40;

struct Discovery {
  std::vector<Name> jobs;
  std::vector<std::vector<TargetGroup>> groups;  // [job][group slot]
  std::size_t next_ip = 0;
};

std::shared_ptr<const LabelSet> endpoint(std::size_t ip, const std::string& pod, const std::string& meta) {
  return std::make_shared<const LabelSet>(
      LabelSet{{"__address__", "10.0." + std::to_string(ip / 250) + "." + std::to_string(ip % 250) + ":80"},
               {"__meta_pod", pod},
               {"__meta_ready", meta}});
}

Discovery initial_discovery(std::mt19937& rng) {
  Discovery d;
  for (std::size_t j = 0; j < kJobs; ++j) {
    d.jobs.push_back(Name::intern("job-" + std::to_string(j)));
    d.groups.emplace_back(kGroups);
    for (std::size_t g = 0; g < kGroups; ++g) {
      d.groups[j][g].labels = std::make_shared<const LabelSet>(LabelSet{{"service", "svc-" + std::to_string(g)}});
      for (std::size_t k = 0, n = 4 + rng() % 8; k < n; ++k)
        d.groups[j][g].targets.push_back(endpoint(d.next_ip++, "pod-" + std::to_string(rng() % 1000), "true"));
    }
  }
  return d;
}

std::uint64_t group_order(std::size_t j, std::size_t g) {
  return j * kGroups + g;
}

// job-0 keeps pods not ending in 7 and copies the pod name (identity);
// job-1 has no rules; job-2 copies only the service.
RelabelFilter make_filter(const Discovery& d) {
  RelabelFilter f(1);
  auto rule = [](std::string source, std::string target, RelabelAction action, std::string regex) {
    RelabelConfig c;
    c.source_labels = {std::move(source)};
    c.target_label = std::move(target);
    c.action = action;
    c.regex = std::move(regex);
    return c;
  };
  f.set_job(d.jobs[0], {rule("__meta_pod", "", RelabelAction::drop, ".*7"),
                        rule("__meta_pod", "pod", RelabelAction::replace, "(.*)")});
  f.set_job(d.jobs[1], {});
  f.set_job(d.jobs[2], {rule("service", "svc", RelabelAction::replace, "(.*)")});
  return f;
}

TargetList items_of(const Discovery& d, std::span<const std::pair<std::size_t, std::size_t>> which, RelabelFilter& f) {
  TargetList out;
  for (auto [j, g] : which)
    append_targets(d.jobs[j], std::span<const TargetGroup>(&d.groups[j][g], 1), out, group_order(j, g));
  f.apply(out);
  return out;
}

TargetList all_items(const Discovery& d, RelabelFilter& f) {
  std::vector<std::pair<std::size_t, std::size_t>> all;
  for (std::size_t j = 0; j < kJobs; ++j)
    for (std::size_t g = 0; g < kGroups; ++g) all.emplace_back(j, g);
  return items_of(d, all, f);
}

// One random change of group (j, g): targets leave, arrive, get a new pod
// name (a new identity in job-0) or a new meta value (the same identity),
// or the whole group moves to another job's slot (a job change).
void change_group(Discovery& d, std::mt19937& rng, std::size_t j, std::size_t g,
                  std::vector<std::pair<std::size_t, std::size_t>>& touched) {
  touched.emplace_back(j, g);
  auto& targets = d.groups[j][g].targets;
  if (rng() % 8 == 0) {
    const std::size_t to = (j + 1 + rng() % (kJobs - 1)) % kJobs, slot = rng() % kGroups;
    auto& dest = d.groups[to][slot].targets;
    dest.insert(dest.end(), targets.begin(), targets.end());
    targets.clear();
    touched.emplace_back(to, slot);
    return;
  }
  std::vector<std::shared_ptr<const LabelSet>> next;
  for (const auto& t : targets) {
    const std::string address(t->address()), pod(t->get(Name::intern("__meta_pod")));
    switch (rng() % 6) {
      case 0:
        break;  // leaves
      case 1:
        next.push_back(endpoint(d.next_ip++, pod, "true"));
        break;  // replaced by a new pod
      case 2:
        next.push_back(std::make_shared<const LabelSet>(
            LabelSet{{"__address__", address}, {"__meta_pod", pod + "x"}, {"__meta_ready", "true"}}));
        break;
      case 3:
        next.push_back(std::make_shared<const LabelSet>(
            LabelSet{{"__address__", address}, {"__meta_pod", pod}, {"__meta_ready", "false"}}));
        break;
      default:
        next.push_back(t);
    }
  }
  for (std::size_t k = 0, n = rng() % 3; k < n; ++k)
    next.insert(next.begin() + static_cast<std::ptrdiff_t>(rng() % (next.size() + 1)),
                endpoint(d.next_ip++, "pod-" + std::to_string(rng() % 1000), "true"));
  targets = std::move(next);
}

std::vector<Collector> pool(std::size_t n) {
  std::vector<Collector> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back({"c" + std::to_string(i), "", true, {}});
  return out;
}

std::unique_ptr<Allocator> allocator(const ManualClock& clock, const std::string& strategy = "consistent-hashing") {
  StrategyConfig c;
  c.name = strategy;
  return std::make_unique<Allocator>(make_strategy(c), AllocatorOptions{}, clock);
}

void require_same(const Allocator& a, const Allocator& b) {
  REQUIRE(a.generation() == b.generation());
  REQUIRE(a.jobs() == b.jobs());
  REQUIRE(a.unassigned() == b.unassigned());
  REQUIRE(a.targets().size() == b.targets().size());
  REQUIRE(jobs_json(a) == jobs_json(b));
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c) {
    REQUIRE(a.load(c) == b.load(c));
    for (Name job : a.jobs()) {
      const JobBucket *x = a.bucket(a.collectors()[c].name, job), *y = b.bucket(a.collectors()[c].name, job);
      REQUIRE((x == nullptr) == (y == nullptr));
      if (!x) continue;
      CHECK(x->version == y->version);
      CHECK(x->checksum == y->checksum);
      REQUIRE(collector_targets_json(a, a.collectors()[c].name, job.text()) ==
              collector_targets_json(b, a.collectors()[c].name, job.text()));
    }
  }
  for (Name job : a.jobs()) REQUIRE(job_targets_json(a, job.text()) == job_targets_json(b, job.text()));
}

// The cached bodies of `a` (built from each bucket's delta where it can)
// are the bytes and entity tags of fresh serialisations.
void require_fresh_bodies(const Allocator& a, ResponseCache& cache) {
  for (const auto& c : a.collectors()) {
    for (Name job : a.jobs()) {
      const JobBucket* b = a.bucket(c.name, job);
      if (!b) continue;
      const auto body = cache.collector_targets(a, c.name, job.text());
      REQUIRE(body->str() == collector_targets_json(a, c.name, job.text()));
      BodyBuildStats stats;
      CHECK(body->etag() == build_targets_body(a, *b, nullptr, stats)->etag());
    }
  }
  cache.prune(a);
}

}  // namespace

TEST_CASE("update_targets gives what set_targets of the whole new set gives", "[allocation][incremental]") {
  for (std::uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed);
    Discovery d = initial_discovery(rng);
    RelabelFilter filter = make_filter(d);
    const ManualClock clock;
    auto inc = allocator(clock), full = allocator(clock);
    inc->set_collectors(pool(4));
    full->set_collectors(pool(4));
    inc->set_targets(all_items(d, filter));
    full->set_targets(all_items(d, filter));
    ResponseCache cache;
    require_fresh_bodies(*inc, cache);
    int applied = 0;
    for (int step = 0; step < 60; ++step) {
      if (step == 30) {  // a collector joins: the index is rebuilt from slots no longer in order
        inc->set_collectors(pool(5));
        full->set_collectors(pool(5));
        require_same(*inc, *full);
      }
      std::vector<std::pair<std::size_t, std::size_t>> touched;
      for (std::size_t k = 0, n = 1 + rng() % 3; k < n; ++k)
        change_group(d, rng, rng() % kJobs, rng() % kGroups, touched);
      std::sort(touched.begin(), touched.end());
      touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
      // The identities that leave: the touched groups' current targets.
      TargetList after = items_of(d, touched, filter);
      std::vector<std::uint64_t> removed;
      for (const auto& t : inc->targets())
        for (auto [j, g] : touched)
          if (t.job == d.jobs[j] && (t.order >> kGroupOrderShift) == group_order(j, g)) removed.push_back(t.hash);
      if (inc->update_targets(removed, std::move(after))) {
        ++applied;
      } else {
        inc->set_targets(all_items(d, filter));
      }
      full->set_targets(all_items(d, filter));
      INFO("seed " << seed << " step " << step << " applied " << applied);
      require_same(*inc, *full);
      require_fresh_bodies(*inc, cache);
    }
    CHECK(applied > 30);  // most changes stay inside the balance band
    // Most bodies after an update were built from the bucket's delta, and
    // those skipped the chunks nothing reached.
    const BodyBuildStats& stats = cache.build_stats();
    CHECK(stats.delta_builds > static_cast<std::size_t>(applied));
    CHECK(stats.read_targets < inc->targets().size() * 60 / 2);
  }
}

TEST_CASE("update_targets refuses what it cannot reproduce exactly", "[allocation][incremental]") {
  const ManualClock clock;
  TargetGroup g;
  for (std::size_t i = 0; i < 40; ++i) g.targets.push_back(endpoint(i, "p", "true"));
  const Name job = Name::intern("job-refuse");
  TargetList numbered, unnumbered;
  append_targets(job, std::span<const TargetGroup>(&g, 1), numbered, 0);
  append_targets(job, std::span<const TargetGroup>(&g, 1), unnumbered);
  TargetGroup extra;
  extra.targets.push_back(endpoint(1000, "p", "true"));
  TargetList added;
  append_targets(job, std::span<const TargetGroup>(&extra, 1), added, 1);

  auto a = allocator(clock);
  a->set_collectors(pool(2));
  a->set_targets(unnumbered);  // orders all 0: no discovery order to insert by
  CHECK_FALSE(a->update_targets({}, added));
  a->set_targets(numbered);
  const std::uint64_t known = numbered[0].hash;
  CHECK_FALSE(a->update_targets(std::vector<std::uint64_t>{12345}, added));  // unknown hash
  CHECK_FALSE(a->update_targets({}, TargetList{numbered[0]}));               // already present
  std::vector<std::uint64_t> one_collector;
  for (std::uint32_t s = 0; s < a->targets().size(); ++s)
    if (a->collector_of(s) == 0) one_collector.push_back(a->targets()[s].hash);
  CHECK_FALSE(a->update_targets(one_collector, {}));  // c0 would hold nothing
  const auto generation = a->generation();
  CHECK(a->update_targets(std::vector<std::uint64_t>{known}, {}));
  CHECK(a->targets().size() == 39);
  CHECK(a->generation() == generation + 1);

  auto lw = allocator(clock, "least-weighted");
  lw->set_collectors(pool(2));
  lw->set_targets(numbered);
  CHECK_FALSE(lw->update_targets({}, added));
}

TEST_CASE("update_targets replacing every target of a job lists the job once", "[allocation][incremental]") {
  // An http_sd answer replaces its whole source: the job's old targets all
  // leave and new ones arrive in the same update.
  const ManualClock clock;
  const Name job = Name::intern("job-replaced"), other = Name::intern("job-kept");
  TargetGroup first, second, kept;
  for (std::size_t i = 0; i < 6; ++i) {
    first.targets.push_back(endpoint(2000 + i, "p", "true"));
    second.targets.push_back(endpoint(3000 + i, "p", "true"));
    kept.targets.push_back(endpoint(4000 + i, "p", "true"));
  }
  TargetList before, after;
  append_targets(other, std::span<const TargetGroup>(&kept, 1), before, 0);
  append_targets(job, std::span<const TargetGroup>(&first, 1), before, 1);
  append_targets(job, std::span<const TargetGroup>(&second, 1), after, 1);
  std::vector<std::uint64_t> removed;
  for (const auto& t : before)
    if (t.job == job) removed.push_back(t.hash);
  auto inc = allocator(clock), full = allocator(clock);
  inc->set_collectors(pool(2));
  full->set_collectors(pool(2));
  inc->set_targets(before);
  full->set_targets(before);
  REQUIRE(inc->update_targets(removed, after));
  TargetList whole;
  append_targets(other, std::span<const TargetGroup>(&kept, 1), whole, 0);
  append_targets(job, std::span<const TargetGroup>(&second, 1), whole, 1);
  full->set_targets(whole);
  CHECK(inc->jobs().size() == 2);
  require_same(*inc, *full);
  CHECK(inc->job_size(job) == 6);
}

TEST_CASE("FlatIndex erase keeps every other key findable", "[allocation][incremental]") {
  std::mt19937_64 rng(7);
  FlatIndex index(600);
  std::unordered_map<std::uint64_t, std::uint32_t> model;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t key = rng() % 2000;  // few keys: long probe runs and many erases
    if (rng() % 2 && model.size() < index.room()) {
      const auto slot = static_cast<std::uint32_t>(step);
      model.try_emplace(key, slot);
      index.insert(key, slot);
    } else {
      model.erase(key);
      index.erase(key);
    }
    if (step % 97 == 0) {
      for (std::uint64_t k = 0; k < 2000; ++k) {
        auto it = model.find(k);
        REQUIRE(index.find(k) == (it == model.end() ? FlatIndex::kNone : it->second));
      }
    }
  }
}
