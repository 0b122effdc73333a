#include <catch2/catch.hpp>

#include <cstdio>

#include "actors/core/journal.hpp"
#include "actors/core/redact.hpp"
#include "actors_fixtures.hpp"
#include "model/codec.hpp"
#include "model/sha256.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;
using model::hmac_sha256;
using model::sha256_hex;
using model::to_hex;

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

TEST_CASE("Secret values are redacted to a keyed HMAC of their bytes", "[actors][journal][redact]") {
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
  RedactionPolicy policy("a key of thirty-two bytes, fixed");
  const std::string hunter2 = "hmac-sha256:" + to_hex(hmac_sha256(policy.key, "hunter2"));
  model::Value r = redact("Secret", secret, policy);
  CHECK(r.find("data") == nullptr);
  const model::Value& sd = *r.find("stringData");
  CHECK(sd.find("password")->as_string() == hunter2);
  CHECK(sd.find("token")->as_string() == "hmac-sha256:" + to_hex(hmac_sha256(policy.key, "abc")));
  std::string json = model::to_json(r);
  CHECK(json.find("hunter2") == std::string::npos);
  CHECK(json.find("aHVudGVyMg") == std::string::npos);
  CHECK(json.find(sha256_hex("hunter2")) == std::string::npos);
  // The redacted object still decodes, so a replay renders placeholders.
  model::Inventory inv;
  inv.add(r);
  CHECK(inv.problems().empty());
  CHECK(inv.secrets.at({"app", "creds"}).decoded->data.at("password") == hunter2);
  // Stable under one key; another key (another process) gives other values.
  CHECK(redact("Secret", secret, policy) == r);
  CHECK(redact("Secret", secret, RedactionPolicy()) != r);
  CHECK(RedactionPolicy().key != RedactionPolicy().key);
  CHECK(RedactionPolicy().key.size() == 32);
  CHECK(redaction_key_id(policy.key) == redaction_key_id(policy.key));
  CHECK(redaction_key_id(policy.key).find(policy.key) == std::string::npos);

  policy.include_secrets = true;
  CHECK(redact("Secret", secret, policy) == secret);
}

TEST_CASE("a dictionary attack recovers no Secret value from a redacted journal", "[actors][journal][redact]") {
  // Common passwords and every 4-digit PIN: what a dictionary tries first.
  std::vector<std::string> dictionary{"123456", "password", "12345678", "qwerty", "123456789", "12345",
                                      "111111", "1234567",  "letmein",  "admin",  "welcome",   "monkey",
                                      "dragon", "hunter2",  "changeme", "secret", "abc123",    ""};
  for (int pin = 0; pin < 10000; ++pin) {
    std::string digits = std::to_string(pin);
    dictionary.push_back(std::string(4 - digits.size(), '0') + digits);
  }
  std::vector<std::string> values{"123456", "password", "hunter2", "0042", "changeme"};
  RedactionPolicy policy;
  std::string journal = encode_header(header());
  std::uint64_t seq = 1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    model::Value s = model::Value::object();
    s.set("apiVersion", "v1");
    s.set("kind", "Secret");
    s.set("metadata", model::Value::obj({{"name", "s" + std::to_string(i)}, {"namespace", "app"}}));
    s.set("data", model::Value::obj({{"k1", model::base64_encode(values[i])}}));
    s.set("stringData", model::Value::obj({{"k2", values[i]}}));
    journal += encode_event(redact(make_event(seq++, 0, EventType::added, s), policy));
  }
  std::size_t placeholders = 0;
  for (std::size_t at = journal.find(kRedactedPrefix); at != std::string::npos;
       at = journal.find(kRedactedPrefix, at + 1))
    ++placeholders;
  CHECK(placeholders == 2 * values.size());
  // The attacker knows the format and every unkeyed or fixed-key transform,
  // but not the process's key.
  RedactionPolicy guess;
  std::size_t recovered = 0;
  for (const std::string& word : dictionary) {
    for (const std::string& form : {sha256_hex(word), to_hex(hmac_sha256("", word)),
                                    to_hex(hmac_sha256(guess.key, word)), model::base64_encode(word)}) {
      if (!form.empty() && journal.find(form) != std::string::npos) ++recovered;
    }
    if (word.size() >= 6 && journal.find("\"" + word + "\"") != std::string::npos) ++recovered;
  }
  CHECK(recovered == 0);
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
  CHECK(r.find("data")->find("ca.crt")->as_string() == redacted_value(policy.key, "PEM"));
  CHECK(r.find("data")->find("blob")->as_string() == redacted_value(policy.key, std::string("\0\1\2", 3)));
  Event e = make_event(1, 0, EventType::added, cm);
  CHECK(*redact(e, policy).object == r);
  CHECK(*e.object == cm);  // the original event is untouched
  // The target allocator's journal cannot tell which ConfigMaps hold
  // credentials: it redacts them all.
  RedactionPolicy every(policy.key);
  every.all_config_maps = true;
  CHECK(redact("ConfigMap", cm, every) == r);
  CHECK(every.redacts("ConfigMap", {"other", "any"}));
}

TEST_CASE("markers round-trip and snapshots are validated", "[actors][journal]") {
  std::vector<Event> events = sample_events();
  JournalMarker start{MarkerType::start, 0, actors_test::kT0, 77, 0, true};
  JournalMarker synced{MarkerType::synced, 3, actors_test::kT0, 0, 0, true};
  CHECK(encode_marker(start) == "{\"marker\":\"start\",\"pid\":77,\"seq\":0,\"time\":\"2024-05-01T12:00:00.000Z\"}\n");
  std::string text = encode_header(header()) + encode_marker(start);
  for (std::size_t i = 0; i < 3; ++i) text += encode_event(events[i]);
  text += encode_marker(synced);
  JournalContents read = read_journal(text);
  REQUIRE(read.markers.size() == 2);
  CHECK(read.markers[0] == start);
  CHECK(read.markers[1] == synced);
  CHECK(read.events.size() == 3);

  // A snapshot as of seq 3: two RESYNC lines keeping their own seqs.
  JournalMarker snap{MarkerType::snapshot, 3, actors_test::kT0, 0, 2, false};
  auto resync = [&](std::size_t i) {
    Event e = events[i];
    e.type = EventType::resync;
    return encode_event(e);
  };
  std::string rotated = encode_header(header()) + encode_marker(snap) + resync(2) + resync(0) + encode_event(events[3]);
  JournalContents r = read_journal(rotated);
  REQUIRE(r.markers.size() == 1);
  CHECK(r.markers[0] == snap);
  CHECK(r.events.size() == 3);
  CHECK(r.stats.last_seq == events[3].seq);
  // Too few snapshot lines, a non-RESYNC one, or one after the marker's seq.
  CHECK(read_journal(encode_header(header()) + encode_marker(snap) + resync(0)).stats.incomplete_snapshot);
  CHECK_THROWS_WITH(read_journal(encode_header(header()) + encode_marker(snap) + resync(0) + encode_marker(synced)),
                    Catch::Contains("inside a snapshot"));
  CHECK_THROWS_WITH(read_journal(encode_header(header()) + encode_marker(snap) + encode_event(events[0])),
                    Catch::Contains("only RESYNC events and tombstones"));
  CHECK_THROWS_WITH(read_journal(encode_header(header()) + encode_marker(snap) + resync(4)),
                    Catch::Contains("after the snapshot's seq"));
  // A marker going back in seq is corruption.
  CHECK_THROWS_WITH(read_journal(text + encode_marker(start)), Catch::Contains("goes back"));
  // --until at a restart stops before the start marker: the state at that
  // seq is the earlier process's.
  JournalMarker restart{MarkerType::start, 3, actors_test::kT0, 78, 0, true};
  JournalContents upto = read_journal(text + encode_marker(restart) + encode_event(events[3]), 3);
  CHECK(upto.markers.size() == 2);
  CHECK(upto.stats.stopped_at_until);
}
