// The process's log: every model::LogEntry the program's layers produce,
// filtered by level, with repeated warnings and errors rate-limited
// (repeat_filter.hpp), encoded as logfmt or JSON (model/log_format.hpp)
// and written through spdlog to stderr, one line each.
// Contract: write() and the handles from log() are thread-safe; the
// ProcessLog must outlive every handle. The destructor (or flush()) writes
// the summaries of repeats not yet reported. The clocks and the sink are
// injectable for tests; by default the timestamp is the system clock, the
// repeat windows run on the steady clock, and lines go to stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "actors/log/repeat_filter.hpp"
#include "model/log_format.hpp"

namespace spdlog {
class logger;
namespace sinks {
class sink;
}
}  // namespace spdlog

namespace actors::log {

struct ProcessLogOptions {
  model::LogLevel level = model::LogLevel::info;
  model::LogFormat format = model::LogFormat::logfmt;
  std::chrono::milliseconds repeat_window{30'000};
  std::function<std::int64_t()> wall_ms;  // the lines' ts
  std::function<std::int64_t()> mono_ms;  // the repeat windows
  std::shared_ptr<spdlog::sinks::sink> sink;
};

class ProcessLog {
 public:
  explicit ProcessLog(ProcessLogOptions options = {});
  ~ProcessLog();
  ProcessLog(const ProcessLog&) = delete;
  ProcessLog& operator=(const ProcessLog&) = delete;

  void write(const model::LogEntry& e);
  // A handle for producers, gated at the configured level.
  model::Log log();
  void flush();
  model::LogLevel level() const { return opts_.level; }

 private:
  void emit(const model::LogEntry& e);

  ProcessLogOptions opts_;
  std::shared_ptr<spdlog::logger> logger_;
  std::mutex mu_;
  RepeatFilter repeats_;
};

}  // namespace actors::log
