// Running programs from tests and benchmarks (simcluster, kubectl, the
// binaries under test): run() waits for a command and captures its
// output; Child keeps a command running (e.g. `kubectl get --watch`) and
// reads its output as it arrives.
// Contract: argv[0] is looked up on PATH; a Child is terminated (SIGTERM,
// then reaped) when destroyed.
#pragma once

#include <sys/types.h>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace k8s::sim {

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

RunResult run(const std::vector<std::string>& argv, const std::string& input = "");

class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Reads stdout until `done(output so far)` holds or the timeout passes.
  bool read_until(const std::function<bool(const std::string&)>& done, std::chrono::milliseconds timeout);
  const std::string& output() const { return out_; }
  // Sends SIGTERM and returns the exit code (-1 if killed by a signal).
  int terminate();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string out_;
};

}  // namespace k8s::sim
