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

std::int64_t required_int(const Value& v, const char* key, std::int64_t min, std::size_t line_no) {
  const Value* f = v.find(key);
  if (!f || !f->is_int() || f->as_int() < min)
    throw JournalError(line_no, std::string("\"") + key + "\" must be an integer >= " + std::to_string(min));
  return f->as_int();
}

std::int64_t required_time(const Value& v, std::size_t line_no) {
  auto time = parse_rfc3339_ms(required_string(v, "time", line_no));
  if (!time) throw JournalError(line_no, "\"time\" is not RFC 3339 UTC with milliseconds");
  return *time;
}

Event event_of(Value& v, std::size_t line_no) {
  Event e;
  e.seq = static_cast<std::uint64_t>(required_int(v, "seq", 1, line_no));
  e.time_ms = required_time(v, line_no);
  e.kind = required_string(v, "kind", line_no);
  auto type = model::parse_change(required_string(v, "type", line_no));
  if (!type) throw JournalError(line_no, "\"type\" must be ADDED, MODIFIED, DELETED or RESYNC");
  e.type = *type;
  Value* object = v.find("object");
  if (!object || !object->is_object()) throw JournalError(line_no, "missing object field \"object\"");
  e.object = make_object(std::move(*object));
  return e;
}

JournalMarker marker_of(const Value& v, std::size_t line_no) {
  JournalMarker m;
  const std::string& name = required_string(v, "marker", line_no);
  if (name == "start")
    m.type = MarkerType::start;
  else if (name == "snapshot")
    m.type = MarkerType::snapshot;
  else if (name == "synced")
    m.type = MarkerType::synced;
  else
    throw JournalError(line_no, "unknown marker \"" + name + "\"");
  m.seq = static_cast<std::uint64_t>(required_int(v, "seq", 0, line_no));
  m.time_ms = required_time(v, line_no);
  if (m.type == MarkerType::start) m.pid = required_int(v, "pid", 0, line_no);
  if (m.type == MarkerType::snapshot) {
    m.objects = static_cast<std::uint64_t>(required_int(v, "objects", 0, line_no));
    const Value* synced = v.find("synced");
    if (!synced || !synced->is_bool()) throw JournalError(line_no, "snapshot marker: \"synced\" must be a boolean");
    m.synced = synced->as_bool();
  }
  return m;
}

}  // namespace

bool JournalHeader::secrets_included() const {
  auto it = flags.find("secrets");
  return it != flags.end() && (it->second == "include" || it->second == "included");
}

JournalError::JournalError(std::size_t line, const std::string& message)
    : std::runtime_error("journal line " + std::to_string(line) + ": " + message), line_(line) {}

const char* marker_type_name(MarkerType t) {
  switch (t) {
    case MarkerType::start:
      return "start";
    case MarkerType::snapshot:
      return "snapshot";
    case MarkerType::synced:
      return "synced";
  }
  return "?";
}

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
         model::change_name(e.type) + "\"}\n";
  return out;
}

std::string encode_marker(const JournalMarker& m) {
  std::string out = std::string("{\"marker\":\"") + marker_type_name(m.type) + "\"";
  if (m.type == MarkerType::snapshot) out += ",\"objects\":" + std::to_string(m.objects);
  if (m.type == MarkerType::start) out += ",\"pid\":" + std::to_string(m.pid);
  out += ",\"seq\":" + std::to_string(m.seq);
  if (m.type == MarkerType::snapshot) out += std::string(",\"synced\":") + (m.synced ? "true" : "false");
  return out + ",\"time\":\"" + format_rfc3339_ms(m.time_ms) + "\"}\n";
}

JournalHeader decode_header(std::string_view line, std::size_t line_no) {
  Value v = parse_line(line, line_no);
  const Value* format = v.find("format");
  if (!format || !format->is_string() || format->as_string() != kJournalFormat)
    throw JournalError(line_no, std::string("not a journal header (format must be \"") + kJournalFormat + "\")");
  const Value* version = v.find("version");
  if (!version || !version->is_int() || version->as_int() < 1 || version->as_int() > kJournalVersion)
    throw JournalError(line_no, "unsupported journal version (this build reads versions 1 to " +
                                    std::to_string(kJournalVersion) + ")");
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
  return event_of(v, line_no);
}

JournalRecord decode_record(std::string_view line, std::size_t line_no) {
  Value v = parse_line(line, line_no);
  JournalRecord r;
  if (v.find("marker"))
    r.marker = marker_of(v, line_no);
  else
    r.event = event_of(v, line_no);
  return r;
}

JournalScanner::JournalScanner(Visit visit, std::optional<std::uint64_t> until)
    : visit_(std::move(visit)), until_(until) {}

bool JournalScanner::feed(std::string_view line, bool terminated, std::size_t end) {
  if (stopped_) return false;
  ++line_no_;
  if (line_no_ == 1) {
    if (line.size() > kMaxJournalHeaderBytes || line.substr(0, 1) != "{")
      throw JournalError(1, "not an agent-operator journal (it must start with a JSON header line of at most " +
                                std::to_string(kMaxJournalHeaderBytes) + " bytes)");
    if (!terminated) throw JournalError(1, "incomplete header line: the file ends before its first newline");
    header_ = decode_header(line, 1);
    stats_.valid_bytes = end;
    return true;
  }
  if (line.size() > kMaxJournalLineBytes)
    throw JournalError(line_no_, "line longer than " + std::to_string(kMaxJournalLineBytes) + " bytes");
  if (!terminated) {  // a crash mid-write: the whole line was one write(2) ending in '\n'
    stats_.torn_tail = true;
    stats_.torn_bytes = line.size();
    stopped_ = true;
    return false;
  }
  JournalRecord r = decode_record(line, line_no_);
  if (!accept(r)) {
    stats_.stopped_at_until = true;
    stopped_ = true;
    return false;
  }
  stats_.valid_bytes = end;
  visit_(std::move(r));
  return true;
}

// Validates the record's place in the stream; false when it lies beyond
// `until` (the scanner stops before it).
bool JournalScanner::accept(JournalRecord& r) {
  if (r.marker) {
    const JournalMarker& m = *r.marker;
    check_marker(m);
    if (until_ && ((m.type == MarkerType::start && m.seq >= *until_) || m.seq > *until_)) return false;
    ++stats_.markers;
    stats_.last_seq = std::max(stats_.last_seq, m.seq);
    if (m.type == MarkerType::snapshot) {
      snapshot_seq_ = m.seq;
      snapshot_left_ = m.objects;
    }
    stats_.incomplete_snapshot = snapshot_left_ > 0;
    return true;
  }
  r.in_snapshot = snapshot_left_ > 0;
  check_event(r.event, r.in_snapshot);
  if (!r.in_snapshot && until_ && r.event.seq > *until_) return false;
  ++stats_.events;
  if (r.in_snapshot) {
    --snapshot_left_;
  } else {
    stats_.last_seq = r.event.seq;
  }
  stats_.incomplete_snapshot = snapshot_left_ > 0;
  return true;
}

void JournalScanner::check_marker(const JournalMarker& m) {
  if (snapshot_left_ > 0)
    throw JournalError(line_no_, std::string(marker_type_name(m.type)) + " marker inside a snapshot (" +
                                     std::to_string(snapshot_left_) + " objects still expected)");
  if (m.seq < stats_.last_seq)
    throw JournalError(line_no_, std::string(marker_type_name(m.type)) + " marker at seq " + std::to_string(m.seq) +
                                     " goes back from seq " + std::to_string(stats_.last_seq));
}

void JournalScanner::check_event(const Event& e, bool in_snapshot) {
  if (in_snapshot) {
    if (e.type != EventType::resync && e.type != EventType::deleted)
      throw JournalError(line_no_, "a snapshot holds only RESYNC events and tombstones (DELETED)");
    if (e.seq > snapshot_seq_)
      throw JournalError(line_no_, "snapshot event seq " + std::to_string(e.seq) + " is after the snapshot's seq " +
                                       std::to_string(snapshot_seq_));
    return;
  }
  if (e.seq <= stats_.last_seq)
    throw JournalError(line_no_,
                       "seq " + std::to_string(e.seq) + " does not follow " + std::to_string(stats_.last_seq));
}

void JournalScanner::finish() {
  if (line_no_ == 0) throw JournalError(1, "empty journal: missing header");
}

void scan_text(std::string_view text, JournalScanner& scanner) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    bool terminated = nl != std::string_view::npos;
    std::size_t next = terminated ? nl + 1 : text.size();
    if (!scanner.feed(text.substr(pos, (terminated ? nl : text.size()) - pos), terminated, next)) break;
    pos = next;
  }
  scanner.finish();
}

JournalReadStats for_each_event(std::string_view text, JournalHeader& header,
                                const std::function<void(Event&&)>& on_event, std::optional<std::uint64_t> until_seq) {
  JournalScanner scanner(
      [&](JournalRecord&& r) {
        if (!r.marker) on_event(std::move(r.event));
      },
      until_seq);
  scan_text(text, scanner);
  header = scanner.header();
  return scanner.stats();
}

JournalContents read_journal(std::string_view text, std::optional<std::uint64_t> until_seq) {
  JournalContents out;
  JournalScanner scanner(
      [&](JournalRecord&& r) {
        if (r.marker)
          out.markers.push_back(*r.marker);
        else
          out.events.push_back(std::move(r.event));
      },
      until_seq);
  scan_text(text, scanner);
  out.header = scanner.header();
  out.stats = scanner.stats();
  return out;
}

}  // namespace actors::core
