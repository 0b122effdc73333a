// The two encodings of a log line, and the flag values that choose them.
// logfmt (the default): `ts=… level=… component=… msg=… key=value…`, a
// value bare when it holds no space, control character, '=', '"' or
// invalid UTF-8, else double-quoted with \" \\ \n \r \t and \u00XX escapes.
// JSON: one object per line with the same keys in the same order, strings
// escaped per RFC 8259, numbers bare. Both keep valid non-ASCII UTF-8 as it
// is and write invalid bytes as U+FFFD, so a line is always valid UTF-8.
// Keys are code-chosen; any character outside [A-Za-z0-9_.-/] becomes '_',
// and a field named ts, level, component or msg gets a trailing '_'.
// Contract: a line never contains a raw newline; no trailing newline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/log.hpp"

namespace model {

enum class LogFormat { logfmt, json };

// -log.level / --log-level: debug, info, warn, error, and prometheus-
// operator's all (= debug) and none; case-insensitive.
std::optional<LogLevel> parse_log_level(std::string_view text);
// -log.format / --log-format: logfmt or json; case-insensitive.
std::optional<LogFormat> parse_log_format(std::string_view text);
// The flags' errors, naming the flag and the accepted values.
std::string log_level_error(std::string_view flag, std::string_view value);
std::string log_format_error(std::string_view flag, std::string_view value);

const char* log_level_name(LogLevel level);  // "debug", "info", "warn", "error", "none"

std::string logfmt_value(std::string_view value);
std::string json_string(std::string_view value);  // with the quotes
// RFC 3339 in UTC with milliseconds: 2024-05-01T12:00:00.123Z.
std::string log_timestamp(std::int64_t unix_ms);

// One line: ts, level, component, msg, then the fields.
std::string format_log_line(LogFormat format, std::int64_t unix_ms, const LogEntry& entry);
// logfmt without the timestamp: what tests and in-process captures compare.
std::string log_text(const LogEntry& entry);

}  // namespace model
