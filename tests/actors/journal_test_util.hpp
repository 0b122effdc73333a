// Helpers for the journal tests: a temporary directory, whole-file reads
// and writes, and a log whose lines (logfmt without timestamps) the test
// can read.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "model/log.hpp"
#include "model/log_format.hpp"

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

// A log writing into a string, for FileJournalOptions::log.
struct LogCapture {
  std::shared_ptr<std::string> out = std::make_shared<std::string>();
  model::Log logger{[out = out](const model::LogEntry& e) { *out += model::log_text(e) + "\n"; },
                    model::LogLevel::debug};
  std::string text() const { return *out; }
};

}  // namespace journal_test
