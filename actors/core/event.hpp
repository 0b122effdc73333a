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

#include "model/change.hpp"
#include "model/inventory.hpp"
#include "model/object_fields.hpp"
#include "model/value.hpp"

namespace actors::core {

// One enum for watch changes in every layer (model/change.hpp).
using EventType = model::Change;

using ObjectPtr = std::shared_ptr<const model::Value>;

struct Event {
  std::uint64_t seq = 0;
  std::int64_t time_ms = 0;  // Unix epoch milliseconds, UTC
  std::string kind;
  EventType type = EventType::added;
  ObjectPtr object;
};

// RFC 3339 UTC with milliseconds: "2024-05-01T12:00:00.250Z".
std::string format_rfc3339_ms(std::int64_t unix_ms);
// Accepts exactly the format above; nullopt otherwise.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view s);

// Object fields are read with model/object_fields.hpp; the core's callers
// name them unqualified.
using model::object_key;
using model::object_labels;

ObjectPtr make_object(model::Value v);
Event make_event(std::uint64_t seq, std::int64_t time_ms, EventType type, model::Value object);

}  // namespace actors::core
