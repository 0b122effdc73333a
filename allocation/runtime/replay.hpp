// `target-allocator replay`: folds a recorded journal with runtime::State,
// the code the live allocator runs, up to a seq, and reports the
// assignment there; with an explain target, also why that target sits on
// its collector and which inputs last moved it.
// Contract: pure (the caller reads the file and feeds its lines in order).
// feed() throws InputError naming the line on a bad header or line, and
// returns false once a line past `until` was seen (that line is not
// applied). A torn last line (no '\n') is the caller's to drop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/runtime/state.hpp"

namespace allocation::runtime {

// Collector name -> its targets as "job/address", sorted; unassigned
// targets under "" .
using Assignment = std::map<std::string, std::vector<std::string>>;
Assignment assignment_of(const Allocator& allocator);
// The report's text for an assignment: "collector NAME: N targets" (or
// "unassigned: N targets") and one "  job/address" line per target.
std::string format_assignment(const Assignment& assignment);

struct ReplayOptions {
  std::optional<std::uint64_t> until;
  std::string explain;  // "JOB/ADDRESS" ("" = none); the address is after the last '/'
};

class Replayer {
 public:
  explicit Replayer(ReplayOptions options) : options_(std::move(options)) {}

  bool feed(std::string_view line, std::size_t line_no);
  const State& state() const { return state_; }
  std::uint64_t last_seq() const { return last_seq_; }
  // The fold's log entries, each with the seq of its input.
  const std::vector<model::LogEntry>& logs() const { return logs_; }
  // The assignment, and the explanation when one was asked for.
  std::string report() const;

 private:
  void track_moves();

  ReplayOptions options_;
  State state_;
  bool header_ = false;
  std::uint64_t last_seq_ = 0;
  std::vector<model::LogEntry> logs_;
  std::vector<std::string> batch_;           // inputs since the last reallocate
  std::optional<std::string> explained_on_;  // the explain target's collector at the last reallocate
  std::string last_move_;
};

}  // namespace allocation::runtime
