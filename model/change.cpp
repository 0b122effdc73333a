#include "model/change.hpp"

namespace model {

const char* change_name(Change c) {
  switch (c) {
    case Change::added:
      return "ADDED";
    case Change::modified:
      return "MODIFIED";
    case Change::deleted:
      return "DELETED";
    case Change::resync:
      break;
  }
  return "RESYNC";
}

std::optional<Change> parse_change(std::string_view s) {
  for (auto c : {Change::added, Change::modified, Change::deleted, Change::resync})
    if (s == change_name(c)) return c;
  return std::nullopt;
}

}  // namespace model
