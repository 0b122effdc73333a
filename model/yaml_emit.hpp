// Serialises Values as YAML and JSON. Object keys are emitted in byte order,
// so output is deterministic regardless of how the Value was built.
// Contract: the YAML written here reads back (with parse_documents) as an
// equal Value; strings that would resolve to another type are quoted.
#pragma once

#include <string>
#include <string_view>

#include "model/value.hpp"

namespace model {

// Appends `v` as a block-style YAML document (no leading "---").
void emit_yaml(const Value& v, std::string& out);
std::string to_yaml(const Value& v);

// Compact JSON with sorted keys.
void emit_json(const Value& v, std::string& out);
std::string to_json(const Value& v);

// True when `s` can be written as a plain YAML scalar and read back as the
// same string.
bool yaml_plain_safe(std::string_view s);

}  // namespace model
