// Small helpers the subcommands share for reading flags: a cursor over
// argv that accepts both "--flag value" and "--flag=value" (and upstream's
// single-dash spelling), durations like "100ms", "10s", "2m", and label
// lists "k=v,k2=v2". Contract: malformed values throw std::invalid_argument
// naming the flag.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "model/meta.hpp"

namespace cli {

class Args {
 public:
  Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
  bool next();  // advances to the next flag; false at the end
  // True when the current flag is `name` (given without dashes); matches
  // "-name", "--name" and "--name=value".
  bool is(const char* name) const;
  std::string value();  // the flag's value (inline or the next argument)
  const std::string& flag() const { return flag_; }
  [[noreturn]] void unknown() const;

 private:
  int argc_;
  char** argv_;
  int i_ = -1;
  std::string flag_, name_;
  std::optional<std::string> inline_value_;
};

std::chrono::milliseconds parse_duration(const std::string& flag, const std::string& text);
bool parse_labels(const std::string& text, model::Labels& out);

}  // namespace cli
