#include <catch2/catch.hpp>

#include "model/monitors.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"
#include "model/yaml_fast.hpp"

using model::Value;

TEST_CASE("yaml scalars resolve like Kubernetes' YAML reader", "[parse]") {
  auto docs = model::parse_documents("a: 1\nb: '1'\nc: true\nd: yes\ne: ~\nf: 1.5\ng: $(SHARD)\nh: 0x10\n", "t");
  REQUIRE(docs.size() == 1);
  const Value& v = docs[0].value;
  CHECK(v.find("a")->is_int());
  CHECK(v.find("b")->is_string());
  CHECK(v.find("c")->as_bool());
  CHECK(v.find("d")->as_bool());
  CHECK(v.find("e")->is_null());
  CHECK(v.find("f")->as_double() == 1.5);
  CHECK(v.find("g")->as_string() == "$(SHARD)");
  CHECK(v.find("h")->as_int() == 16);
}

TEST_CASE("emitted yaml reads back equal", "[emit]") {
  Value v = Value::obj({{"s", "true"},
                        {"n", "8080"},
                        {"e", ""},
                        {"q", "{app=\"x\"} |= \"y\""},
                        {"nl", "a\nb"},
                        {"list", Value::arr({Value::obj({{"x", 1}}), Value::arr({1, 2}), "- dash"})},
                        {"empty", Value::object()},
                        {"f", 0.0025}});
  std::string y = model::to_yaml(v);
  auto docs = model::parse_documents(y, "roundtrip");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].value == v);
}

TEST_CASE("keys longer than YAML's implicit-key limit as written read back equal", "[emit]") {
  // 300 control bytes are 1,200 characters once escaped; 1,100 plain ones
  // are over the limit as they are.
  for (const std::string& key : {std::string(300, '\x01'), std::string(1100, 'k'), std::string(999, 'k')}) {
    Value v = Value::obj({{key, Value::obj({{"b", 2}})}, {"a", 1}});
    std::string y = model::to_yaml(v);
    auto docs = model::parse_documents(y, "long-key");
    REQUIRE(docs.size() == 1);
    CHECK(docs[0].value == v);
  }
}

TEST_CASE("the YAML escapes for U+0085 and U+00A0 decode to UTF-8", "[parse]") {
  // yaml-cpp alone gives the Latin-1 bytes 0x85 and 0xA0 here.
  auto docs = model::parse_documents("a: \"\\_x\\N\"\nb: !!str \"\\u00e0\\_\"\nc: '\\_'\n", "escapes");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].value.find("a")->as_string() == "\xC2\xA0x\xC2\x85");
  CHECK(docs[0].value.find("b")->as_string() == "\xC3\xA0\xC2\xA0");
  CHECK(docs[0].value.find("c")->as_string() == "\\_");  // single quotes have no escapes
  auto back = model::parse_documents(model::to_yaml(docs[0].value), "emitted");
  CHECK(back.at(0).value == docs[0].value);
}

TEST_CASE("json and yaml give the same tree", "[parse]") {
  auto j = model::parse_documents(R"({"a": [1, "x", {"b": null}], "c": 2.5})", "j");
  auto y = model::parse_documents("a: [1, x, {b: null}]\nc: 2.5\n", "y");
  REQUIRE(j.size() == 1);
  REQUIRE(y.size() == 1);
  CHECK(j[0].value == y[0].value);
}

TEST_CASE("a JSON document decodes alone after larger, invalid and oversized ones on the same thread", "[parse]") {
  // parse_json keeps its simdjson buffers per thread for inputs up to 4 MB;
  // nothing of an earlier document may show through.
  std::string big = "{\"items\": [";
  for (int i = 0; i < 20000; ++i) big += (i ? ",\"" : "\"") + std::string(40, 'x') + std::to_string(i) + "\"";
  big += "]}";
  REQUIRE(big.size() < (std::size_t{4} << 20));
  CHECK(model::parse_json(big).find("items")->as_array().size() == 20000);
  CHECK(model::parse_json(R"({"a": "b"})") == model::parse_json(R"({"a":"b"})"));
  CHECK_THROWS_WITH(model::parse_json(R"({"a": tru)", "cut"),
                    Catch::Contains("cut") && Catch::Contains("invalid JSON"));
  CHECK(model::parse_json("[1, 2]").as_array().size() == 2);
  std::string oversized = "[";
  for (int i = 0; i < 120000; ++i) oversized += (i ? ",\"" : "\"") + std::string(40, 'y') + "\"";
  oversized += "]";
  REQUIRE(oversized.size() > (std::size_t{4} << 20));
  CHECK(model::parse_json(oversized).as_array().size() == 120000);
  CHECK(model::parse_json("{}").as_object().empty());
}

TEST_CASE("parse errors name the line", "[parse]") {
  try {
    model::parse_documents("a: 1\nb: [\n", "bad.yaml");
    FAIL("expected a ParseError");
  } catch (const model::ParseError& e) {
    CHECK(e.source() == "bad.yaml");
    CHECK(e.line() >= 2);
  }
}

TEST_CASE("duplicate keys and alias bombs are rejected", "[parse]") {
  CHECK_THROWS_AS(model::parse_documents("a: 1\na: 2\n", "dup"), model::ParseError);
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c, ++prev)
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  CHECK_THROWS_AS(model::parse_documents(bomb, "bomb"), model::ParseError);
}

TEST_CASE("JSON objects with a duplicate key are rejected, small or large", "[parse]") {
  CHECK_THROWS_WITH(model::parse_json(R"({"a": 1, "b": 2, "a": 3})"), Catch::Contains("duplicate key \"a\""));
  std::string wide = "{";
  for (int i = 0; i < 40; ++i) wide += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  CHECK(model::parse_json(wide + "\"last\": 0}").size() == 41);
  CHECK_THROWS_WITH(model::parse_json(wide + "\"k17\": 0}"), Catch::Contains("duplicate key \"k17\""));
}

TEST_CASE("deep nesting is an error not a crash", "[parse]") {
  std::string deep(100000, '[');
  CHECK_THROWS_AS(model::parse_documents(deep, "deep"), model::ParseError);
  std::string deep_yaml;
  for (int i = 0; i < 5000; ++i) deep_yaml += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
  CHECK_THROWS_AS(model::parse_documents(deep_yaml, "deep"), model::ParseError);
}

// yaml-cpp 0.7 loops forever on these (its issue 1040); found by the target
// allocator's config fuzzer.
TEST_CASE("a flow indicator outside a flow collection is an error not a hang", "[parse]") {
  for (const char* text : {",", ",allocation_strategy: x", " ,", "[a],", "{a: 1},", "a: 1\n---\n,x"}) {
    INFO(text);
    CHECK_THROWS_AS(model::parse_documents(text, "stray"), model::ParseError);
  }
  auto docs = model::parse_documents("a: 1\n---\n---\n...\n---\nb: 2\n", "empty docs");
  REQUIRE(docs.size() == 2);
  CHECK(docs[1].value.find("b"));
}

TEST_CASE("merge keys: explicit keys override merged ones in any order", "[parse]") {
  auto docs = model::parse_documents(
      "base: &b {name: a, ns: x}\nafter: {<<: *b, name: b}\nbefore: {name: c, <<: *b}\nlist: {<<: [{k: 1}, {k: 2}]}\n",
      "merge");
  REQUIRE(docs.size() == 1);
  const Value& v = docs[0].value;
  CHECK(v.find("after")->find("name")->as_string() == "b");
  CHECK(v.find("after")->find("ns")->as_string() == "x");
  CHECK(v.find("before")->find("name")->as_string() == "c");
  CHECK(v.find("list")->find("k")->as_int() == 1);
  CHECK_THROWS_AS(model::parse_documents("m: {<<: {a: 1}, b: 1, b: 2}\n", "dup"), model::ParseError);
}

TEST_CASE("alias expansion is capped across the whole stream", "[parse]") {
  // Each document expands to about 100k nodes; 20 of them pass the
  // per-document cap but not the per-stream one.
  std::string doc = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'e'; ++c, ++prev) {
    doc += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) doc += std::string(i ? ", *" : "*") + prev;
    doc += "]\n";
  }
  CHECK_NOTHROW(model::parse_documents(doc, "one"));
  std::string stream;
  for (int i = 0; i < 20; ++i) stream += "---\n" + doc;
  CHECK_THROWS_AS(model::parse_documents(stream, "many"), model::ParseError);
}

TEST_CASE("a mapping with 100k keys parses and JSON duplicates are refused", "[parse]") {
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "k" + std::to_string(i) + ": v\n";
  auto docs = model::parse_documents(big, "big");
  REQUIRE(docs.size() == 1);
  CHECK(docs[0].value.size() == 100000);
  CHECK_THROWS_AS(model::parse_json(R"({"a": 1, "a": 2})"), model::ParseError);
  CHECK_THROWS_AS(model::parse_documents(R"({"a": 1, "a": 2})", "dup.json"), model::ParseError);
}

TEST_CASE("non_utf8_yaml_at finds the first bad byte wherever it is, word by word or not", "[parse]") {
  // One odd sequence at every offset of ASCII text of every length up to
  // 40: the eight-byte ASCII skip must stop exactly where a byte needs a look.
  struct Case {
    std::string bytes;
    bool bad;
  };
  const Case cases[] = {{std::string(1, '\0'), true}, {"\x80", true},          {"\xc3", true},
                        {"\xc3\xa9", false},          {"\xe2\x82\xac", false}, {"\xed\xa0\x80", true},
                        {"\xf0\x9f\x98\x80", false},  {"\xff", true}};
  for (const Case& c : cases) {
    for (std::size_t len = 0; len <= 40; ++len) {
      for (std::size_t at = 0; at <= len; ++at) {
        std::string text(len, 'a');
        text.insert(at, c.bytes);
        INFO("len " << len << " at " << at << " bytes " << c.bytes.size());
        CHECK(model::non_utf8_yaml_at(text) == (c.bad ? at : std::string_view::npos));
      }
    }
  }
}

TEST_CASE("Boxed is an optional on the heap with deep copies", "[model][boxed]") {
  model::Boxed<model::BasicAuth> empty;
  CHECK_FALSE(empty.has_value());
  CHECK_FALSE(static_cast<bool>(std::optional<model::BasicAuth>(empty)));
  model::BasicAuth auth;
  auth.username = model::SecretKeySelector{"user-secret", "user"};
  model::Boxed<model::BasicAuth> a = std::optional<model::BasicAuth>(auth);
  REQUIRE(a.has_value());
  model::Boxed<model::BasicAuth> b = a;
  b->username->name = "other";
  CHECK(a->username->name == "user-secret");  // the copy is deep
  std::optional<model::BasicAuth> back = a;
  REQUIRE(back);
  CHECK(back->username->key == "user");
  a = std::nullopt;
  CHECK_FALSE(a);
  CHECK(b.has_value());
  b.reset();
  CHECK_FALSE(b.has_value());
  CHECK(b.emplace(auth).username->name == "user-secret");
  // The reason for boxing: an endpoint with none of these set stays small.
  CHECK(sizeof(model::Endpoint) < 1024);
}
