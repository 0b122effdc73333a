#include "model/log_format.hpp"
#include "model/text.hpp"

#include <array>
#include <chrono>
#include <cstdio>

namespace model {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at s[i] (1 to 4), 0 when the
// bytes there are not one (overlong forms, surrogates and code points
// past U+10FFFF included).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  const unsigned b = at(0);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// Code points that must not appear raw in a line: C0 and C1 controls, DEL,
// and the Unicode line and paragraph separators.
bool is_control(std::string_view seq) {
  const auto b0 = static_cast<unsigned char>(seq[0]);
  if (seq.size() == 1) return b0 < 0x20 || b0 == 0x7F;
  const auto b1 = static_cast<unsigned char>(seq[1]);
  if (seq.size() == 2) return b0 == 0xC2 && b1 <= 0x9F;  // U+0080..U+009F
  return seq.size() == 3 && b0 == 0xE2 && b1 == 0x80 &&
         (static_cast<unsigned char>(seq[2]) == 0xA8 || static_cast<unsigned char>(seq[2]) == 0xA9);
}

// \uXXXX of a control code point (BMP only, which is all is_control takes).
std::string u_escape(std::string_view seq) {
  unsigned cp = static_cast<unsigned char>(seq[0]);
  if (seq.size() == 2) cp = ((cp & 0x1F) << 6) | (static_cast<unsigned char>(seq[1]) & 0x3F);
  if (seq.size() == 3)
    cp = ((cp & 0x0F) << 12) | ((static_cast<unsigned char>(seq[1]) & 0x3F) << 6) |
         (static_cast<unsigned char>(seq[2]) & 0x3F);
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", cp);
  return buf;
}

// The common escaper: `"` and `\` escaped, the short escapes both formats
// share, other controls as \u, invalid bytes as U+FFFD.
std::string quoted(std::string_view s, bool json) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    std::string_view seq = s.substr(i, n);
    i += n;
    char c = seq[0];
    if (c == '"' || c == '\\') {
      (out += '\\') += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (json && c == '\b') {
      out += "\\b";
    } else if (json && c == '\f') {
      out += "\\f";
    } else if (is_control(seq) && !(json && c == 0x7F)) {
      out += u_escape(seq);
    } else {
      out += seq;
    }
  }
  return out += '"';
}

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) return true;
    std::string_view seq = s.substr(i, n);
    if (seq[0] == ' ' || seq[0] == '=' || seq[0] == '"' || is_control(seq)) return true;
    i += n;
  }
  return false;
}

bool reserved(std::string_view key) {
  return key == "ts" || key == "level" || key == "component" || key == "msg";
}

std::string clean_key(std::string_view key) {
  std::string out;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-' || c == '/';
    out += ok ? c : '_';
  }
  if (out.empty() || reserved(out)) out += '_';  // never shadows the fixed keys
  return out;
}

void logfmt_pair(std::string& out, std::string_view key, std::string_view value) {
  if (!out.empty()) out += ' ';
  (out += key) += '=';
  out += logfmt_value(value);
}

void json_pair(std::string& out, std::string_view key, std::string_view value, bool number) {
  out += out.size() > 1 ? "," : "";
  (out += json_string(key)) += ':';
  out += number ? std::string(value) : json_string(value);
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
  std::string t = model::ascii_lower(text);
  if (t == "debug" || t == "all") return LogLevel::debug;
  if (t == "info") return LogLevel::info;
  if (t == "warn") return LogLevel::warn;
  if (t == "error") return LogLevel::error;
  if (t == "none") return LogLevel::none;
  return std::nullopt;
}

std::optional<LogFormat> parse_log_format(std::string_view text) {
  std::string t = model::ascii_lower(text);
  if (t == "logfmt") return LogFormat::logfmt;
  if (t == "json") return LogFormat::json;
  return std::nullopt;
}

std::string log_level_error(std::string_view flag, std::string_view value) {
  return std::string(flag) + ": \"" + std::string(value) +
         "\" is not a log level (want debug, info, warn or error; all and none as prometheus-operator takes them)";
}

std::string log_format_error(std::string_view flag, std::string_view value) {
  return std::string(flag) + ": \"" + std::string(value) + "\" is not a log format (want logfmt or json)";
}

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
    case LogLevel::none:
      break;
  }
  return "none";
}

std::string logfmt_value(std::string_view value) {
  return needs_quotes(value) ? quoted(value, false) : std::string(value);
}

std::string json_string(std::string_view value) {
  return quoted(value, true);
}

std::string log_timestamp(std::int64_t unix_ms) {
  using namespace std::chrono;
  sys_time<milliseconds> t{milliseconds(unix_ms)};
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss<milliseconds> hms{t - day};
  std::array<char, 40> buf;
  std::snprintf(buf.data(), buf.size(), "%04d-%02u-%02uT%02d:%02d:%02lld.%03lldZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<long long>(hms.seconds().count()), static_cast<long long>(hms.subseconds().count()));
  return buf.data();
}

std::string format_log_line(LogFormat format, std::int64_t unix_ms, const LogEntry& e) {
  std::string out;
  if (format == LogFormat::logfmt) {
    logfmt_pair(out, "ts", log_timestamp(unix_ms));
    out += ' ';
    return out += log_text(e);
  }
  out = "{";
  json_pair(out, "ts", log_timestamp(unix_ms), false);
  json_pair(out, "level", log_level_name(e.level), false);
  if (!e.component.empty()) json_pair(out, "component", e.component, false);
  json_pair(out, "msg", e.msg, false);
  for (const LogField& f : e.fields) json_pair(out, clean_key(f.key), f.value, f.number);
  return out += '}';
}

std::string log_text(const LogEntry& e) {
  std::string out;
  logfmt_pair(out, "level", log_level_name(e.level));
  if (!e.component.empty()) logfmt_pair(out, "component", e.component);
  logfmt_pair(out, "msg", e.msg);
  for (const LogField& f : e.fields) logfmt_pair(out, clean_key(f.key), f.value);
  return out;
}

}  // namespace model
