#include "actors/log/process_log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace actors::log {

namespace {

std::int64_t system_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

spdlog::level::level_enum spdlog_level(model::LogLevel l) {
  switch (l) {
    case model::LogLevel::debug:
      return spdlog::level::debug;
    case model::LogLevel::info:
      return spdlog::level::info;
    case model::LogLevel::warn:
      return spdlog::level::warn;
    case model::LogLevel::error:
      return spdlog::level::err;
    case model::LogLevel::none:
      break;
  }
  return spdlog::level::off;
}

}  // namespace

ProcessLog::ProcessLog(ProcessLogOptions options) : opts_(std::move(options)), repeats_(opts_.repeat_window.count()) {
  if (!opts_.wall_ms) opts_.wall_ms = system_ms;
  if (!opts_.mono_ms) opts_.mono_ms = steady_ms;
  if (!opts_.sink) opts_.sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  // Not registered with spdlog: several ProcessLogs (tests) may coexist.
  logger_ = std::make_shared<spdlog::logger>("process", opts_.sink);
  logger_->set_pattern("%v");  // the line is encoded whole, ts and level included
  logger_->set_level(spdlog::level::trace);
  logger_->flush_on(spdlog::level::trace);
}

ProcessLog::~ProcessLog() {
  flush();
}

void ProcessLog::emit(const model::LogEntry& e) {
  std::string line = model::format_log_line(opts_.format, opts_.wall_ms(), e);
  logger_->log(spdlog_level(e.level), spdlog::string_view_t(line));
}

void ProcessLog::write(const model::LogEntry& e) {
  if (e.level < opts_.level || e.level == model::LogLevel::none) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const model::LogEntry& out : repeats_.admit(e, opts_.mono_ms())) emit(out);
}

model::Log ProcessLog::log() {
  return model::Log([this](const model::LogEntry& e) { write(e); }, opts_.level);
}

void ProcessLog::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const model::LogEntry& out : repeats_.flush()) emit(out);
  logger_->flush();
}

}  // namespace actors::log
