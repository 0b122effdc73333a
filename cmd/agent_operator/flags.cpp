#include "flags.hpp"

#include <stdexcept>

namespace cli {

bool Args::next() {
  if (++i_ >= argc_) return false;
  flag_ = argv_[i_];
  std::string body = flag_;
  while (!body.empty() && body.front() == '-') body.erase(body.begin());
  inline_value_.reset();
  if (auto eq = body.find('='); eq != std::string::npos) {
    inline_value_ = body.substr(eq + 1);
    body = body.substr(0, eq);
  }
  name_ = flag_.rfind("-", 0) == 0 ? body : "";
  return true;
}

bool Args::is(const char* name) const {
  return !name_.empty() && name_ == name;
}

std::string Args::value() {
  if (inline_value_) return *inline_value_;
  if (i_ + 1 >= argc_) throw std::invalid_argument("flag " + flag_ + " needs a value");
  return argv_[++i_];
}

void Args::unknown() const {
  throw std::invalid_argument((name_.empty() ? "unexpected argument \"" : "unknown flag \"") + flag_ + "\"");
}

std::chrono::milliseconds parse_duration(const std::string& flag, const std::string& text) {
  std::size_t pos = 0;
  double n = 0;
  try {
    n = std::stod(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  std::string unit = text.substr(pos);
  double ms = -1;
  if (pos == 0 || n < 0)
    ms = -1;
  else if (unit == "ms")
    ms = n;
  else if (unit == "s" || unit.empty())
    ms = n * 1000;
  else if (unit == "m")
    ms = n * 60'000;
  else if (unit == "h")
    ms = n * 3'600'000;
  if (ms < 0) throw std::invalid_argument(flag + ": \"" + text + "\" is not a duration (e.g. 100ms, 10s, 2m)");
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

bool parse_labels(const std::string& text, model::Labels& out) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    std::string pair = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

}  // namespace cli
