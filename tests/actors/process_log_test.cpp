// actors/log/process_log: entries through the level gate and the repeat
// limit, encoded as logfmt or JSON, written through spdlog; clocks and sink
// injected.
#include <catch2/catch.hpp>

#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "actors/log/process_log.hpp"
#include "model/parse.hpp"

using actors::log::ProcessLog;
using actors::log::ProcessLogOptions;

namespace {

struct Captured {
  std::ostringstream out;
  std::int64_t wall = 1714564800000;  // 2024-05-01T12:00:00.000Z
  std::int64_t mono = 0;

  ProcessLogOptions options(model::LogLevel level, model::LogFormat format) {
    ProcessLogOptions o;
    o.level = level;
    o.format = format;
    o.wall_ms = [this] { return wall; };
    o.mono_ms = [this] { return mono; };
    o.sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    return o;
  }
};

model::LogEntry refused() {
  return model::log_error("informer", "list or watch failed; retrying").with("kind", "Probe");
}

}  // namespace

TEST_CASE("the process log writes one logfmt line per entry at or above its level", "[actors][log]") {
  Captured c;
  {
    ProcessLog log(c.options(model::LogLevel::info, model::LogFormat::logfmt));
    model::Log handle = log.log();
    CHECK_FALSE(handle.enabled(model::LogLevel::debug));
    handle(model::log_debug("journal", "event").with("seq", 1));
    handle(model::log_info("writer", "created").object("Secret", "monitoring", "grafana-agent-config"));
    c.wall += 1500;
    handle(model::log_warn("writer", "write failed").with("status", 500));
  }
  CHECK(c.out.str() ==
        "ts=2024-05-01T12:00:00.000Z level=info component=writer msg=created "
        "object=\"Secret monitoring/grafana-agent-config\"\n"
        "ts=2024-05-01T12:00:01.500Z level=warn component=writer msg=\"write failed\" status=500\n");
}

TEST_CASE("the process log writes JSON lines when asked, debug included at debug level", "[actors][log]") {
  Captured c;
  {
    ProcessLog log(c.options(model::LogLevel::debug, model::LogFormat::json));
    CHECK(log.log().enabled(model::LogLevel::debug));
    log.write(model::log_debug("journal", "event").object("Secret", "ns", "creds").with("seq", 7));
  }
  CHECK(c.out.str() ==
        "{\"ts\":\"2024-05-01T12:00:00.000Z\",\"level\":\"debug\",\"component\":\"journal\",\"msg\":\"event\","
        "\"object\":\"Secret ns/creds\",\"seq\":7}\n");
  model::Value line = model::parse_json(c.out.str(), "line");
  CHECK(line.find("seq")->as_int() == 7);
}

TEST_CASE("the process log rate-limits repeated errors on its injected clock", "[actors][log]") {
  Captured c;
  auto lines = [&] {
    std::string s = c.out.str();
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
  };
  {
    ProcessLog log(c.options(model::LogLevel::info, model::LogFormat::logfmt));
    for (int i = 0; i < 10; ++i, c.mono += 1000) log.write(refused());
    CHECK(lines() == 1);
    c.mono = 30'000;
    log.write(refused());  // the window is over: one line for the 9 held back and this one
    CHECK(lines() == 2);
    CHECK(c.out.str().find("msg=\"list or watch failed; retrying (repeated 10 times)\" kind=Probe repeated=10\n") !=
          std::string::npos);
    c.mono = 31'000;
    log.write(refused());
    log.write(refused());
    CHECK(lines() == 2);
  }  // the destructor reports the two held back
  CHECK(lines() == 3);
  CHECK(c.out.str().find("(repeated 2 times)\" kind=Probe repeated=2\n") != std::string::npos);
}

TEST_CASE("log level none writes nothing, not even errors", "[actors][log]") {
  Captured c;
  {
    ProcessLog log(c.options(model::LogLevel::none, model::LogFormat::logfmt));
    CHECK_FALSE(static_cast<bool>(log.log()));
    log.write(refused());
    log.log()(refused());
  }
  CHECK(c.out.str().empty());
}
