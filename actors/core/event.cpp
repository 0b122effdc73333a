#include "actors/core/event.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace actors::core {
namespace {

// Howard Hinnant's civil calendar algorithms (proleptic Gregorian).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

// Reads exactly `width` digits at s[pos].
bool digits(std::string_view s, std::size_t pos, std::size_t width, unsigned& out) {
  if (pos + width > s.size()) return false;
  auto r = std::from_chars(s.data() + pos, s.data() + pos + width, out);
  return r.ec == std::errc() && r.ptr == s.data() + pos + width;
}

}  // namespace

std::string format_rfc3339_ms(std::int64_t unix_ms) {
  std::int64_t days = unix_ms >= 0 ? unix_ms / 86'400'000 : (unix_ms - 86'399'999) / 86'400'000;
  std::int64_t rem = unix_ms - days * 86'400'000;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  std::array<char, 96> buf;
  std::snprintf(buf.data(), buf.size(), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(y), m,
                d, static_cast<long long>(rem / 3'600'000), static_cast<long long>(rem / 60'000 % 60),
                static_cast<long long>(rem / 1000 % 60), static_cast<long long>(rem % 1000));
  return buf.data();
}

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view s) {
  unsigned y, mo, d, h, mi, sec, ms;
  if (s.size() != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' ||
      s[23] != 'Z')
    return std::nullopt;
  if (!digits(s, 0, 4, y) || !digits(s, 5, 2, mo) || !digits(s, 8, 2, d) || !digits(s, 11, 2, h) ||
      !digits(s, 14, 2, mi) || !digits(s, 17, 2, sec) || !digits(s, 20, 3, ms))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  std::int64_t days = days_from_civil(y, mo, d);
  return ((days * 24 + h) * 60 + mi) * 60'000 + sec * 1000 + ms;
}

ObjectPtr make_object(model::Value v) {
  return std::make_shared<const model::Value>(std::move(v));
}

Event make_event(std::uint64_t seq, std::int64_t time_ms, EventType type, model::Value object) {
  Event e;
  e.seq = seq;
  e.time_ms = time_ms;
  const model::Value* kind = object.find("kind");
  e.kind = kind && kind->is_string() ? kind->as_string() : std::string();
  e.type = type;
  e.object = make_object(std::move(object));
  return e;
}

}  // namespace actors::core
