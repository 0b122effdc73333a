#include <catch2/catch.hpp>

#include <random>

#include "alloc_fixtures.hpp"

using namespace allocation;
using namespace alloc_test;

namespace {

std::unique_ptr<Strategy> strategy(const std::string& name) {
  StrategyConfig c;
  c.name = name;
  return make_strategy(c);
}

}  // namespace

TEST_CASE("unknown strategy names and bad options are errors naming the field", "[allocation]") {
  StrategyConfig c;
  c.name = "round-robin";
  CHECK_THROWS_WITH(make_strategy(c), Catch::Contains("allocation_strategy: unknown strategy \"round-robin\""));
  c.name = "consistent-hashing";
  c.balance_tolerance = 0;
  CHECK_THROWS_WITH(make_strategy(c), Catch::StartsWith("balance_tolerance:"));
  c.name = "per-node";
  c.fallback = "nope";
  CHECK_THROWS_WITH(make_strategy(c), Catch::StartsWith("allocation_fallback_strategy: allocation_strategy"));
  for (const char* ok : {"consistent-hashing", "least-weighted", "per-node"}) CHECK(strategy(ok)->name() == ok);
}

TEST_CASE("consistent-hashing: two replicas agree whatever the input order", "[allocation]") {
  auto targets = synthetic_targets(5000);
  auto names = collector_names(0, 37);
  auto a = run(*strategy("consistent-hashing"), targets, names);

  auto shuffled_names = names;
  std::mt19937 rng(7);
  std::shuffle(shuffled_names.begin(), shuffled_names.end(), rng);
  std::vector<std::size_t> perm(targets.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<StrategyTarget> shuffled;
  for (auto i : perm) shuffled.push_back(targets[i]);
  auto b = run(*strategy("consistent-hashing"), shuffled, shuffled_names);
  for (std::size_t i = 0; i < perm.size(); ++i) REQUIRE(b[i] == a[perm[i]]);
}

TEST_CASE("consistent-hashing: every load within 5% of the mean at 100 targets per collector", "[allocation]") {
  for (std::size_t n : {2u, 3u, 10u, 57u, 100u, 1000u}) {
    auto names = collector_names(0, n);
    auto b = balance(run(*strategy("consistent-hashing"), synthetic_targets(100 * n, n), names), names);
    INFO("N=" << n << " max/avg=" << b.max_over_avg << " min/avg=" << b.min_over_avg);
    CHECK(b.unassigned == 0);
    CHECK(b.max_over_avg <= 1.05);
    CHECK(b.min_over_avg >= 0.95);
  }
}

TEST_CASE("consistent-hashing: N = 1 takes everything no collector takes nothing", "[allocation]") {
  auto targets = synthetic_targets(1000);
  auto one = run(*strategy("consistent-hashing"), targets, collector_names(0, 1));
  CHECK(std::all_of(one.begin(), one.end(), [](const std::string& s) { return s == "collector-00000"; }));
  auto none = run(*strategy("consistent-hashing"), targets, {});
  CHECK(std::all_of(none.begin(), none.end(), [](const std::string& s) { return s.empty(); }));
}

TEST_CASE("consistent-hashing: fewer targets than collectors gives at most one each", "[allocation]") {
  auto names = collector_names(0, 50);
  auto got = run(*strategy("consistent-hashing"), synthetic_targets(20), names);
  std::sort(got.begin(), got.end());
  CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
  CHECK(std::find(got.begin(), got.end(), "") == got.end());
}

namespace {

// One membership change from `before` (on `from_names`) to `to_names`: the
// result keeps the load band and moves at most 1.2x the ideal share, which
// is |difference| / max(N before, N after) of the targets.
std::vector<std::string> checked_change(Strategy& s, const std::vector<StrategyTarget>& targets,
                                        const std::vector<std::string>& before,
                                        const std::vector<std::string>& from_names,
                                        const std::vector<std::string>& to_names) {
  auto after = run(s, targets, to_names, before);
  auto b = balance(after, to_names);
  const double ideal = 1.0 / static_cast<double>(std::max(from_names.size(), to_names.size()));
  const double churn = moved_fraction(before, after) / ideal;
  INFO("N " << from_names.size() << " -> " << to_names.size() << " max/avg=" << b.max_over_avg
            << " min/avg=" << b.min_over_avg << " churn=" << churn);
  CHECK(b.unassigned == 0);
  CHECK(b.max_over_avg <= 1.05);
  CHECK(b.min_over_avg >= 0.95);
  CHECK(churn <= 1.2);
  return after;
}

// From a fresh assignment on N collectors: one joins, another leaves, the
// first leaves again, and so on for `steps` changes.
void check_membership_changes(std::size_t n, std::size_t per_collector, std::size_t steps) {
  auto s = strategy("consistent-hashing");
  auto targets = synthetic_targets(n * per_collector, 11 * n);
  auto names = collector_names(0, n);
  auto current = run(*s, targets, names);
  auto b = balance(current, names);
  INFO("fresh N=" << n << " max/avg=" << b.max_over_avg << " min/avg=" << b.min_over_avg);
  CHECK(b.max_over_avg <= 1.05);
  CHECK(b.min_over_avg >= 0.95);
  std::size_t next_name = n;
  for (std::size_t step = 0; step < steps; ++step) {
    auto to = names;
    if (step % 2 == 0 || names.size() == 1) {
      to.push_back(collector_names(next_name, next_name + 1)[0]);
      ++next_name;
    } else {
      to.erase(to.begin() + static_cast<std::ptrdiff_t>((step * 7919) % to.size()));
    }
    std::sort(to.begin(), to.end());
    current = checked_change(*s, targets, current, names, to);
    names = to;
  }
}

}  // namespace

TEST_CASE("consistent-hashing: balance and churn hold across N at 100 targets per collector", "[allocation]") {
  for (std::size_t n : {1u, 2u, 3u, 10u, 100u}) check_membership_changes(n, 100, 8);
}

TEST_CASE("consistent-hashing: balance and churn hold at N = 1000", "[allocation]") {
  check_membership_changes(1000, 100, 4);
}

TEST_CASE("consistent-hashing: balance and churn hold at 1000 targets per collector", "[allocation]") {
  for (std::size_t n : {2u, 10u, 100u}) check_membership_changes(n, 1000, 4);
}

TEST_CASE("consistent-hashing: N = 10000 gives equal shares and joins and leaves move <= 1.2x the ideal share",
          "[allocation]") {
  // 10 targets per collector keeps the O(T·N) ranking within test time.
  auto s = strategy("consistent-hashing");
  auto targets = synthetic_targets(100000, 3);
  auto names = collector_names(0, 10000);
  auto before = run(*s, targets, names);
  auto fresh = balance(before, names);
  CHECK(fresh.unassigned == 0);
  // The band rounds to exactly 10 each.
  CHECK(fresh.max_over_avg == 1.0);
  CHECK(fresh.min_over_avg == 1.0);
  auto joined_names = collector_names(0, 10001);
  auto joined = run(*s, targets, joined_names, before);
  auto left = run(*s, targets, collector_names(1, 10000), before);
  CHECK(moved_fraction(before, joined) * 10001 <= 1.2);
  CHECK(moved_fraction(before, left) * 10000 <= 1.2);
  auto b = balance(joined, joined_names);
  CHECK(b.unassigned == 0);
  CHECK(b.max_over_avg <= 1.05);
  CHECK(b.min_over_avg >= 0.9);  // 9 of 9.999: the band holds no integer below avg
}

TEST_CASE("consistent-hashing: a joining collector only takes a leaving one only gives", "[allocation]") {
  auto s = strategy("consistent-hashing");
  auto targets = synthetic_targets(20000, 5);
  auto before = run(*s, targets, collector_names(0, 20));
  auto after = run(*s, targets, collector_names(0, 21), before);
  auto left = run(*s, targets, collector_names(1, 20), before);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    INFO("target " << i);
    if (after[i] != before[i]) REQUIRE(after[i] == "collector-00020");
    if (before[i] != "collector-00000") REQUIRE(left[i] == before[i]);
  }
  std::size_t to_new = 0;
  for (const auto& a : after) to_new += a == "collector-00020";
  CHECK(to_new >= 20000 / 21 * 95 / 100);
}

TEST_CASE("consistent-hashing: new targets do not move placed ones while the band holds", "[allocation]") {
  auto s = strategy("consistent-hashing");
  auto targets = synthetic_targets(10000, 17);
  auto names = collector_names(0, 10);
  auto before = run(*s, targets, names);
  auto grown = targets;
  for (auto& t : synthetic_targets(200, 18)) grown.push_back(t);
  auto previous = before;
  previous.resize(grown.size());
  auto after = run(*s, grown, names, previous);
  for (std::size_t i = 0; i < targets.size(); ++i) REQUIRE(after[i] == before[i]);
  auto b = balance(after, names);
  CHECK(b.unassigned == 0);
  CHECK(b.max_over_avg <= 1.05);
  CHECK(b.min_over_avg >= 0.95);
}

TEST_CASE("consistent-hashing: a restart recomputes the fresh assignment", "[allocation]") {
  // Without previous placements the result depends only on the inputs.
  auto targets = synthetic_targets(3000, 21);
  auto names = collector_names(0, 12);
  auto a = run(*strategy("consistent-hashing"), targets, names);
  auto s = strategy("consistent-hashing");
  run(*s, targets, collector_names(0, 5));
  CHECK(run(*s, targets, names) == a);
}

TEST_CASE("least-weighted: new targets fill the emptiest collector placed targets stay", "[allocation]") {
  auto s = strategy("least-weighted");
  auto targets = synthetic_targets(300);
  auto names = collector_names(0, 3);
  auto first = run(*s, targets, names);
  auto b = balance(first, names);
  CHECK(b.max_over_avg == 1.0);
  CHECK(b.min_over_avg == 1.0);
  // A fourth collector joins: nothing moves without rebalancing, and the
  // next 100 targets all go to it.
  auto names4 = collector_names(0, 4);
  auto more = synthetic_targets(400);
  std::vector<std::string> previous = first;
  previous.resize(400);
  auto second = run(*s, more, names4, previous);
  for (std::size_t i = 0; i < 300; ++i) REQUIRE(second[i] == first[i]);
  for (std::size_t i = 300; i < 400; ++i) REQUIRE(second[i] == "collector-00003");
}

TEST_CASE("least-weighted: rebalance on scale-out moves the fewest targets to the newcomer", "[allocation]") {
  StrategyConfig c;
  c.name = "least-weighted";
  c.rebalance_on_scale_out = true;
  auto s = make_strategy(c);
  auto targets = synthetic_targets(1000);
  auto first = run(*s, targets, collector_names(0, 4));
  auto names5 = collector_names(0, 5);
  auto second = run(*s, targets, names5, first);
  auto b = balance(second, names5);
  CHECK(b.max_over_avg == 1.0);
  CHECK(b.min_over_avg == 1.0);
  CHECK(moved_fraction(first, second) == Approx(200.0 / 1000));  // exactly the newcomer's share
  // Without a newcomer nothing moves.
  CHECK(run(*s, targets, names5, second) == second);
}

TEST_CASE("least-weighted: a leaving collector's targets are the only ones that move", "[allocation]") {
  auto s = strategy("least-weighted");
  auto targets = synthetic_targets(900);
  auto first = run(*s, targets, collector_names(0, 3));
  auto second = run(*s, targets, collector_names(1, 3), first);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (first[i] != "collector-00000") REQUIRE(second[i] == first[i]);
  }
  CHECK(balance(second, collector_names(1, 3)).max_over_avg == 1.0);
}

TEST_CASE("per-node: node targets stay on their node node-less ones use the fallback", "[allocation]") {
  std::vector<std::string> names = {"c-a1", "c-a2", "c-b", "c-none"};
  std::vector<StrategyCollector> cols = {{names[0], "node-a", collector_seed(names[0])},
                                         {names[1], "node-a", collector_seed(names[1])},
                                         {names[2], "node-b", collector_seed(names[2])},
                                         {names[3], "", collector_seed(names[3])}};
  auto targets = synthetic_targets(400);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i].node = i % 4 == 0 ? "node-a" : i % 4 == 1 ? "node-b" : i % 4 == 2 ? "node-c" : "";
  }
  auto assign = [&](const std::string& fallback, bool uncovered = false) {
    StrategyConfig c;
    c.name = "per-node";
    c.fallback = fallback;
    c.fallback_for_nodes_without_collector = uncovered;
    std::vector<std::uint32_t> out;
    make_strategy(c)->assign(targets, cols, {}, out);
    return out;
  };
  auto plain = assign("");
  std::size_t on_a1 = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].node == "node-a") REQUIRE((plain[i] == 0 || plain[i] == 1));
    if (targets[i].node == "node-b") REQUIRE(plain[i] == 2);
    if (targets[i].node == "node-c" || targets[i].node.empty()) REQUIRE(plain[i] == kUnassigned);
    on_a1 += plain[i] == 0;
  }
  CHECK(on_a1 > 25);  // the two collectors of node-a share its 100 targets
  CHECK(on_a1 < 75);
  auto fallback = assign("consistent-hashing");
  std::vector<std::size_t> fallback_load(4, 0);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].node.empty()) {
      REQUIRE(fallback[i] == plain[i]);
    } else {
      REQUIRE(fallback[i] != kUnassigned);
      ++fallback_load[fallback[i]];
    }
  }
  for (auto l : fallback_load) CHECK(l == 25);  // 100 node-less targets over 4 collectors
  // node-c has no collector: its targets go to the fallback too when asked,
  // and nothing else moves.
  auto uncovered = assign("consistent-hashing", true);
  std::size_t node_c = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].node == "node-c") {
      REQUIRE(uncovered[i] != kUnassigned);
      ++node_c;
    } else if (!targets[i].node.empty()) {
      REQUIRE(uncovered[i] == plain[i]);
    }
  }
  CHECK(node_c == 100);
  // Without a fallback the flag changes nothing.
  CHECK(assign("", true) == plain);
}

TEST_CASE("consistent-hashing: with a loose band it is plain rendezvous hashing", "[allocation]") {
  // Bounds never bind at tolerance 0.9 here, so every target sits on its
  // first choice: a newcomer only takes, a leaver only gives.
  StrategyConfig c;
  c.balance_tolerance = 0.9;
  auto s = make_strategy(c);
  auto targets = synthetic_targets(3000, 9);
  for (std::size_t n : {1u, 2u, 15u, 16u, 17u, 33u}) {
    auto before = run(*s, targets, collector_names(0, n));
    auto joined = run(*s, targets, collector_names(0, n + 1));
    auto left = run(*s, targets, collector_names(1, n + 1));
    for (std::size_t i = 0; i < targets.size(); ++i) {
      INFO("N=" << n << " target " << i);
      if (joined[i] != before[i]) REQUIRE(joined[i] == collector_names(n, n + 1)[0]);
      if (before[i] != "collector-00000") REQUIRE(left[i] == joined[i]);
    }
  }
}

namespace {

std::uint64_t digest(const std::vector<std::string>& assigned) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& name : assigned) {
    for (const char ch : name + ";") h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  }
  return h;
}

}  // namespace

TEST_CASE("consistent-hashing: fixed scenarios keep their exact placements", "[allocation]") {
  // Golden digests of whole assignments, so a rewrite of any step (bounds,
  // deferred acceptance, repairs) that changes one placement is caught.
  auto with_tolerance = [](double tolerance) {
    StrategyConfig c;
    c.balance_tolerance = tolerance;
    return make_strategy(c);
  };
  const auto many = synthetic_targets(20000, 3), some = synthetic_targets(5000, 11);
  const auto fresh = run(*with_tolerance(0.05), many, collector_names(0, 100));
  const auto tight = run(*with_tolerance(0.01), some, collector_names(0, 37));
  const auto joined = run(*with_tolerance(0.01), some, collector_names(0, 38), tight);
  const auto left = run(*with_tolerance(0.05), many, collector_names(1, 100), fresh);
  CHECK(digest(fresh) == 0x3c44b336d1830b69ULL);
  CHECK(digest(tight) == 0x1aaf93ca94f58736ULL);
  CHECK(digest(joined) == 0xb34170bd3c04ec02ULL);
  CHECK(digest(left) == 0xc5b6baa0483d4be8ULL);
}
