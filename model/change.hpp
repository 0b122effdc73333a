// The kind of change a watched object went through, shared by every layer
// that passes watch events on: the API client's Reflector, the controller's
// events and journal, the allocator's discovery indexes and its journal.
// Contract: the names are the Kubernetes watch event types ("ADDED",
// "MODIFIED", "DELETED") plus "RESYNC", an object as a list returned it
// before the watch caught up (the controller journals the initial lists so;
// every consumer treats it as an upsert). parse_change() accepts exactly
// these four names.
#pragma once

#include <optional>
#include <string_view>

namespace model {

enum class Change { added, modified, deleted, resync };

const char* change_name(Change c);
std::optional<Change> parse_change(std::string_view s);

}  // namespace model
