#include "actors/core/journal_replay.hpp"

#include "actors/core/journal_reader.hpp"
#include "actors/core/root_state.hpp"

namespace actors::core {

namespace {

// A deleted Secret or ConfigMap becomes a tombstone only in the roots that
// hold it (root_state.cpp), and live roots hold what their settled
// subscriptions brought them: the fold settles first, as the live roots
// had (the replay otherwise settles only at the end).
bool starts_tombstone(const Event& e) {
  return e.type == EventType::deleted && (e.kind == "Secret" || e.kind == "ConfigMap") && e.object &&
         !is_grace_expiry(*e.object);
}

}  // namespace

ReplayFold::ReplayFold(const ReplayOptions& opts) : opts_(opts), pipeline_(opts.render) {}

bool ReplayFold::begin_file(const std::string& name) {
  if (done_) return false;
  file_ = name;
  file_start_ = true;
  ++report_.files;
  return true;
}

void ReplayFold::check_order(std::uint64_t seq) {
  if (!file_start_) return;
  file_start_ = false;
  if (any_record_ && seq < prev_seq_)
    throw ReplayError(file_ + " starts at seq " + std::to_string(seq) + ", before the previous file's seq " +
                      std::to_string(prev_seq_) + ": give the files oldest first");
}

void ReplayFold::record(JournalRecord&& r, const JournalHeader& header) {
  if (!any_record_) report_.header = header;
  check_order(r.marker ? r.marker->seq : r.event.seq);
  if (r.marker) {
    if (r.marker->type == MarkerType::synced)
      listed_ = true;
    else
      reset(*r.marker, header);
    any_record_ = true;
    return;
  }
  if (!r.in_snapshot) check_continuity(r.event, header);
  any_record_ = true;
  if (starts_tombstone(r.event)) pipeline_.settle();
  pipeline_.feed(r.event);
  ++report_.events;
  report_.last_seq = std::max(report_.last_seq, r.event.seq);
}

// Everything folded so far is void: a restarted process listed the
// cluster afresh (what vanished meanwhile is gone), or a snapshot holds
// the whole state.
void ReplayFold::reset(const JournalMarker& m, const JournalHeader& header) {
  pipeline_ = Pipeline(opts_.render);
  ++report_.resets;
  based_ = true;
  no_base_.clear();
  report_.header = header;
  prev_seq_ = m.seq;
  report_.last_seq = std::max(report_.last_seq, m.seq);
  if (m.type == MarkerType::start) {
    listed_ = false;
    report_.base =
        "start marker after seq " + std::to_string(m.seq) + " (pid " + std::to_string(m.pid) + ") in " + file_;
  } else {
    listed_ = m.synced;
    report_.base =
        "snapshot of " + std::to_string(m.objects) + " objects as of seq " + std::to_string(m.seq) + " in " + file_;
  }
}

// Without a marker, events only extend a base state when their seqs are
// contiguous from one (a journal begun on an empty state).
void ReplayFold::check_continuity(const Event& e, const JournalHeader& header) {
  if (!any_record_) {
    if (e.seq == 1) {
      based_ = true;
      report_.header = header;
      report_.base = "seq 1 (a journal begun on an empty state) in " + file_;
    } else {
      no_base_ = file_ + ": no base state: it starts at seq " + std::to_string(e.seq) +
                 " without a start marker or snapshot (a file rotated before journal version 2, or a cut "
                 "file), so objects that did not change after that are missing";
    }
  } else if (e.seq != prev_seq_ + 1 && based_) {
    based_ = false;
    no_base_ = file_ + ": seq jumps from " + std::to_string(prev_seq_) + " to " + std::to_string(e.seq) +
               " without a start marker or snapshot (a rotated file is missing), so the state is incomplete";
  }
  prev_seq_ = e.seq;
}

void ReplayFold::end_file(const JournalReadStats& stats) {
  if (stats.torn_tail)
    report_.warnings.push_back(file_ + ": ignored a torn last line (" + std::to_string(stats.torn_bytes) +
                               " bytes at offset " + std::to_string(stats.valid_bytes) + ")");
  if (stats.incomplete_snapshot) report_.warnings.push_back(file_ + ": ends inside its snapshot");
  if (stats.stopped_at_until) done_ = true;
}

ReplayReport ReplayFold::finish() {
  if (!any_record_) {
    std::string where = opts_.until ? " up to seq " + std::to_string(*opts_.until) : "";
    throw ReplayError("nothing to replay" + where + ": " +
                      (opts_.until ? "the journal's first state comes after that seq (add older rotated files)"
                                   : "the journal holds no events"));
  }
  if (!based_) {
    if (!opts_.partial) throw ReplayError(no_base_);
    report_.warnings.push_back(no_base_ + " (--partial: replayed anyway)");
  }
  if (report_.header.version < 2)
    report_.warnings.push_back("journal version " + std::to_string(report_.header.version) +
                               " marks no restarts: objects deleted while the operator was down may still appear");
  if (!listed_)
    report_.warnings.push_back("stopped at seq " + std::to_string(report_.last_seq) +
                               " before the operator had listed the whole cluster after its start: the live "
                               "operator had rendered nothing at this point");
  pipeline_.settle();
  return report_;
}

ReplayReport replay_files(const std::vector<std::string>& files, const ReplayOptions& opts, Pipeline& out) {
  ReplayFold fold(opts);
  for (const std::string& file : files) {
    if (!fold.begin_file(file)) break;
    JournalScanner* self = nullptr;
    JournalScanner scanner([&](JournalRecord&& r) { fold.record(std::move(r), self->header()); }, opts.until);
    self = &scanner;
    try {
      scan_file(file, scanner);
    } catch (const JournalError& e) {  // names the line
      throw std::runtime_error(file + ": " + e.what());
    }
    fold.end_file(scanner.stats());
  }
  ReplayReport report = fold.finish();
  out = fold.take();
  return report;
}

}  // namespace actors::core
