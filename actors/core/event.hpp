// The controller's unit of change: one watched object's state at one
// journal sequence number. Events are what the journal records, what the
// selector index routes and what root states fold over.
// Contract: `object` is shared and immutable (one event fans out to many
// roots without copying); for DELETED it is the last known state; `time`
// is injected by the caller (milliseconds since the Unix epoch, UTC).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/inventory.hpp"
#include "model/value.hpp"

namespace actors::core {

enum class EventType { added, modified, deleted, resync };

using ObjectPtr = std::shared_ptr<const model::Value>;

struct Event {
  std::uint64_t seq = 0;
  std::int64_t time_ms = 0;  // Unix epoch milliseconds, UTC
  std::string kind;
  EventType type = EventType::added;
  ObjectPtr object;
};

// "ADDED", "MODIFIED", "DELETED", "RESYNC".
const char* event_type_name(EventType t);
std::optional<EventType> parse_event_type(std::string_view s);

// RFC 3339 UTC with milliseconds: "2024-05-01T12:00:00.250Z".
std::string format_rfc3339_ms(std::int64_t unix_ms);
// Accepts exactly the format above; nullopt otherwise.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view s);

// metadata.namespace / metadata.name ("" when absent).
model::Key object_key(const model::Value& obj);
// metadata.labels as a string map (non-string values are skipped).
model::Labels object_labels(const model::Value& obj);

ObjectPtr make_object(model::Value v);
Event make_event(std::uint64_t seq, std::int64_t time_ms, EventType type, model::Value object);

}  // namespace actors::core
