// The journal's I/O seam: where encoded journal lines go. FileJournal appends
// to a file with a configurable fsync policy and size-based rotation
// (path -> path.1 -> path.2 ...); MemoryJournal keeps lines in memory for
// tests and for the replay command's recording writer.
// Contract: append() takes exactly one complete line (encode_event output)
// and writes it with a single write(2), so a crash can tear at most the
// last line. Every file starts with the header line. Opening an existing
// file drops a torn tail, continues its seq (last_seq()), and rotates it
// away first when its header differs or it is corrupt. Errors throw
// std::system_error. Not thread-safe: one detached actor owns it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "actors/core/journal.hpp"

namespace actors::core {

class JournalSink {
 public:
  virtual ~JournalSink() = default;
  virtual void append(std::string_view line) = 0;
  // End of a batch of appends; durability point for FsyncPolicy::on_flush.
  virtual void flush() = 0;
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
  std::uint64_t max_bytes = 64ull << 20;  // rotate before a file would exceed this
  int keep_files = 5;                     // rotated files kept: path.1 .. path.N
};

class FileJournal final : public JournalSink {
 public:
  explicit FileJournal(FileJournalOptions opts);
  ~FileJournal() override;
  FileJournal(const FileJournal&) = delete;
  FileJournal& operator=(const FileJournal&) = delete;

  void append(std::string_view line) override;
  void flush() override;

  std::uint64_t last_seq() const { return last_seq_; }  // of the file found at open
  std::uint64_t file_bytes() const { return file_bytes_; }
  std::uint64_t fsyncs() const { return fsyncs_; }
  std::uint64_t rotations() const { return rotations_; }
  // Why an existing file was rotated away or truncated at open ("" if not).
  const std::string& open_note() const { return open_note_; }

 private:
  void recover_existing();
  void open_fresh();
  void rotate();
  void write_all(std::string_view bytes);
  void sync();

  FileJournalOptions opts_;
  int fd_ = -1;
  std::uint64_t file_bytes_ = 0, last_seq_ = 0, fsyncs_ = 0, rotations_ = 0;
  bool dirty_ = false;
  std::string open_note_;
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
