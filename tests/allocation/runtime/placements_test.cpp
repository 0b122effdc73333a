#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "allocation/runtime/placements.hpp"

using namespace allocation;
using allocation::runtime::Placement;
using allocation::runtime::PlacementLedger;

namespace placements_test {

TargetList web_targets(int n) {
  TargetGroup g;
  g.labels = std::make_shared<const LabelSet>(LabelSet{{"job", "web"}});
  for (int i = 0; i < n; ++i)
    g.targets.push_back(std::make_shared<const LabelSet>(
        LabelSet(std::vector<Label>{{Name::intern("__address__"), "10.0.0." + std::to_string(i) + ":80"}})));
  TargetList out;
  append_targets(Name::intern("web"), std::span<const TargetGroup>(&g, 1), out);
  return out;
}

std::vector<Collector> collectors(int n) {
  std::vector<Collector> out;
  for (int i = 0; i < n; ++i) out.push_back({std::to_string(i), "", true, TimePoint{}});
  return out;
}

std::map<std::string, Placement> by_address(const PlacementLedger& ledger) {
  std::map<std::string, Placement> out;
  for (const auto& p : *ledger.snapshot()) out.emplace(p->address, *p);
  return out;
}

}  // namespace placements_test

using namespace placements_test;

TEST_CASE("the placement ledger stamps only the targets a reallocation moved or added", "[allocation][placements]") {
  ManualClock clock;
  StrategyConfig strategy;
  strategy.name = "consistent-hashing";
  Allocator a(make_strategy(strategy), {}, clock);
  a.set_collectors(collectors(3));
  a.set_targets(web_targets(40));
  PlacementLedger ledger;
  ledger.update(a, 5, "seq 2 watch sd/0/0 ADDED ns/web");
  auto first = by_address(ledger);
  const auto first_snapshot = ledger.snapshot();
  REQUIRE(first.size() == 40);
  for (const auto& [address, p] : first) {
    CHECK(p.seq == 5);
    CHECK(p.job == "web");
    CHECK(*p.cause == "seq 2 watch sd/0/0 ADDED ns/web");
  }
  // One more collector: consistent hashing moves some targets (mostly to
  // it), and only those get the new stamp; a new target gets it too.
  a.set_collectors(collectors(4));
  a.set_targets(web_targets(41));
  ledger.update(a, 9, "seq 7 watch collectors ADDED ns/3");
  auto second = by_address(ledger);
  REQUIRE(second.size() == 41);
  std::size_t moved = 0;
  for (const auto& [address, p] : second) {
    auto before = first.find(address);
    bool same_place = before != first.end() && before->second.collector == p.collector;
    CHECK(p.seq == (same_place ? 5u : 9u));
    if (before != first.end() && !same_place) ++moved;
  }
  // An unmoved target keeps its Placement: the update allocated nothing for it.
  std::map<std::string, const Placement*> before_ptr, after_ptr;
  for (const auto& p : *first_snapshot) before_ptr[p->address] = p.get();
  for (const auto& p : *ledger.snapshot()) after_ptr[p->address] = p.get();
  for (const auto& [address, p] : second)
    if (p.seq == 5u) CHECK(after_ptr.at(address) == before_ptr.at(address));
  CHECK(moved > 0);
  CHECK(moved < 40);
  CHECK(second.at("10.0.0.40:80").seq == 9);
  // Gone targets leave the ledger; the list is sorted.
  a.set_targets(web_targets(10));
  ledger.update(a, 12, "seq 11 watch sd/0/0 MODIFIED ns/web");
  CHECK(ledger.size() == 10);
  auto list = allocation::runtime::sorted(*ledger.snapshot());
  CHECK(list.size() == 10);
  CHECK(std::is_sorted(list.begin(), list.end(), [](const auto& x, const auto& y) { return x->address < y->address; }));
}
