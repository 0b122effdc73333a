#include <catch2/catch.hpp>
#include <random>

#include "model/packed_lookups.hpp"

namespace {

std::string random_bytes(std::mt19937_64& rng, std::size_t max_len) {
  std::size_t len = std::uniform_int_distribution<std::size_t>(0, max_len)(rng);
  std::string out(len, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);  // NULs and high bytes included
  return out;
}

}  // namespace

TEST_CASE("packed lookups give back every lookup packed, in order", "[model][job_cache]") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::vector<model::AssetLookup> lookups(rng() % 6);
    for (auto& l : lookups) {
      l.secret = rng() & 1;
      // Lengths across the one-, two- and three-byte length encodings.
      std::size_t max_len = round % 50 == 0 ? 40000 : (round % 5 == 0 ? 300 : 20);
      l.ns = random_bytes(rng, max_len);
      l.name = random_bytes(rng, max_len);
      l.key = random_bytes(rng, max_len);
      if (rng() % 3) l.value = random_bytes(rng, max_len);
    }
    model::PackedLookups packed(lookups);
    REQUIRE(packed.unpack() == lookups);
  }
}

TEST_CASE("packed lookups stop at the first lookup the test rejects", "[model][job_cache]") {
  model::PackedLookups packed(
      {{true, "ns", "a", "k", "v"}, {false, "ns", "b", "k", std::nullopt}, {true, "ns", "c", "k", "w"}});
  std::vector<std::string> seen;
  bool all = packed.all_of([&](const model::LookupView& l) {
    seen.emplace_back(l.name);
    return l.value.has_value();
  });
  CHECK_FALSE(all);
  CHECK(seen == std::vector<std::string>{"a", "b"});
  CHECK(model::PackedLookups().all_of([](const model::LookupView&) { return false; }));
}
