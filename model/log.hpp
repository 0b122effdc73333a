// Structured log entries, as every layer produces them: a level, the
// component that speaks, a message that says what happened, and key/value
// fields (the object concerned under "object", as "<kind> <ns>/<name>").
// Pure: producers hand entries to a model::Log, and only the program
// decides where they go and how they are encoded (model/log_format.hpp,
// actors/log/process_log.hpp). Nothing here reads a clock.
// Contract: field order is kept as added; values are text (numbers are
// marked so JSON emits them unquoted). A default Log discards everything;
// Log::enabled() lets a producer skip building a debug entry nobody reads.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace model {

// Ordered by severity; `none` only as a threshold (upstream's -log.level=none).
enum class LogLevel : std::uint8_t { debug, info, warn, error, none };

struct LogField {
  std::string key, value;
  bool number = false;  // a number or boolean: JSON writes it without quotes
  bool operator==(const LogField&) const = default;
};

struct LogEntry {
  LogLevel level = LogLevel::info;
  std::string component;
  std::string msg;
  std::vector<LogField> fields;

  LogEntry() = default;
  LogEntry(LogLevel l, std::string c, std::string m) : level(l), component(std::move(c)), msg(std::move(m)) {}

  LogEntry& with(std::string key, std::string value);
  LogEntry& with(std::string key, const char* value) { return with(std::move(key), std::string(value)); }
  LogEntry& with(std::string key, std::string_view value) { return with(std::move(key), std::string(value)); }
  LogEntry& with(std::string key, bool value);
  LogEntry& with(std::string key, double value);
  template <std::integral N>
  requires(!std::same_as<N, bool> && !std::same_as<N, char>) LogEntry& with(std::string key, N value) {
    fields.push_back({std::move(key), std::to_string(value), true});
    return *this;
  }
  // "object": "<kind> <ns>/<name>" (model::describe_object).
  LogEntry& object(std::string_view kind, std::string_view ns, std::string_view name);
  // The value of the first field named `key`; "" when there is none.
  std::string value(std::string_view key) const;
  bool operator==(const LogEntry&) const = default;
};

// `url` with the password of its userinfo (scheme://user:password@host)
// replaced by "<secret>", for log fields; other URLs unchanged.
std::string url_for_log(std::string_view url);

inline LogEntry log_debug(std::string component, std::string msg) {
  return {LogLevel::debug, std::move(component), std::move(msg)};
}
inline LogEntry log_info(std::string component, std::string msg) {
  return {LogLevel::info, std::move(component), std::move(msg)};
}
inline LogEntry log_warn(std::string component, std::string msg) {
  return {LogLevel::warn, std::move(component), std::move(msg)};
}
inline LogEntry log_error(std::string component, std::string msg) {
  return {LogLevel::error, std::move(component), std::move(msg)};
}

// Where a producer's entries go: a function and the lowest level it wants
// (info unless given: debug entries are asked for, not paid for by default).
// Cheap to copy; converts from any callable taking `const LogEntry&`.
class Log {
 public:
  using Fn = std::function<void(const LogEntry&)>;

  Log() = default;
  template <class F>
  requires(std::is_invocable_v<F&, const LogEntry&> && !std::same_as<std::decay_t<F>, Log>)
      Log(F fn, LogLevel min = LogLevel::info)
      : fn_(std::move(fn)), min_(min) {}

  explicit operator bool() const { return static_cast<bool>(fn_) && min_ != LogLevel::none; }
  bool enabled(LogLevel l) const { return fn_ && l >= min_ && l != LogLevel::none; }
  LogLevel level() const { return min_; }
  void operator()(const LogEntry& e) const {
    if (enabled(e.level)) fn_(e);
  }

 private:
  Fn fn_;
  LogLevel min_ = LogLevel::info;
};

}  // namespace model
