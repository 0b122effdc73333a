// model/log_format: logfmt quoting and JSON escaping of log lines (quotes,
// newlines, control characters, '=', spaces, non-ASCII and invalid UTF-8),
// the flag values of both upstream operators, and whole lines.
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "model/log.hpp"
#include "model/log_format.hpp"
#include "model/parse.hpp"

using model::LogEntry;
using model::LogFormat;
using model::LogLevel;

namespace {

// A logfmt reader for the tests: key=value pairs, values bare or quoted
// with \" \\ \n \r \t \uXXXX (BMP) escapes.
std::vector<std::pair<std::string, std::string>> read_logfmt(const std::string& line) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t eq = line.find('=', i);
    REQUIRE(eq != std::string::npos);
    std::string key = line.substr(i, eq - i), value;
    i = eq + 1;
    if (i < line.size() && line[i] == '"') {
      for (++i; line.at(i) != '"'; ++i) {
        if (line[i] != '\\') {
          value += line[i];
          continue;
        }
        char c = line.at(++i);
        if (c == 'n')
          value += '\n';
        else if (c == 'r')
          value += '\r';
        else if (c == 't')
          value += '\t';
        else if (c == 'u') {
          unsigned cp = std::stoul(line.substr(i + 1, 4), nullptr, 16);
          i += 4;
          if (cp < 0x80) {
            value += static_cast<char>(cp);
          } else if (cp < 0x800) {
            value += static_cast<char>(0xC0 | (cp >> 6));
            value += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            value += static_cast<char>(0xE0 | (cp >> 12));
            value += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            value += static_cast<char>(0x80 | (cp & 0x3F));
          }
        } else
          value += c;
      }
      ++i;
    } else {
      std::size_t end = line.find(' ', i);
      value = line.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? line.size() : end;
    }
    if (i < line.size()) {
      REQUIRE(line[i] == ' ');
      ++i;
    }
    out.emplace_back(key, value);
  }
  return out;
}

// Valid UTF-8 strings every encoding must carry through unchanged.
const std::vector<std::string> kTricky = {
    "plain",
    "two words",
    "a=b",
    "say \"hi\"",
    "back\\slash",
    "line\nbreak\r\n",
    "tab\there",
    "bell\x07 and nul-free controls \x1f",
    "del\x7f",
    "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80",  // café 日本 🚀
    "c1 control \xC2\x85 and line separator \xE2\x80\xA8",
    "",
    "=",
    "\"",
    "trailing space ",
};

}  // namespace

TEST_CASE("logfmt values are bare only when a logfmt reader needs no quotes", "[log]") {
  CHECK(model::logfmt_value("created") == "created");
  CHECK(model::logfmt_value("StatefulSet/ns:1.2") == "StatefulSet/ns:1.2");
  CHECK(model::logfmt_value("caf\xC3\xA9") == "caf\xC3\xA9");  // valid non-ASCII stays bare and raw
  CHECK(model::logfmt_value("") == "\"\"");
  CHECK(model::logfmt_value("a b") == "\"a b\"");
  CHECK(model::logfmt_value("k=v") == "\"k=v\"");
  CHECK(model::logfmt_value("say \"hi\"") == "\"say \\\"hi\\\"\"");
  CHECK(model::logfmt_value("back\\slash") == "back\\slash");  // a backslash alone needs no quotes
  CHECK(model::logfmt_value("a\\ b") == "\"a\\\\ b\"");
  CHECK(model::logfmt_value("one\ntwo") == "\"one\\ntwo\"");
  CHECK(model::logfmt_value("cr\rtab\t") == "\"cr\\rtab\\t\"");
  CHECK(model::logfmt_value("nul-free \x01") == "\"nul-free \\u0001\"");
  CHECK(model::logfmt_value("del\x7f") == "\"del\\u007f\"");
  CHECK(model::logfmt_value("\xE2\x80\xA8") == "\"\\u2028\"");
}

TEST_CASE("JSON strings escape quotes, backslashes and controls and keep UTF-8", "[log]") {
  CHECK(model::json_string("plain") == "\"plain\"");
  CHECK(model::json_string("say \"hi\" \\ ") == "\"say \\\"hi\\\" \\\\ \"");
  CHECK(model::json_string("a\nb\rc\td\be\ff") == "\"a\\nb\\rc\\td\\be\\ff\"");
  CHECK(model::json_string("\x01\x1f") == "\"\\u0001\\u001f\"");
  CHECK(model::json_string("a=b c") == "\"a=b c\"");
  CHECK(model::json_string("caf\xC3\xA9 \xF0\x9F\x9A\x80") == "\"caf\xC3\xA9 \xF0\x9F\x9A\x80\"");
  CHECK(model::json_string("\xC2\x85\xE2\x80\xA9") == "\"\\u0085\\u2029\"");
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, so every line stays valid UTF-8", "[log]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(model::json_string("a\xFF"
                           "b") == "\"a" + fffd + "b\"");
  CHECK(model::json_string("\xC3") == "\"" + fffd + "\"");                        // truncated sequence
  CHECK(model::json_string("\xC0\xAF") == "\"" + fffd + fffd + "\"");             // overlong '/'
  CHECK(model::json_string("\xED\xA0\x80") == "\"" + fffd + fffd + fffd + "\"");  // a surrogate
  CHECK(model::json_string("\xF4\x90\x80\x80").find(fffd) != std::string::npos);  // past U+10FFFF
  CHECK(model::logfmt_value("x\xFF") == "\"x" + fffd + "\"");                     // and forces quotes
}

TEST_CASE("both encodings carry every value through unchanged", "[log]") {
  for (const std::string& value : kTricky) {
    INFO(value);
    LogEntry e = model::log_warn("test", value).with("field", value).with("n", 42);
    std::string json_line = model::format_log_line(LogFormat::json, 0, e);
    CHECK(json_line.find('\n') == std::string::npos);
    model::Value v = model::parse_json(json_line, "line");
    CHECK(v.find("msg")->as_string() == value);
    CHECK(v.find("field")->as_string() == value);
    CHECK(v.find("n")->as_int() == 42);
    std::string logfmt_line = model::format_log_line(LogFormat::logfmt, 0, e);
    CHECK(logfmt_line.find('\n') == std::string::npos);
    auto pairs = read_logfmt(logfmt_line);
    REQUIRE(pairs.size() == 6);
    CHECK(pairs[3] == std::pair<std::string, std::string>("msg", value));
    CHECK(pairs[4] == std::pair<std::string, std::string>("field", value));
  }
}

TEST_CASE("any bytes at all encode to one line of valid JSON and of logfmt", "[log]") {
  std::mt19937 rnd(20240501);
  for (int n = 0; n < 3000; ++n) {
    std::string bytes(rnd() % 24, '\0');
    for (char& c : bytes) c = static_cast<char>(rnd() % 4 == 0 ? 0x80 + rnd() % 0x80 : rnd() % 0x100);
    INFO(n);
    std::string json_line = model::format_log_line(LogFormat::json, 0, model::log_info("c", bytes));
    CHECK(json_line.find('\n') == std::string::npos);
    CHECK_NOTHROW(model::parse_json(json_line, "line"));  // simdjson validates UTF-8
    std::string logfmt_line = model::format_log_line(LogFormat::logfmt, 0, model::log_info("c", bytes));
    CHECK(logfmt_line.find('\n') == std::string::npos);
    CHECK(logfmt_line.find('\r') == std::string::npos);
    CHECK(logfmt_line.find('\0') == std::string::npos);
  }
}

TEST_CASE("a log line has ts, level, component, msg, then the fields in order", "[log]") {
  LogEntry e = model::log_info("writer", "created")
                   .object("StatefulSet", "monitoring", "grafana-agent")
                   .with("reason", "not found")
                   .with("attempt", 3)
                   .with("leader", true)
                   .with("seconds", 0.25);
  const std::int64_t t = 1714564800123;  // 2024-05-01T12:00:00.123Z
  CHECK(model::format_log_line(LogFormat::logfmt, t, e) ==
        "ts=2024-05-01T12:00:00.123Z level=info component=writer msg=created "
        "object=\"StatefulSet monitoring/grafana-agent\" reason=\"not found\" attempt=3 leader=true seconds=0.25");
  CHECK(model::format_log_line(LogFormat::json, t, e) ==
        "{\"ts\":\"2024-05-01T12:00:00.123Z\",\"level\":\"info\",\"component\":\"writer\",\"msg\":\"created\","
        "\"object\":\"StatefulSet monitoring/grafana-agent\",\"reason\":\"not found\",\"attempt\":3,\"leader\":true,"
        "\"seconds\":0.25}");
  CHECK(model::log_text(e).rfind("level=info component=writer msg=created ", 0) == 0);
  CHECK(e.value("reason") == "not found");
  CHECK(e.value("absent").empty());
}

TEST_CASE("field keys cannot break a line or shadow the fixed keys", "[log]") {
  LogEntry e = model::log_error("c", "m").with("msg", "x").with("bad key=\"", "y").with("", "z");
  CHECK(model::log_text(e) == "level=error component=c msg=m msg_=x bad_key__=y _=z");
  model::Value v = model::parse_json(model::format_log_line(LogFormat::json, 0, e), "line");
  CHECK(v.find("msg")->as_string() == "m");
  CHECK(v.find("msg_")->as_string() == "x");
  CHECK(v.find("ts")->as_string() == "1970-01-01T00:00:00.000Z");
  // A number that JSON cannot hold stays text.
  CHECK(model::format_log_line(LogFormat::json, 0,
                               model::log_info("c", "m").with("x", std::numeric_limits<double>::infinity()))
            .find("\"x\":\"Inf\"") != std::string::npos);
}

TEST_CASE("log levels and formats take both upstream operators' values", "[log]") {
  CHECK(model::parse_log_level("debug") == LogLevel::debug);
  CHECK(model::parse_log_level("all") == LogLevel::debug);  // prometheus-operator
  CHECK(model::parse_log_level("INFO") == LogLevel::info);
  CHECK(model::parse_log_level("warn") == LogLevel::warn);
  CHECK(model::parse_log_level("error") == LogLevel::error);
  CHECK(model::parse_log_level("none") == LogLevel::none);
  CHECK_FALSE(model::parse_log_level("verbose"));
  CHECK_FALSE(model::parse_log_level("warning"));
  CHECK_FALSE(model::parse_log_level(""));
  CHECK(model::parse_log_format("logfmt") == LogFormat::logfmt);
  CHECK(model::parse_log_format("JSON") == LogFormat::json);
  CHECK_FALSE(model::parse_log_format("console"));
  CHECK(model::log_level_error("-log.level", "loud") ==
        "-log.level: \"loud\" is not a log level (want debug, info, warn or error; all and none as "
        "prometheus-operator takes them)");
  CHECK(model::log_format_error("--log-format", "xml") ==
        "--log-format: \"xml\" is not a log format (want logfmt or json)");
}

TEST_CASE("a Log passes what its level lets through and nothing when empty", "[log]") {
  std::vector<std::string> seen;
  model::Log log([&](const LogEntry& e) { seen.push_back(e.msg); });  // info unless asked
  log(model::log_debug("c", "debug"));
  log(model::log_info("c", "info"));
  log(model::log_error("c", "error"));
  CHECK(seen == std::vector<std::string>{"info", "error"});
  CHECK_FALSE(log.enabled(LogLevel::debug));
  model::Log warn_only([&](const LogEntry& e) { seen.push_back(e.msg); }, LogLevel::warn);
  warn_only(model::log_info("c", "dropped"));
  CHECK(seen.size() == 2);
  model::Log none([&](const LogEntry& e) { seen.push_back(e.msg); }, LogLevel::none);
  none(model::log_error("c", "dropped"));
  CHECK_FALSE(static_cast<bool>(none));
  model::Log empty;
  empty(model::log_error("c", "nowhere"));
  CHECK_FALSE(static_cast<bool>(empty));
  CHECK(seen.size() == 2);
}

TEST_CASE("URLs in log fields lose the password of their userinfo", "[log]") {
  CHECK(model::url_for_log("http://user:s3cret@sd.example:8080/targets?x=1") ==
        "http://user:<secret>@sd.example:8080/targets?x=1");
  CHECK(model::url_for_log("https://user@sd.example/") == "https://user@sd.example/");
  CHECK(model::url_for_log("http://sd.example/a@b:c") == "http://sd.example/a@b:c");  // '@' in the path
  CHECK(model::url_for_log("http://[::1]:9090/x") == "http://[::1]:9090/x");
  CHECK(model::url_for_log("not a url") == "not a url");
}
