// The kind of change a watched object went through, shared by every layer
// that passes watch events on: the API client's Reflector, the allocator's
// discovery indexes and its journal.
// Contract: the names are the Kubernetes watch event types ("ADDED",
// "MODIFIED", "DELETED"); parse_change() accepts exactly those.
#pragma once

#include <optional>
#include <string_view>

namespace model {

enum class Change { added, modified, deleted };

const char* change_name(Change c);
std::optional<Change> parse_change(std::string_view s);

}  // namespace model
