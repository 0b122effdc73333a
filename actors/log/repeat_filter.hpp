// Rate limiting of repeated identical warnings and errors (a retry loop
// against an unreachable API server logs the same line every backoff).
// Pure: the caller passes the time, so tests drive it with a fake clock.
// Contract: an entry is identified by its level, component, message and
// fields. The first occurrence of a warn or error entry is written; later
// identical ones within `window` of the last written one are counted, not
// written. Once the window has passed, the next identical entry, or else
// any later admit() or flush(), writes one summary line: the entry with
// " (repeated N times)" appended to its message and a `repeated=N` field,
// N being the occurrences it stands for that were not written one by one.
// debug and info entries always pass. At most `max_tracked` distinct
// entries are tracked; beyond that, new ones pass unlimited.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/log.hpp"

namespace actors::log {

class RepeatFilter {
 public:
  explicit RepeatFilter(std::int64_t window_ms = 30'000, std::size_t max_tracked = 1024);

  // What to write now, in order, for `e` seen at `now_ms` (any monotonic
  // clock): summaries of repeats whose window ended, then `e` itself (or
  // its summary) unless it is a repeat inside its window.
  std::vector<model::LogEntry> admit(const model::LogEntry& e, std::int64_t now_ms);
  // The summaries of every repeat not yet reported (at exit); forgets all.
  std::vector<model::LogEntry> flush();

 private:
  struct Seen {
    model::LogEntry entry;
    std::int64_t since = 0;        // when it was last written
    std::uint64_t suppressed = 0;  // occurrences since then, not written
  };
  void expire(std::int64_t now_ms, const std::string& skip, std::vector<model::LogEntry>& out);

  std::int64_t window_ms_;
  std::size_t max_tracked_;
  std::map<std::string, Seen> seen_;  // by the entry's text
};

// `e` standing for `count` occurrences: "<msg> (repeated N times)", repeated=N.
model::LogEntry repeat_summary(const model::LogEntry& e, std::uint64_t count);

}  // namespace actors::log
