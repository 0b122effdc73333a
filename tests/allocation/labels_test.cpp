#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "allocation/label_arena.hpp"
#include "allocation/labels.hpp"
#include "allocation/large_array.hpp"
#include "allocation/target.hpp"

using namespace allocation;

namespace {

std::map<std::string, std::string> as_map(const LabelSet& s) {
  std::map<std::string, std::string> out;
  for (const auto& l : s.labels()) out[std::string(l.name.text())] = std::string(l.value);
  return out;
}

}  // namespace

TEST_CASE("a label set keeps short and long values exactly, at the inline boundary too", "[allocation][labels]") {
  const std::string v20(20, 'a'), v21(21, 'b'), big(5000, 'c');
  LabelSet s({{"__address__", "10.0.0.1:8080"}, {"k20", v20}, {"k21", v21}, {"big", big}, {"empty", ""}});
  CHECK(s.size() == 4);  // the empty value is dropped
  CHECK(s.get(Name::intern("k20")) == v20);
  CHECK(s.get(Name::intern("k21")) == v21);
  CHECK(s.get(Name::intern("big")) == big);
  CHECK(s.get(Name::intern("empty")).empty());
  CHECK(s.get(Name::intern("never-set-on-this-set")).empty());
  CHECK(s.get(Name()).empty());
  CHECK(s.address() == "10.0.0.1:8080");
  CHECK(as_map(s) ==
        std::map<std::string, std::string>{{"__address__", "10.0.0.1:8080"}, {"big", big}, {"k20", v20}, {"k21", v21}});
}

TEST_CASE("label set iteration is in Name id order and the last duplicate wins", "[allocation][labels]") {
  std::vector<Label> in;
  for (int i = 30; i >= 0; --i)
    in.push_back({Name::intern("order_" + std::to_string(i)), "value-" + std::to_string(i)});
  in.push_back({Name::intern("order_3"), "a long replacement value for three"});
  LabelSet s(std::move(in));
  REQUIRE(s.size() == 31);
  std::uint32_t last = 0;
  for (const auto& l : s.labels()) {
    CHECK(l.name.id() > last);
    last = l.name.id();
    CHECK(s.get(l.name) == l.value);
  }
  CHECK(s.get(Name::intern("order_3")) == "a long replacement value for three");
}

TEST_CASE("copies and moves of a label set keep values, fingerprint and address", "[allocation][labels]") {
  const std::string long_address = "a-rather-long-host-name.example.internal:9100";
  LabelSet a({{"__address__", long_address}, {"job", "j"}, {"pod", std::string(64, 'p')}});
  const auto fp = a.fingerprint(), ah = a.address_hash();
  LabelSet b(a);
  CHECK(b.fingerprint() == fp);
  CHECK(b.address() == long_address);
  CHECK(b.address().data() != a.address().data());  // the copy owns its bytes
  LabelSet c(std::move(a));
  CHECK(c.fingerprint() == fp);
  CHECK(c.address_hash() == ah);
  CHECK(c.address() == long_address);
  CHECK(a.empty());  // NOLINT: moved-from is empty, not dangling
  CHECK(a.get(Name::intern("job")).empty());
  b = c;
  CHECK(as_map(b) == as_map(c));
  LabelSet empty;
  CHECK(empty.size() == 0);
  CHECK(empty.address().empty());
  CHECK(LabelSet(empty).empty());
}

TEST_CASE("equal label sets built in different orders have equal fingerprints", "[allocation][labels]") {
  LabelSet a({{"x", "1"}, {"y", std::string(40, 'y')}});
  LabelSet b({{"y", std::string(40, 'y')}, {"x", "1"}});
  LabelSet c({{"y", std::string(40, 'z')}, {"x", "1"}});
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(a.fingerprint() != c.fingerprint());
}

TEST_CASE("large target arrays are huge-page aligned and hold their items", "[allocation][labels]") {
  const std::size_t before = large_array_mapped_total();
  TargetList big(kLargeArrayBytes / sizeof(Target) + 10);
  CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % kLargeArrayBytes == 0);
  CHECK(large_array_mapped_total() - before >= big.size() * sizeof(Target));
  big.back().hash = 42;
  big.resize(big.size() * 3);  // reallocates from one mapping to another
  CHECK(big[kLargeArrayBytes / sizeof(Target) + 9].hash == 42);
  TargetList small(3);
  small[2].hash = 7;
  CHECK(small[2].hash == 7);
}

TEST_CASE("the label arena recycles blocks per size class and aligns them", "[allocation][labels]") {
  void* a = label_block_allocate(100);  // class of 128 bytes
  void* b = label_block_allocate(128);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 64 == 0);
  CHECK(a != b);
  CHECK(label_arena_mapped() >= kLargeArrayBytes);
  label_block_free(a, 100);
  CHECK(label_block_allocate(120) == a);                 // same class: the freed block comes back
  void* big = label_block_allocate(kLabelBlockMax + 1);  // outside the arena
  CHECK(reinterpret_cast<std::uintptr_t>(big) % 64 == 0);
  static_cast<char*>(big)[kLabelBlockMax] = 'x';
  label_block_free(big, kLabelBlockMax + 1);
  label_block_free(a, 120);
  label_block_free(b, 128);
}

TEST_CASE("a freed large array's mapping is reused by the next request", "[allocation][labels]") {
  const std::size_t bytes = 13 * kLargeArrayBytes;  // a size no other test maps
  void* first = large_array_allocate(bytes);
  static_cast<char*>(first)[bytes - 1] = 1;
  large_array_free(first, bytes);
  void* again = large_array_allocate(bytes - 100);
  CHECK(again == first);
  large_array_free(again, bytes - 100);
}
