#include "actors/log/repeat_filter.hpp"

#include "model/log_format.hpp"

namespace actors::log {

RepeatFilter::RepeatFilter(std::int64_t window_ms, std::size_t max_tracked)
    : window_ms_(window_ms), max_tracked_(max_tracked) {}

model::LogEntry repeat_summary(const model::LogEntry& e, std::uint64_t count) {
  model::LogEntry out = e;
  out.msg += " (repeated " + std::to_string(count) + " times)";
  out.with("repeated", count);
  return out;
}

void RepeatFilter::expire(std::int64_t now_ms, const std::string& skip, std::vector<model::LogEntry>& out) {
  for (auto it = seen_.begin(); it != seen_.end();) {
    if (it->first == skip || now_ms - it->second.since < window_ms_) {
      ++it;
      continue;
    }
    if (it->second.suppressed > 0) out.push_back(repeat_summary(it->second.entry, it->second.suppressed));
    it = seen_.erase(it);
  }
}

std::vector<model::LogEntry> RepeatFilter::admit(const model::LogEntry& e, std::int64_t now_ms) {
  std::vector<model::LogEntry> out;
  const bool limited = e.level == model::LogLevel::warn || e.level == model::LogLevel::error;
  const std::string key = limited ? model::log_text(e) : std::string();
  expire(now_ms, key, out);
  if (!limited) {
    out.push_back(e);
    return out;
  }
  auto it = seen_.find(key);
  if (it == seen_.end()) {
    if (seen_.size() < max_tracked_) seen_.emplace(key, Seen{e, now_ms, 0});
    out.push_back(e);
    return out;
  }
  Seen& s = it->second;
  if (now_ms - s.since < window_ms_) {
    ++s.suppressed;
    return out;
  }
  // The window is over: this occurrence reports the ones held back with it.
  out.push_back(s.suppressed > 0 ? repeat_summary(e, s.suppressed + 1) : e);
  s.since = now_ms;
  s.suppressed = 0;
  return out;
}

std::vector<model::LogEntry> RepeatFilter::flush() {
  std::vector<model::LogEntry> out;
  for (const auto& [key, s] : seen_)
    if (s.suppressed > 0) out.push_back(repeat_summary(s.entry, s.suppressed));
  seen_.clear();
  return out;
}

}  // namespace actors::log
