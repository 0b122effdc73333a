#include "actors/core/journal_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace actors::core {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Makes a created or renamed directory entry durable.
void sync_dir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

FileJournal::FileJournal(FileJournalOptions opts) : opts_(std::move(opts)) {
  if (exists(opts_.path)) recover_existing();
  if (fd_ < 0) open_fresh();
}

FileJournal::~FileJournal() {
  if (fd_ < 0) return;
  if (dirty_ && opts_.fsync != FsyncPolicy::never) ::fsync(fd_);
  ::close(fd_);
}

// Keeps an existing file when its header matches: a torn tail is cut off
// so the next line starts cleanly. Otherwise the file is rotated away.
void FileJournal::recover_existing() {
  std::string text = slurp(opts_.path);
  JournalHeader found;
  JournalReadStats stats;
  try {
    stats = for_each_event(text, found, [](Event&&) {});
  } catch (const JournalError& e) {
    open_note_ = std::string("rotated away unreadable journal: ") + e.what();
    rotate();
    return;
  }
  last_seq_ = stats.last_seq;
  if (!(found == opts_.header)) {
    open_note_ = "rotated away journal with a different header";
    rotate();
    return;
  }
  fd_ = ::open(opts_.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) fail("open", opts_.path);
  if (stats.valid_bytes < text.size()) {
    open_note_ = "dropped a torn last line (" + std::to_string(text.size() - stats.valid_bytes) + " bytes)";
    if (::ftruncate(fd_, static_cast<off_t>(stats.valid_bytes)) != 0) fail("truncate", opts_.path);
  }
  if (::lseek(fd_, 0, SEEK_END) < 0) fail("seek", opts_.path);
  file_bytes_ = stats.valid_bytes;
}

void FileJournal::open_fresh() {
  fd_ = ::open(opts_.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd_ < 0) fail("create", opts_.path);
  file_bytes_ = 0;
  write_all(encode_header(opts_.header));
  sync();  // a new file's header is always made durable
  if (opts_.fsync != FsyncPolicy::never) sync_dir(opts_.path);
}

// path.(N-1) -> path.N ... path -> path.1, then a fresh path.
void FileJournal::rotate() {
  if (fd_ >= 0) {
    sync();
    ::close(fd_);
    fd_ = -1;
  }
  const std::string& p = opts_.path;
  if (opts_.keep_files < 1) {
    std::remove(p.c_str());
  } else {
    std::remove((p + "." + std::to_string(opts_.keep_files)).c_str());
    for (int i = opts_.keep_files - 1; i >= 1; --i) {
      std::string from = p + "." + std::to_string(i);
      if (exists(from) && std::rename(from.c_str(), (p + "." + std::to_string(i + 1)).c_str()) != 0)
        fail("rotate", from);
    }
    if (std::rename(p.c_str(), (p + ".1").c_str()) != 0) fail("rotate", p);
  }
  ++rotations_;
  open_fresh();
}

void FileJournal::append(std::string_view line) {
  std::uint64_t header_bytes = encode_header(opts_.header).size();
  if (file_bytes_ > header_bytes && file_bytes_ + line.size() > opts_.max_bytes) rotate();
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
