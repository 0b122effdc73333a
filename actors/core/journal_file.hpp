// The journal's I/O seam: where encoded journal lines go. FileJournal appends
// to a file with a configurable fsync policy and size-based rotation
// (path -> path.1 -> path.2 ...); MemoryJournal keeps lines in memory for
// tests and for the replay command's recording writer.
// Contract: append() takes exactly one complete line (an encode_* output)
// and writes it with a single write(2), so a crash can tear at most the
// last line. Every file starts with the header line; a rotated file then
// starts with its base state, written by the caller through rotate(), so
// it replays on its own. FileJournal holds an exclusive JournalLock for
// its lifetime (a second process is refused with JournalLocked). Opening
// an existing file cuts a torn tail and continues its seq (last_seq());
// a file with another header is rotated away; a corrupt one is set aside
// as path.corrupt-<UTC time> (out of the rotated set). Each of these is
// logged (component journal, never file contents). Errors throw
// std::system_error. Not thread-safe: one detached actor owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "actors/core/journal.hpp"
#include "actors/core/journal_lock.hpp"
#include "model/log.hpp"

namespace actors::core {

// Whether a journal file (or rotated part) is there; the writer and the
// reader agree on what "there" means.
bool journal_path_exists(const std::string& path);

class JournalSink {
 public:
  using LineWriter = std::function<void(std::string_view line)>;
  using BaseWriter = std::function<void(const LineWriter&)>;

  virtual ~JournalSink() = default;
  virtual void append(std::string_view line) = 0;
  // End of a batch of appends; durability point for FsyncPolicy::on_flush.
  virtual void flush() = 0;
  // True when a line of `line_bytes` should go to a new file; the caller
  // then calls rotate() with the base state before appending it.
  virtual bool needs_rotation(std::size_t /*line_bytes*/) const { return false; }
  // Starts a new file: header, then the lines `write_base` writes.
  virtual void rotate(const BaseWriter& /*write_base*/) {}
};

enum class FsyncPolicy {
  never,         // leave it to the kernel
  on_flush,      // fsync once per flush() (per mailbox batch)
  every_append,  // fsync after every event
};

struct FileJournalOptions {
  std::string path;
  JournalHeader header;
  FsyncPolicy fsync = FsyncPolicy::on_flush;
  // Rotate before a file would exceed this, once the file holds at least
  // as many bytes of events as its base state: a base larger than the
  // limit must not make every event rotate.
  std::uint64_t max_bytes = 64ull << 20;
  int keep_files = 5;  // rotated files kept: path.1 .. path.N
  model::Log log;      // housekeeping
};

class FileJournal final : public JournalSink {
 public:
  explicit FileJournal(FileJournalOptions opts);
  ~FileJournal() override;
  FileJournal(const FileJournal&) = delete;
  FileJournal& operator=(const FileJournal&) = delete;

  void append(std::string_view line) override;
  void flush() override;
  bool needs_rotation(std::size_t line_bytes) const override;
  void rotate(const BaseWriter& write_base) override;

  std::uint64_t last_seq() const { return last_seq_; }  // of the journal found at open
  std::uint64_t file_bytes() const { return file_bytes_; }
  std::uint64_t fsyncs() const { return fsyncs_; }
  std::uint64_t rotations() const { return rotations_; }
  // Why an existing file was rotated away, set aside or cut at open ("" if not).
  const std::string& open_note() const { return open_note_; }
  const std::string& set_aside_path() const { return set_aside_; }  // "" unless corrupt

 private:
  void recover_existing();
  void set_aside(const std::string& reason, std::size_t valid_bytes);
  void open_fresh();
  void shift_files();
  void write_all(std::string_view bytes);
  void sync();

  FileJournalOptions opts_;
  JournalLock lock_;
  int fd_ = -1;
  std::uint64_t file_bytes_ = 0, base_bytes_ = 0, last_seq_ = 0, fsyncs_ = 0, rotations_ = 0;
  bool dirty_ = false;
  std::string open_note_, set_aside_;
};

class MemoryJournal final : public JournalSink {
 public:
  explicit MemoryJournal(const JournalHeader& h) : text_(encode_header(h)) {}
  void append(std::string_view line) override { text_.append(line); }
  void flush() override { ++flushes_; }
  const std::string& text() const { return text_; }
  std::size_t flushes() const { return flushes_; }

 private:
  std::string text_;
  std::size_t flushes_ = 0;
};

}  // namespace actors::core
