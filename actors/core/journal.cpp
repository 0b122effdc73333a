#include "actors/core/journal.hpp"

#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {
namespace {

using model::Value;

Value parse_line(std::string_view line, std::size_t line_no) {
  try {
    Value v = model::parse_json(line, "journal");
    if (!v.is_object()) throw JournalError(line_no, "expected a JSON object");
    return v;
  } catch (const model::ParseError& e) {
    throw JournalError(line_no, "invalid JSON: " + e.problem());
  }
}

const std::string& required_string(const Value& v, const char* key, std::size_t line_no) {
  const Value* f = v.find(key);
  if (!f || !f->is_string()) throw JournalError(line_no, std::string("missing string field \"") + key + "\"");
  return f->as_string();
}

}  // namespace

bool JournalHeader::secrets_included() const {
  auto it = flags.find("secrets");
  return it != flags.end() && it->second == "include";
}

JournalError::JournalError(std::size_t line, const std::string& message)
    : std::runtime_error("journal line " + std::to_string(line) + ": " + message), line_(line) {}

std::string encode_header(const JournalHeader& h) {
  Value flags = Value::object();
  for (const auto& [k, v] : h.flags) flags.set(k, v);
  Value v = Value::obj({{"format", kJournalFormat},
                        {"version", h.version},
                        {"operator_version", h.operator_version},
                        {"flags", std::move(flags)}});
  return model::to_json(v) + "\n";
}

std::string encode_event(const Event& e) {
  std::string out = "{\"kind\":";
  model::emit_json(Value(e.kind), out);
  out += ",\"object\":";
  model::emit_json(e.object ? *e.object : Value(), out);
  out += ",\"seq\":" + std::to_string(e.seq) + ",\"time\":\"" + format_rfc3339_ms(e.time_ms) + "\",\"type\":\"" +
         event_type_name(e.type) + "\"}\n";
  return out;
}

JournalHeader decode_header(std::string_view line, std::size_t line_no) {
  Value v = parse_line(line, line_no);
  const Value* format = v.find("format");
  if (!format || !format->is_string() || format->as_string() != kJournalFormat)
    throw JournalError(line_no, std::string("not a journal header (format must be \"") + kJournalFormat + "\")");
  const Value* version = v.find("version");
  if (!version || !version->is_int() || version->as_int() < 1 || version->as_int() > kJournalVersion)
    throw JournalError(
        line_no, "unsupported journal version (this build reads version " + std::to_string(kJournalVersion) + ")");
  JournalHeader h;
  h.version = static_cast<int>(version->as_int());
  h.operator_version = required_string(v, "operator_version", line_no);
  const Value* flags = v.find("flags");
  if (!flags || !flags->is_object()) throw JournalError(line_no, "missing object field \"flags\"");
  for (const auto& [k, f] : flags->as_object()) {
    if (!f.is_string()) throw JournalError(line_no, "flag \"" + k + "\" must be a string");
    h.flags.emplace(k, f.as_string());
  }
  return h;
}

Event decode_event(std::string_view line, std::size_t line_no) {
  Value v = parse_line(line, line_no);
  Event e;
  const Value* seq = v.find("seq");
  if (!seq || !seq->is_int() || seq->as_int() < 1) throw JournalError(line_no, "\"seq\" must be a positive integer");
  e.seq = static_cast<std::uint64_t>(seq->as_int());
  auto time = parse_rfc3339_ms(required_string(v, "time", line_no));
  if (!time) throw JournalError(line_no, "\"time\" is not RFC 3339 UTC with milliseconds");
  e.time_ms = *time;
  e.kind = required_string(v, "kind", line_no);
  auto type = parse_event_type(required_string(v, "type", line_no));
  if (!type) throw JournalError(line_no, "\"type\" must be ADDED, MODIFIED, DELETED or RESYNC");
  e.type = *type;
  Value* object = v.find("object");
  if (!object || !object->is_object()) throw JournalError(line_no, "missing object field \"object\"");
  e.object = make_object(std::move(*object));
  return e;
}

JournalReadStats for_each_event(std::string_view text, JournalHeader& header,
                                const std::function<void(Event&&)>& on_event, std::optional<std::uint64_t> until_seq) {
  JournalReadStats stats;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    bool terminated = nl != std::string_view::npos;
    std::string_view line = text.substr(pos, terminated ? nl - pos : std::string_view::npos);
    ++line_no;
    std::size_t next = terminated ? nl + 1 : text.size();
    try {
      if (line_no == 1) {
        header = decode_header(line, line_no);
      } else {
        Event e = decode_event(line, line_no);
        if (e.seq <= stats.last_seq)
          throw JournalError(line_no,
                             "seq " + std::to_string(e.seq) + " does not follow " + std::to_string(stats.last_seq));
        if (until_seq && e.seq > *until_seq) break;
        stats.last_seq = e.seq;
        ++stats.events;
        on_event(std::move(e));
      }
    } catch (const JournalError&) {
      if (terminated || line_no == 1) throw;
      stats.torn_tail = true;  // a crash mid-write: the unterminated tail is dropped
      break;
    }
    stats.valid_bytes = next;
    pos = next;
  }
  if (line_no == 0) throw JournalError(1, "empty journal: missing header");
  return stats;
}

JournalContents read_journal(std::string_view text, std::optional<std::uint64_t> until_seq) {
  JournalContents out;
  out.stats = for_each_event(
      text, out.header, [&](Event&& e) { out.events.push_back(std::move(e)); }, until_seq);
  return out;
}

}  // namespace actors::core
