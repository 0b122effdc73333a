// Serialises Values as YAML and JSON. Object keys are emitted in byte order,
// so output is deterministic regardless of how the Value was built.
// Contract: the YAML written here reads back (with parse_documents) as an
// equal Value; strings that would resolve to another type are quoted.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace model {

// Appends `v` as a block-style YAML document (no leading "---").
void emit_yaml(const Value& v, std::string& out);
std::string to_yaml(const Value& v);

// Pre-emitted YAML to write in place of one array node: `items` are block
// sequences emitted at indent 0 (as emit_yaml writes an array), written one
// after another and re-indented to where `node` sits. `node` must be a
// non-empty array held by an object member of the emitted tree (its own
// items are not written). The output equals emitting a tree whose array
// holds the items' values.
struct YamlSplice {
  const Value* node = nullptr;
  std::vector<std::string_view> items;
};
void emit_yaml(const Value& v, std::string& out, std::span<const YamlSplice> splices);

// Compact JSON with sorted keys.
void emit_json(const Value& v, std::string& out);
// One JSON string literal, quotes included, as emit_json writes strings.
void emit_json_string(std::string_view s, std::string& out);
std::string to_json(const Value& v);

// True when `s` can be written as a plain YAML scalar and read back as the
// same string.
bool yaml_plain_safe(std::string_view s);

}  // namespace model
