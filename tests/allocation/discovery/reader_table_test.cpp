// KubernetesIndex's reverse maps: a flat multimap from a key hash to the
// groups that read it, checked against std::multimap under random edits,
// with keys crowded onto few homes so probe runs wrap and shift.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "allocation/discovery/reader_table.hpp"

using allocation::discovery::ReaderTable;

namespace {

std::vector<const std::string*> readers_of(const ReaderTable& t, std::uint64_t key) {
  std::vector<const std::string*> out;
  t.for_each(key, [&](const std::string* r) { out.push_back(r); });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the reader table answers as a multimap through adds, removes and growth", "[allocation][discovery]") {
  std::vector<std::string> names(64);
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = "endpoints/ns/svc-" + std::to_string(i);
  std::mt19937_64 rng(7);
  ReaderTable table;
  std::multimap<std::uint64_t, const std::string*> model;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t key = rng() % 97;  // few keys, many readers each: long runs
    const std::string* reader = &names[rng() % names.size()];
    auto [lo, hi] = model.equal_range(key);
    auto at = std::find_if(lo, hi, [&](const auto& e) { return e.second == reader; });
    if (at == hi && rng() % 3 != 0) {
      table.add(key, reader);
      model.emplace(key, reader);
    } else {
      table.remove(key, reader);
      if (at != hi) model.erase(at);
    }
    if (step % 97 == 0) {
      for (std::uint64_t k = 0; k < 97; ++k) {
        std::vector<const std::string*> want;
        for (auto [a, b] = model.equal_range(k); a != b; ++a) want.push_back(a->second);
        std::sort(want.begin(), want.end());
        REQUIRE(readers_of(table, k) == want);
      }
      REQUIRE(table.size() == model.size());
    }
  }
  for (auto& [key, reader] : model) table.remove(key, reader);
  CHECK(table.size() == 0);
  for (std::uint64_t k = 0; k < 97; ++k) CHECK(readers_of(table, k).empty());
}

TEST_CASE("removing from an empty reader table or an absent pair changes nothing", "[allocation][discovery]") {
  const std::string a = "a", b = "b";
  ReaderTable table;
  table.remove(1, &a);
  CHECK(readers_of(table, 1).empty());
  table.add(1, &a);
  table.remove(1, &b);
  table.remove(2, &a);
  CHECK(readers_of(table, 1) == std::vector<const std::string*>{&a});
  CHECK(table.size() == 1);
}
