#include "flags.hpp"

#include <stdexcept>

namespace cli {

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
  if (ms < 0)
    throw std::invalid_argument((flag.empty() ? "" : flag + ": ") + "\"" + text +
                                "\" is not a duration (e.g. 100ms, 10s, 2m)");
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

Flag explain_flag(std::string& out) {
  return {{"explain"},
          "NS/NAME",
          "off",
          "print why each resource is in or out of that agent's hierarchy",
          [&out](const std::string& v) {
            if (v.find('/') == std::string::npos) throw std::invalid_argument("want NAMESPACE/NAME");
            out = v;
          }};
}

Flag extra_labels_flag(model::Labels& out) {
  return {
      {"labels"}, "K=V,...", "none", "extra labels on created objects (as given to run)", [&out](const std::string& v) {
        if (!parse_labels(v, out)) throw std::invalid_argument("want k=v,k2=v2");
      }};
}

}  // namespace cli
