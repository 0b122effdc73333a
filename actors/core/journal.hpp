// The journal's on-disk format: JSON Lines. Line 1 is a header
// {"format":"agent-operator-journal","version":1,"operator_version":...,
// "flags":{...}}; every further line is one event
// {"kind","object","seq","time","type"} (keys sorted, compact JSON).
// Contract: encoding is pure and byte-deterministic. Reading tolerates a
// torn last line (no trailing newline and not a complete event: a crash
// mid-write) by ignoring it; a bad header, a corrupt line elsewhere or a
// non-increasing seq throws JournalError naming the 1-based line.
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
inline constexpr int kJournalVersion = 1;

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

// One line each, including the trailing '\n'.
std::string encode_header(const JournalHeader& h);
std::string encode_event(const Event& e);

// Parses one header or event line (without its '\n'); throws JournalError.
JournalHeader decode_header(std::string_view line, std::size_t line_no = 1);
Event decode_event(std::string_view line, std::size_t line_no);

struct JournalReadStats {
  std::size_t events = 0;
  std::uint64_t last_seq = 0;
  bool torn_tail = false;       // an incomplete last line was ignored
  std::size_t valid_bytes = 0;  // length of the prefix that ends with the last good line
};

// Calls `on_event` for each event in order, stopping after `until_seq` when
// given. Returns the header through `header`.
JournalReadStats for_each_event(std::string_view text, JournalHeader& header,
                                const std::function<void(Event&&)>& on_event,
                                std::optional<std::uint64_t> until_seq = std::nullopt);

struct JournalContents {
  JournalHeader header;
  std::vector<Event> events;
  JournalReadStats stats;
};
JournalContents read_journal(std::string_view text, std::optional<std::uint64_t> until_seq = std::nullopt);

}  // namespace actors::core
