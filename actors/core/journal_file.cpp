#include "actors/core/journal_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "actors/core/journal_reader.hpp"

namespace actors::core {
namespace {

constexpr std::size_t kBaseWriteBytes = 1u << 20;

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}

// Makes a created or renamed directory entry durable.
void sync_dir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// path.corrupt-20240501T120000Z, or with -2, -3... when taken.
std::string set_aside_name(const std::string& path) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::string base = path + ".corrupt-" + stamp, name = base;
  for (int i = 2; journal_path_exists(name); ++i) name = base + "-" + std::to_string(i);
  return name;
}

}  // namespace

bool journal_path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

FileJournal::FileJournal(FileJournalOptions opts) : opts_(std::move(opts)), lock_(opts_.path) {
  if (journal_path_exists(opts_.path))
    recover_existing();
  else if (journal_path_exists(opts_.path + ".1"))  // a crash between rotation's rename and the new file
    last_seq_ = last_seq_of(opts_.path + ".1");
  if (fd_ < 0) open_fresh();
}

FileJournal::~FileJournal() {
  if (fd_ < 0) return;
  if (dirty_ && opts_.fsync != FsyncPolicy::never) ::fsync(fd_);
  ::close(fd_);
}

// Keeps an existing file when its header matches, cutting a torn tail so
// the next line starts cleanly; rotates away a valid file with another
// header; sets aside a corrupt one. The start marker the journal actor
// writes next makes the restart a boundary for replay.
void FileJournal::recover_existing() {
  struct stat st;
  if (::stat(opts_.path.c_str(), &st) == 0 && st.st_size == 0) return;  // nothing to keep: open_fresh
  JournalScanner scanner([](JournalRecord&&) {});
  try {
    scan_file(opts_.path, scanner);
  } catch (const JournalError& e) {
    last_seq_ = scanner.stats().last_seq;
    return set_aside(e.what(), scanner.stats().valid_bytes);
  }
  const JournalReadStats& stats = scanner.stats();
  last_seq_ = stats.last_seq;
  if (stats.incomplete_snapshot) return set_aside("the file ends inside its snapshot", stats.valid_bytes);
  if (!(scanner.header() == opts_.header)) {
    open_note_ = "rotated away a journal with another header (version, operator version or flags)";
    opts_.log(model::log_info("journal", "rotated away a journal with another header")
                  .with("file", opts_.path)
                  .with("rotated_to", opts_.path + ".1")
                  .with("last_seq", last_seq_));
    shift_files();
    ++rotations_;
    return;
  }
  fd_ = ::open(opts_.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) fail("open", opts_.path);
  if (stats.torn_tail) {
    open_note_ = "cut a torn last line (" + std::to_string(stats.torn_bytes) + " bytes at offset " +
                 std::to_string(stats.valid_bytes) + ")";
    opts_.log(model::log_warn("journal", "cut a torn last line")
                  .with("file", opts_.path)
                  .with("offset", stats.valid_bytes)
                  .with("bytes", stats.torn_bytes)
                  .with("last_seq", last_seq_));
    if (::ftruncate(fd_, static_cast<off_t>(stats.valid_bytes)) != 0) fail("truncate", opts_.path);
  }
  if (::lseek(fd_, 0, SEEK_END) < 0) fail("seek", opts_.path);
  file_bytes_ = stats.valid_bytes;
  base_bytes_ = encode_header(opts_.header).size();
}

// Out of the rotated set, so replaying the set never trips over it, and
// never deleted by rotation: someone may want to look at it.
void FileJournal::set_aside(const std::string& reason, std::size_t valid_bytes) {
  set_aside_ = set_aside_name(opts_.path);
  if (std::rename(opts_.path.c_str(), set_aside_.c_str()) != 0) fail("set aside", opts_.path);
  open_note_ = "set aside a corrupt journal as " + set_aside_ + ": " + reason;
  opts_.log(model::log_error("journal", "set aside a corrupt journal")
                .with("file", opts_.path)
                .with("moved_to", set_aside_)
                .with("reason", reason)
                .with("valid_bytes", valid_bytes)
                .with("last_seq", last_seq_));
}

void FileJournal::open_fresh() {
  fd_ = ::open(opts_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd_ < 0) fail("create", opts_.path);
  file_bytes_ = 0;
  write_all(encode_header(opts_.header));
  base_bytes_ = file_bytes_;
  sync();  // a new file's header is always made durable
  if (opts_.fsync != FsyncPolicy::never) sync_dir(opts_.path);
}

// path.(N-1) -> path.N ... path -> path.1 (the oldest beyond N is dropped).
void FileJournal::shift_files() {
  const std::string& p = opts_.path;
  if (opts_.keep_files < 1) {
    std::remove(p.c_str());
    return;
  }
  std::remove((p + "." + std::to_string(opts_.keep_files)).c_str());
  for (int i = opts_.keep_files - 1; i >= 1; --i) {
    std::string from = p + "." + std::to_string(i);
    if (journal_path_exists(from) && std::rename(from.c_str(), (p + "." + std::to_string(i + 1)).c_str()) != 0)
      fail("rotate", from);
  }
  if (std::rename(p.c_str(), (p + ".1").c_str()) != 0) fail("rotate", p);
}

bool FileJournal::needs_rotation(std::size_t line_bytes) const {
  std::uint64_t events = file_bytes_ - base_bytes_;
  return events > 0 && file_bytes_ + line_bytes > opts_.max_bytes && events >= base_bytes_;
}

void FileJournal::rotate(const BaseWriter& write_base) {
  std::uint64_t old_bytes = file_bytes_;
  if (fd_ >= 0) {
    sync();
    ::close(fd_);
    fd_ = -1;
  }
  shift_files();
  ++rotations_;
  open_fresh();
  std::string buf;  // the base in large writes: a torn base is cut whole at the next open
  write_base([&](std::string_view line) {
    buf.append(line);
    if (buf.size() >= kBaseWriteBytes) {
      write_all(buf);
      buf.clear();
    }
  });
  write_all(buf);
  base_bytes_ = file_bytes_;
  sync();
  opts_.log(model::log_info("journal", "rotated")
                .with("file", opts_.path)
                .with("rotated_to", opts_.keep_files < 1 ? std::string("(deleted)") : opts_.path + ".1")
                .with("bytes", old_bytes)
                .with("base_bytes", base_bytes_)
                .with("keep_files", opts_.keep_files));
}

void FileJournal::append(std::string_view line) {
  write_all(line);
  if (opts_.fsync == FsyncPolicy::every_append) sync();
}

void FileJournal::flush() {
  if (opts_.fsync == FsyncPolicy::on_flush) sync();
}

void FileJournal::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", opts_.path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    file_bytes_ += static_cast<std::uint64_t>(n);
  }
  dirty_ = true;
}

void FileJournal::sync() {
  if (!dirty_ || fd_ < 0) return;
  if (::fsync(fd_) != 0) fail("fsync", opts_.path);
  ++fsyncs_;
  dirty_ = false;
}

}  // namespace actors::core
