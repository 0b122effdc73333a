#include "model/log.hpp"

#include <charconv>
#include <cmath>

#include "model/object_fields.hpp"

namespace model {

LogEntry& LogEntry::with(std::string key, std::string value) {
  fields.push_back({std::move(key), std::move(value), false});
  return *this;
}

LogEntry& LogEntry::with(std::string key, bool value) {
  fields.push_back({std::move(key), value ? "true" : "false", true});
  return *this;
}

LogEntry& LogEntry::with(std::string key, double value) {
  // JSON has no NaN or infinity: those stay text.
  if (!std::isfinite(value)) return with(std::move(key), std::string(std::isnan(value) ? "NaN" : "Inf"));
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  fields.push_back({std::move(key), std::string(buf, ec == std::errc() ? end : buf), true});
  return *this;
}

LogEntry& LogEntry::object(std::string_view kind, std::string_view ns, std::string_view name) {
  return with("object", describe_object(kind, ns, name));
}

std::string LogEntry::value(std::string_view key) const {
  for (const LogField& f : fields)
    if (f.key == key) return f.value;
  return "";
}

std::string url_for_log(std::string_view url) {
  std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  std::size_t start = scheme + 3;
  std::size_t end = url.find_first_of("/?#", start);
  std::string_view authority = url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  std::size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  std::size_t colon = authority.find(':');
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  std::string out(url.substr(0, start + colon + 1));
  out += "<secret>";
  out += url.substr(start + at);
  return out;
}

}  // namespace model
