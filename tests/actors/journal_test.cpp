#include <catch2/catch.hpp>

#include "actors/core/journal.hpp"
#include "actors/core/redact.hpp"
#include "actors/core/sha256.hpp"
#include "actors_fixtures.hpp"
#include "model/codec.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;

namespace {

JournalHeader header() {
  return JournalHeader{1, "0.1.0", {{"secrets", "redacted"}}};
}

std::string journal_of(const std::vector<Event>& events) {
  std::string text = encode_header(header());
  for (const auto& e : events) text += encode_event(e);
  return text;
}

std::vector<Event> sample_events() {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  c.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}}"), EventType::deleted);
  return c.events();
}

}  // namespace

TEST_CASE("event times are RFC 3339 UTC with milliseconds", "[actors][journal]") {
  CHECK(format_rfc3339_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_rfc3339_ms(1714564800250) == "2024-05-01T12:00:00.250Z");
  CHECK(format_rfc3339_ms(951782400000 + 86'399'999) == "2000-02-29T23:59:59.999Z");
  CHECK(parse_rfc3339_ms("2024-05-01T12:00:00.250Z") == 1714564800250);
  CHECK_FALSE(parse_rfc3339_ms("2024-05-01T12:00:00Z"));
  CHECK_FALSE(parse_rfc3339_ms("2024-13-01T12:00:00.000Z"));
}

TEST_CASE("journal round trip keeps every event", "[actors][journal]") {
  std::vector<Event> events = sample_events();
  std::string text = journal_of(events);
  JournalContents read = read_journal(text);
  CHECK(read.header == header());
  CHECK_FALSE(read.stats.torn_tail);
  REQUIRE(read.events.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(read.events[i].seq == events[i].seq);
    CHECK(read.events[i].time_ms == events[i].time_ms);
    CHECK(read.events[i].kind == events[i].kind);
    CHECK(read.events[i].type == events[i].type);
    CHECK(*read.events[i].object == *events[i].object);
    CHECK(encode_event(read.events[i]) == encode_event(events[i]));
  }
  CHECK(read.events.back().type == EventType::deleted);
  CHECK(read_journal(text, 3).events.size() == 3);
}

TEST_CASE("a torn last line is ignored corrupt lines elsewhere are reported", "[actors][journal]") {
  std::vector<Event> events = sample_events();
  std::string text = journal_of(events);
  std::string last = encode_event(events.back());
  std::string torn = text.substr(0, text.size() - last.size() / 2);
  JournalContents read = read_journal(torn);
  CHECK(read.stats.torn_tail);
  CHECK(read.events.size() == events.size() - 1);
  CHECK(read.stats.valid_bytes == text.size() - last.size());

  std::string corrupt = text;
  std::size_t line3 = corrupt.find('\n', corrupt.find('\n') + 1) + 1;  // start of line 3
  corrupt.insert(line3 + 5, "#garbage#");
  try {
    read_journal(corrupt);
    FAIL("corrupt line accepted");
  } catch (const JournalError& e) {
    CHECK(e.line() == 3);
  }
  // A complete last line that is corrupt (terminated) is not a torn write.
  CHECK_THROWS_AS(read_journal(text + "{\"seq\":\n"), JournalError);
}

TEST_CASE("a bad header or out-of-order seq is rejected", "[actors][journal]") {
  std::string body = encode_event(sample_events().front());
  CHECK_THROWS_AS(read_journal(""), JournalError);
  CHECK_THROWS_AS(read_journal("{\"format\":\"something-else\",\"version\":1}\n" + body), JournalError);
  CHECK_THROWS_AS(read_journal("{\"format\":\"agent-operator-journal\",\"version\":99,\"operator_version\":\"x\","
                               "\"flags\":{}}\n" +
                               body),
                  JournalError);
  CHECK_THROWS_AS(read_journal(body), JournalError);  // an event where the header belongs
  std::vector<Event> events = sample_events();
  std::swap(events[1], events[2]);
  try {
    read_journal(journal_of(events));
    FAIL("out-of-order seq accepted");
  } catch (const JournalError& e) {
    CHECK(e.line() == 4);
  }
}

TEST_CASE("Secret values are redacted to sha256 of their bytes", "[actors][journal][redact]") {
  model::Value secret = doc(R"(
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: app
  annotations: {kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"aHVudGVyMg=="}}'}
data: {password: aHVudGVyMg==}
stringData: {token: abc}
)");
  RedactionPolicy policy;
  model::Value r = redact("Secret", secret, policy);
  CHECK(r.find("data") == nullptr);
  const model::Value& sd = *r.find("stringData");
  CHECK(sd.find("password")->as_string() == "sha256:" + sha256_hex("hunter2"));
  CHECK(sd.find("token")->as_string() == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string json = model::to_json(r);
  CHECK(json.find("hunter2") == std::string::npos);
  CHECK(json.find("aHVudGVyMg") == std::string::npos);
  // The redacted object still decodes, so a replay renders placeholders.
  model::Inventory inv;
  inv.add(r);
  CHECK(inv.problems().empty());
  CHECK(inv.secrets.at({"app", "creds"}).data.at("password") == "sha256:" + sha256_hex("hunter2"));

  policy.include_secrets = true;
  CHECK(redact("Secret", secret, policy) == secret);
}

TEST_CASE("ConfigMaps are redacted only when referenced as secrets", "[actors][journal][redact]") {
  model::Value cm = doc(R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: app}
data: {ca.crt: PEM}
binaryData: {blob: AAEC}
)");
  RedactionPolicy policy;
  CHECK(redact("ConfigMap", cm, policy) == cm);
  policy.secret_config_maps.insert({"app", "ca"});
  model::Value r = redact("ConfigMap", cm, policy);
  CHECK(r.find("binaryData") == nullptr);
  CHECK(r.find("data")->find("ca.crt")->as_string() == "sha256:" + sha256_hex("PEM"));
  CHECK(r.find("data")->find("blob")->as_string() == "sha256:" + sha256_hex(std::string("\0\1\2", 3)));
  Event e = make_event(1, 0, EventType::added, cm);
  CHECK(*redact(e, policy).object == r);
  CHECK(*e.object == cm);  // the original event is untouched
}
