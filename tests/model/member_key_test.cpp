// model::MemberKey: interned object member keys read like strings, equal
// keys share one copy, long keys are owned, and copies stay independent.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/member_key.hpp"
#include "model/parse.hpp"
#include "model/value.hpp"

TEST_CASE("member keys with the same text share one interned copy", "[model][member_key]") {
  model::MemberKey a("metadata"), b(std::string("meta") + "data");
  CHECK(a.interned());
  CHECK(&a.str() == &b.str());
  CHECK(a == b);
  CHECK(a == "metadata");
  CHECK(a == std::string("metadata"));
  CHECK(a == std::string_view("metadata"));
  CHECK(a != model::MemberKey("metadatb"));
  CHECK(a < model::MemberKey("metadatb"));
  CHECK(model::MemberKey().empty());
  CHECK(a + "/x" == "metadata/x");
  CHECK(std::string("x/") + a == "x/metadata");
  CHECK(sizeof(model::MemberKey) == sizeof(void*));
}

TEST_CASE("long member keys are owned, copied deeply and compare by text", "[model][member_key]") {
  std::string text(200, 'k');
  model::MemberKey a(text);
  CHECK_FALSE(a.interned());
  model::MemberKey b = a;
  CHECK(&a.str() != &b.str());
  CHECK(a == b);
  CHECK(b == text);
  model::MemberKey c("short");
  c = a;
  CHECK(c == text);
  model::MemberKey d = std::move(c);
  CHECK(d == text);
  CHECK(c.empty());  // NOLINT(bugprone-use-after-move): a moved-from key is empty
  d = model::MemberKey("name");
  CHECK(d.interned());
  CHECK(d == "name");
}

TEST_CASE("parsed objects intern their keys and equal values stay equal", "[model][member_key]") {
  model::Value a = model::parse_json(R"({"metadata":{"name":"x","labels":{"app":"y"}}})", "a");
  model::Value b = model::parse_documents("metadata: {labels: {app: y}, name: x}", "b").at(0).value;
  CHECK(a == b);
  const auto& ka = a.as_object().front().first;
  const auto& kb = b.as_object().front().first;
  CHECK(&ka.str() == &kb.str());
  model::Value dup = model::Value::obj({{"a", 1}, {"b", 2}});
  CHECK(model::duplicate_key(dup.as_object()) == nullptr);
  dup.as_object().emplace_back("a", 3);
  REQUIRE(model::duplicate_key(dup.as_object()));
  CHECK(*model::duplicate_key(dup.as_object()) == "a");
}

// Keys every test process meets first, so interned even where earlier
// tests in the same process filled the table with fuzzed keys.
TEST_CASE("member keys are interned consistently from many threads", "[model][member_key]") {
  static const std::vector<std::string> kCommon = {"apiVersion", "kind",   "metadata", "name",
                                                   "namespace",  "labels", "spec",     "data"};
  std::vector<std::thread> threads;
  std::vector<std::vector<const std::string*>> seen(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < 2000; ++i) seen[t].push_back(&model::MemberKey(kCommon[i % kCommon.size()]).str());
    });
  for (auto& th : threads) th.join();
  for (int t = 1; t < 4; ++t) CHECK(seen[t] == seen[0]);
  CHECK(std::set<const std::string*>(seen[0].begin(), seen[0].end()).size() == kCommon.size());
}
