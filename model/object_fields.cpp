#include "model/object_fields.hpp"

#include <algorithm>

namespace model {

const Value* find_path(const Value& v, std::span<const std::string_view> path) {
  const Value* cur = &v;
  for (std::string_view p : path)
    if (!(cur = cur->find(p))) return nullptr;
  return cur;
}

bool is_server_set_metadata(std::string_view key) {
  return std::find(kServerSetMetadata.begin(), kServerSetMetadata.end(), key) != kServerSetMetadata.end();
}

bool strip_server_metadata(Value& meta) {
  bool erased = false;
  for (std::string_view k : kServerSetMetadata) erased = meta.erase(k) || erased;
  return erased;
}

std::string string_at(const Value& v, std::initializer_list<std::string_view> path) {
  const Value* found = find_path(v, path);
  return found && found->is_string() ? found->as_string() : std::string();
}

std::string meta_string(const Value& object, std::string_view field) {
  return string_at(object, {"metadata", field});
}

Key object_key(const Value& object) {
  return {meta_string(object, "namespace"), meta_string(object, "name")};
}

std::string namespaced_name(const Value& object) {
  return meta_string(object, "namespace") + "/" + meta_string(object, "name");
}

std::string describe_object(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string out(kind);
  out += ' ';
  if (!ns.empty()) (out += ns) += '/';
  return out += name;
}

Labels object_labels(const Value& object) {
  Labels out;
  if (const Value* labels = find_path(object, {"metadata", "labels"}); labels && labels->is_object())
    for (const auto& [k, v] : labels->as_object())
      if (v.is_string()) out[k] = v.as_string();
  return out;
}

}  // namespace model
