// Flow collections of the fast YAML reader, the one-line ones manifests
// write ("labels: {app: x}", "values: [a, b]"): entries separated by ", ",
// plain or quoted scalars, "key: value" in mappings. Trailing commas,
// empty values, single-pair mappings in sequences, "?" and anything else
// yaml-cpp gives its own meaning stop the reader.
#include "model/yaml_fast_scan.hpp"

#include <vector>

namespace model::yaml_fast {
namespace {

void skip_spaces(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
}

std::string quoted_at(std::string_view s, std::size_t& pos) {
  std::size_t used = 0;
  auto text = quoted_scalar(s.substr(pos), used);
  if (!text) unsupported();
  pos += used;
  return std::move(*text);
}

// After an entry: true at the closing bracket (eaten), false after a ','
// that another entry follows.
bool at_end(std::string_view s, std::size_t& pos, char close) {
  skip_spaces(s, pos);
  if (pos >= s.size()) unsupported();
  if (s[pos] == close) {
    ++pos;
    return true;
  }
  if (s[pos] != ',') unsupported();
  skip_spaces(s, ++pos);
  if (pos >= s.size() || s[pos] == ']' || s[pos] == '}' || s[pos] == ',') unsupported();
  return false;
}

// A mapping's key and its ": ".
std::string key_at(std::string_view s, std::size_t& pos) {
  if (pos >= s.size()) unsupported();
  std::string key;
  if (s[pos] == '"' || s[pos] == '\'') {
    key = quoted_at(s, pos);
  } else {
    std::size_t used = 0;
    auto plain = plain_in_flow(s.substr(pos), used);
    if (!plain || used != plain->size()) unsupported();  // "{a : b}" is left to yaml-cpp
    key = plain_key_text(*plain);
    pos += used;
  }
  if (pos + 1 >= s.size() || s[pos] != ':' || s[pos + 1] != ' ') unsupported();
  pos += 2;
  return key;
}

Value node(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget);

Value sequence(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget) {
  budget.open(depth);
  Value::Array items;
  skip_spaces(s, ++pos);
  if (pos < s.size() && s[pos] == ']') {
    ++pos;
    return Value(std::move(items));
  }
  do {
    items.push_back(node(s, pos, depth + 1, budget));
  } while (!at_end(s, pos, ']'));
  return Value(std::move(items));
}

Value mapping(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget) {
  budget.open(depth);
  Value::Object members;
  skip_spaces(s, ++pos);
  if (pos < s.size() && s[pos] == '}') {
    ++pos;
    return Value(std::move(members));
  }
  do {
    std::string key = key_at(s, pos);
    budget.count_node();
    skip_spaces(s, pos);
    members.emplace_back(std::move(key), node(s, pos, depth + 1, budget));
  } while (!at_end(s, pos, '}'));
  if (duplicate_key(members)) unsupported();
  return Value(std::move(members));
}

Value node(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget) {
  if (pos >= s.size()) unsupported();
  if (s[pos] == '[') return sequence(s, pos, depth, budget);
  if (s[pos] == '{') return mapping(s, pos, depth, budget);
  budget.count_node();
  if (s[pos] == '"' || s[pos] == '\'') return Value(quoted_at(s, pos));
  std::size_t used = 0;
  auto plain = plain_in_flow(s.substr(pos), used);
  if (!plain) unsupported();
  pos += used;
  return resolve_plain_scalar(std::string(*plain));
}

}  // namespace

Value flow_collection(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget) {
  return node(s, pos, depth, budget);
}

}  // namespace model::yaml_fast
