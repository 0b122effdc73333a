// Replaying journals: folds the records of one file or of a rotated set
// (oldest first) through a Pipeline, as the replay command does. A start
// or snapshot marker resets the fold (a restart forgets what vanished
// while the operator was down; a snapshot is the whole state), so each
// rotated file replays on its own and a set replays in order.
// Contract: the fold needs a base state: a start or snapshot marker, or a
// first event with seq 1 (a journal begun on an empty state), and no seq
// gap since. Without one (a rotated file from before version 2, a cut
// file, a missing rotated file, or --until before the first snapshot)
// finish() throws ReplayError saying why, unless `partial` is set, which
// turns that into a warning. A scan error throws JournalError with the
// file's name prefixed (as std::runtime_error); files out of order (one
// starting before the previous one's last seq) throw ReplayError.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/core/journal.hpp"
#include "actors/core/pipeline.hpp"

namespace actors::core {

class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReplayOptions {
  std::optional<std::uint64_t> until;
  bool partial = false;  // fold without a base state (with a warning)
  model::RenderOptions render;
};

struct ReplayReport {
  std::size_t events = 0, files = 0, resets = 0;
  std::uint64_t last_seq = 0;
  JournalHeader header;  // of the file holding the base state
  std::string base;      // where the base state comes from
  std::vector<std::string> warnings;
};

class ReplayFold {
 public:
  explicit ReplayFold(const ReplayOptions& opts);

  // False when `--until` was reached in an earlier file (skip the rest).
  bool begin_file(const std::string& name);
  void record(JournalRecord&& r, const JournalHeader& header);
  void end_file(const JournalReadStats& stats);
  // Settles the pipeline; throws ReplayError without a base state.
  ReplayReport finish();
  const Pipeline& pipeline() const { return pipeline_; }
  Pipeline take() { return std::move(pipeline_); }

 private:
  void reset(const JournalMarker& m, const JournalHeader& header);
  void check_continuity(const Event& e, const JournalHeader& header);

  ReplayOptions opts_;
  Pipeline pipeline_;
  ReplayReport report_;
  std::string file_;
  void check_order(std::uint64_t seq);

  bool based_ = false, any_record_ = false, listed_ = true, done_ = false, file_start_ = false;
  std::string no_base_;  // why the fold has no base state
  std::uint64_t prev_seq_ = 0;
};

// Scans `files` (oldest first; "-" is standard input) into a ReplayFold.
ReplayReport replay_files(const std::vector<std::string>& files, const ReplayOptions& opts, Pipeline& out);

}  // namespace actors::core
