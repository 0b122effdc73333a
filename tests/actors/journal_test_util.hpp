// Helpers for the journal tests: a temporary directory, whole-file reads
// and writes, and an spdlog logger whose lines the test can read.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace journal_test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ao-journal-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// A logger writing into a string, for FileJournalOptions::log.
struct LogCapture {
  std::ostringstream out;
  std::shared_ptr<spdlog::logger> logger;
  LogCapture()
      : logger(
            std::make_shared<spdlog::logger>("journal-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out))) {
    logger->set_pattern("level=%l %v");
  }
  std::string text() {
    logger->flush();
    return out.str();
  }
};

}  // namespace journal_test
