// Reading the common fields of Kubernetes objects held as model::Value: a
// nested member by path, strings at a path, metadata.namespace/name/labels.
// Every layer reads objects through these (the client's reflector, the
// simulated store, the controller's events, the allocator's discovery).
// Contract: pure and total: an absent step or a value of another type reads
// as nullptr, "" or an empty map.
#pragma once

#include <array>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "model/value.hpp"

namespace model {

using Labels = std::map<std::string, std::string>;
using Key = std::pair<std::string, std::string>;  // namespace, name

// The metadata fields the API server sets: a client's desired object never
// carries them, a create drops what a client sent, an update keeps the
// stored values.
inline constexpr std::array<std::string_view, 8> kServerSetMetadata = {"uid",
                                                                       "resourceVersion",
                                                                       "generation",
                                                                       "creationTimestamp",
                                                                       "deletionTimestamp",
                                                                       "deletionGracePeriodSeconds",
                                                                       "managedFields",
                                                                       "selfLink"};
// The subset that moves on writes that change no content (a status update,
// a server-side apply): two objects that differ only here (and in status)
// hold the same content. uid and the timestamps are not in it: a new uid is
// a new object.
inline constexpr std::array<std::string_view, 3> kBookkeepingMetadata = {"resourceVersion", "generation",
                                                                         "managedFields"};

// The member at `path` (object keys), or nullptr.
const Value* find_path(const Value& v, std::span<const std::string_view> path);
inline const Value* find_path(const Value& v, std::initializer_list<std::string_view> path) {
  return find_path(v, std::span<const std::string_view>(path.begin(), path.size()));
}
// Whether `key` is one of kServerSetMetadata.
bool is_server_set_metadata(std::string_view key);
// Erases kServerSetMetadata's members from a metadata object; whether any
// was there.
bool strip_server_metadata(Value& meta);
// The string at `path`, or "" when absent or not a string.
std::string string_at(const Value& v, std::initializer_list<std::string_view> path);
// metadata.<field> as a string ("namespace", "name", "uid", ...).
std::string meta_string(const Value& object, std::string_view field);
Key object_key(const Value& object);
// "namespace/name" ("/name" for cluster-scoped objects).
std::string namespaced_name(const Value& object);
// "Kind ns/name", or "Kind name" for a cluster-scoped object: how logs,
// Problems and Events name an object.
std::string describe_object(std::string_view kind, std::string_view ns, std::string_view name);
// metadata.labels, string values only.
Labels object_labels(const Value& object);
// The string member `key` of a labels object, or nullptr when `labels` is
// null, the key is absent or its value is not a string.
inline const std::string* label_string(const Value* labels, std::string_view key) {
  const Value* v = labels ? labels->find(key) : nullptr;
  return v && v->is_string() ? &v->as_string() : nullptr;
}

}  // namespace model
