#include "actors/core/journal_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace actors::core {
namespace {

long read_pid(int fd) {
  char buf[32] = {0};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  return std::strtol(buf, nullptr, 10);
}

std::string describe(const std::string& journal, const std::string& lock_file, long pid) {
  std::string holder = pid > 0 ? "process " + std::to_string(pid) : "another process (pid unknown)";
  return "journal " + journal + " is in use by " + holder + " (lock file " + lock_file +
         "); two writers would interleave and corrupt it: stop the other operator or pass another --journal";
}

}  // namespace

JournalLocked::JournalLocked(const std::string& journal, const std::string& lock_file, long holder_pid)
    : std::runtime_error(describe(journal, lock_file, holder_pid)), holder_pid_(holder_pid) {}

JournalLock::JournalLock(const std::string& journal_path) : path_(journal_path + ".lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "create journal lock file " + path_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    long pid = read_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) throw JournalLocked(journal_path, path_, pid);
    throw std::system_error(err, std::generic_category(), "lock " + path_);
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  // Best effort: the pid only improves the refusal message of a second process.
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) return;
}

JournalLock::~JournalLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace actors::core
