// An exclusive lock on a journal, so two processes never append to one
// file (their lines would interleave and corrupt it). The lock is a
// flock(2) on "<journal>.lock" beside the journal, not on the journal
// itself, because rotation renames the journal file; the holder writes
// its pid into the lock file so a refused process can name it.
// Contract: the constructor takes the lock or throws JournalLocked (held
// elsewhere, naming the journal, the lock file and the holder's pid when
// known) or std::system_error (cannot create the lock file). The lock is
// released when the object is destroyed or the process exits; flock
// conflicts between two opens in one process too. The lock file stays.
#pragma once

#include <stdexcept>
#include <string>

namespace actors::core {

class JournalLocked : public std::runtime_error {
 public:
  JournalLocked(const std::string& journal, const std::string& lock_file, long holder_pid);
  long holder_pid() const { return holder_pid_; }  // 0 when unknown

 private:
  long holder_pid_;
};

class JournalLock {
 public:
  explicit JournalLock(const std::string& journal_path);
  ~JournalLock();
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace actors::core
