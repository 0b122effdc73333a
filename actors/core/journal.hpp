// The journal's on-disk format: JSON Lines (keys sorted, compact JSON).
// Line 1 is a header {"flags":{...},"format":"agent-operator-journal",
// "operator_version":...,"version":2}; every further line is an event
// {"kind","object","seq","time","type"} or a marker {"marker",...}:
//  - "start" (seq = the last seq assigned before it, pid): a process
//    started; everything folded before it is void, and its informers'
//    initial lists follow as RESYNC events, ending at "synced".
//  - "snapshot" (seq, objects N, synced): a rotated file's base: the N
//    following lines are the folded state as of seq, as RESYNC events that
//    keep the seq and time of the change that produced them (a Secret or
//    ConfigMap tombstone is its RESYNC followed by its DELETED event).
//  - "synced": every informer of the process has listed once.
// Version 1 journals (no markers) are still read.
// Contract: encoding is pure and byte-deterministic. Reading is a scanner
// fed one line at a time: an unterminated last line (a crash mid-write) is
// a torn tail and is ignored; a bad header, an over-long or corrupt line
// elsewhere, a non-increasing seq or a malformed snapshot throws
// JournalError naming the 1-based line; scanner.stats() then tells how far
// the valid prefix reaches.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "actors/core/event.hpp"

namespace actors::core {

inline constexpr const char* kJournalFormat = "agent-operator-journal";
inline constexpr int kJournalVersion = 2;
// Longest header line accepted: anything longer is not a journal.
inline constexpr std::size_t kMaxJournalHeaderBytes = 64u << 10;
// Longest event line accepted. Kubernetes objects stay under ~1.5 MiB in
// etcd; JSON escaping can double that. A longer line is corruption.
inline constexpr std::size_t kMaxJournalLineBytes = 16u << 20;

struct JournalHeader {
  int version = kJournalVersion;
  std::string operator_version;
  std::map<std::string, std::string> flags;  // e.g. {"secrets": "redacted"}

  bool secrets_included() const;
  friend bool operator==(const JournalHeader&, const JournalHeader&) = default;
};

class JournalError : public std::runtime_error {
 public:
  JournalError(std::size_t line, const std::string& message);
  std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

enum class MarkerType { start, snapshot, synced };

struct JournalMarker {
  MarkerType type = MarkerType::start;
  std::uint64_t seq = 0;  // the last seq assigned before the marker
  std::int64_t time_ms = 0;
  std::int64_t pid = 0;       // start: the process that journals what follows
  std::uint64_t objects = 0;  // snapshot: how many RESYNC lines follow
  bool synced = true;         // snapshot: had the process listed everything?
  friend bool operator==(const JournalMarker&, const JournalMarker&) = default;
};

const char* marker_type_name(MarkerType t);

// One line each, including the trailing '\n'.
std::string encode_header(const JournalHeader& h);
std::string encode_event(const Event& e);
std::string encode_marker(const JournalMarker& m);

// One decoded line after the header: a marker or an event.
struct JournalRecord {
  std::optional<JournalMarker> marker;  // set: a marker line; else `event`
  Event event;
  bool in_snapshot = false;  // an event of a snapshot (seq <= the marker's)
};

// Parses one header or record line (without its '\n'); throws JournalError.
JournalHeader decode_header(std::string_view line, std::size_t line_no = 1);
Event decode_event(std::string_view line, std::size_t line_no);
JournalRecord decode_record(std::string_view line, std::size_t line_no);

struct JournalReadStats {
  std::size_t events = 0;  // snapshot events included
  std::size_t markers = 0;
  std::uint64_t last_seq = 0;  // highest seq assigned (events and markers)
  bool torn_tail = false;      // an incomplete last line was ignored
  std::size_t torn_bytes = 0;
  std::size_t valid_bytes = 0;       // length of the prefix that ends with the last good line
  bool stopped_at_until = false;     // reading stopped at the first record after `until`
  bool incomplete_snapshot = false;  // the file ends inside a snapshot
};

// Validates and decodes a journal line by line, calling `visit` for each
// record up to `until` (see the header comment for what stops it).
class JournalScanner {
 public:
  using Visit = std::function<void(JournalRecord&&)>;
  explicit JournalScanner(Visit visit, std::optional<std::uint64_t> until = std::nullopt);

  // One line without its '\n'; `end` is the offset just past it. False
  // once reading should stop (until reached or torn tail).
  bool feed(std::string_view line, bool terminated, std::size_t end);
  // Throws when no header was read.
  void finish();
  const JournalHeader& header() const { return header_; }
  const JournalReadStats& stats() const { return stats_; }

 private:
  bool accept(JournalRecord& r);
  void check_marker(const JournalMarker& m);
  void check_event(const Event& e, bool in_snapshot);

  Visit visit_;
  std::optional<std::uint64_t> until_;
  JournalHeader header_;
  JournalReadStats stats_;
  std::size_t line_no_ = 0;
  std::uint64_t snapshot_seq_ = 0, snapshot_left_ = 0;
  bool stopped_ = false;
};

// Feeds an in-memory journal to `scanner` (splitting lines).
void scan_text(std::string_view text, JournalScanner& scanner);

// Calls `on_event` for each event in order (markers are skipped), stopping
// after `until_seq` when given. Returns the header through `header`.
JournalReadStats for_each_event(std::string_view text, JournalHeader& header,
                                const std::function<void(Event&&)>& on_event,
                                std::optional<std::uint64_t> until_seq = std::nullopt);

struct JournalContents {
  JournalHeader header;
  std::vector<Event> events;
  std::vector<JournalMarker> markers;
  JournalReadStats stats;
};
JournalContents read_journal(std::string_view text, std::optional<std::uint64_t> until_seq = std::nullopt);

}  // namespace actors::core
