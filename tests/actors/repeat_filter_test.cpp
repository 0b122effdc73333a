// actors/log/repeat_filter: repeated identical warnings and errors are held
// back for a window and reported with a count, on a clock the test moves.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "actors/log/repeat_filter.hpp"
#include "model/log_format.hpp"

using actors::log::RepeatFilter;

namespace {

model::LogEntry unreachable(const std::string& kind = "GrafanaAgent") {
  return model::log_warn("informer", "list or watch failed; retrying")
      .with("kind", kind)
      .with("status", 0)
      .with("error", "Couldn't connect to server");
}

std::vector<std::string> texts(const std::vector<model::LogEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(model::log_text(e));
  return out;
}

const std::string kLine =
    "level=warn component=informer msg=\"list or watch failed; retrying\" kind=GrafanaAgent status=0 "
    "error=\"Couldn't connect to server\"";

}  // namespace

TEST_CASE("a retry loop logs its error once per window, then how often it repeated", "[actors][log]") {
  RepeatFilter f(30'000);
  CHECK(texts(f.admit(unreachable(), 0)) == std::vector<std::string>{kLine});
  // A retry every 2 s: held back for the rest of the window.
  for (std::int64_t t = 2'000; t < 30'000; t += 2'000) CHECK(f.admit(unreachable(), t).empty());
  // The first one after the window stands for itself and the 14 held back.
  auto out = f.admit(unreachable(), 30'000);
  REQUIRE(out.size() == 1);
  CHECK(out[0].msg == "list or watch failed; retrying (repeated 15 times)");
  CHECK(out[0].value("repeated") == "15");
  CHECK(out[0].value("kind") == "GrafanaAgent");
  // A new window starts there.
  CHECK(f.admit(unreachable(), 31'000).empty());
  CHECK(f.admit(unreachable(), 59'999).empty());
  out = f.admit(unreachable(), 60'000);
  REQUIRE(out.size() == 1);
  CHECK(out[0].msg == "list or watch failed; retrying (repeated 3 times)");
}

TEST_CASE("held-back repeats are reported when their window ends, even if the error stops", "[actors][log]") {
  RepeatFilter f(30'000);
  f.admit(unreachable(), 0);
  f.admit(unreachable(), 1'000);
  f.admit(unreachable(), 2'000);
  // The API server answers again: the next line, of anything, brings the count.
  auto out = f.admit(model::log_info("operator", "informers synced; reconciling"), 31'000);
  CHECK(texts(out) == std::vector<std::string>{
                          "level=warn component=informer msg=\"list or watch failed; retrying (repeated 2 times)\" "
                          "kind=GrafanaAgent status=0 error=\"Couldn't connect to server\" repeated=2",
                          "level=info component=operator msg=\"informers synced; reconciling\""});
  // Forgotten: the same error later is a first occurrence again.
  CHECK(texts(f.admit(unreachable(), 40'000)) == std::vector<std::string>{kLine});
}

TEST_CASE("a window that ends with nothing held back reports nothing", "[actors][log]") {
  RepeatFilter f(30'000);
  f.admit(unreachable(), 0);
  CHECK(texts(f.admit(unreachable(), 30'000)) == std::vector<std::string>{kLine});
  CHECK(f.admit(model::log_info("c", "m"), 70'000).size() == 1);  // no summary before it
  CHECK(f.flush().empty());
}

TEST_CASE("entries that differ in any field are limited separately", "[actors][log]") {
  RepeatFilter f(30'000);
  CHECK(f.admit(unreachable("GrafanaAgent"), 0).size() == 1);
  CHECK(f.admit(unreachable("ServiceMonitor"), 0).size() == 1);
  CHECK(f.admit(unreachable("GrafanaAgent").with("attempt", 2), 0).size() == 1);
  model::LogEntry as_error = unreachable();
  as_error.level = model::LogLevel::error;
  CHECK(f.admit(as_error, 0).size() == 1);
  CHECK(f.admit(unreachable("GrafanaAgent"), 1).empty());
  CHECK(f.admit(unreachable("ServiceMonitor"), 1).empty());
}

TEST_CASE("debug and info entries are never held back", "[actors][log]") {
  RepeatFilter f(30'000);
  for (int i = 0; i < 3; ++i) {
    CHECK(f.admit(model::log_info("writer", "updated").with("object", "Secret a/b"), i).size() == 1);
    CHECK(f.admit(model::log_debug("journal", "event"), i).size() == 1);
  }
  CHECK(f.flush().empty());
}

TEST_CASE("flush reports every repeat still held back, at exit", "[actors][log]") {
  RepeatFilter f(30'000);
  f.admit(unreachable("GrafanaAgent"), 0);
  f.admit(unreachable("GrafanaAgent"), 10);
  f.admit(unreachable("Probe"), 0);
  f.admit(unreachable("Probe"), 10);
  f.admit(unreachable("Probe"), 20);
  auto out = f.flush();
  REQUIRE(out.size() == 2);
  CHECK(out[0].msg == "list or watch failed; retrying (repeated 1 times)");
  CHECK(out[0].value("kind") == "GrafanaAgent");
  CHECK(out[1].value("repeated") == "2");
  CHECK(f.flush().empty());
}

TEST_CASE("beyond the tracked limit new entries pass unlimited", "[actors][log]") {
  RepeatFilter f(30'000, 2);
  f.admit(unreachable("A"), 0);
  f.admit(unreachable("B"), 0);
  CHECK(f.admit(unreachable("C"), 0).size() == 1);
  CHECK(f.admit(unreachable("C"), 1).size() == 1);  // not tracked: not held back
  CHECK(f.admit(unreachable("A"), 1).empty());      // tracked ones still are
}
