// Reads YAML or JSON text into Value documents. JSON goes through simdjson;
// YAML through a fast reader for the block style manifests are written in
// (yaml_fast.hpp) and, for any stream it is not sure of, yaml-cpp's event
// parser. All build the same Value tree, so every later stage sees one
// representation.
// Contract: never throws anything but ParseError; limits depth, alias
// expansion and size so hostile input cannot exhaust the stack or memory.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace model {

struct ParseLimits {
  std::size_t max_depth = 200;
  std::size_t max_nodes = 20'000'000;       // per document, after alias expansion
  std::size_t max_alias_nodes = 1'000'000;  // per stream: nodes copied by aliases
  std::size_t max_bytes = 512ull << 20;
};

class ParseError : public std::runtime_error {
 public:
  ParseError(std::string source, int line, std::string message);
  const std::string& source() const { return source_; }
  int line() const { return line_; }  // 1-based; 0 when unknown
  const std::string& problem() const { return problem_; }

 private:
  std::string source_;
  int line_;
  std::string problem_;
};

struct Document {
  Value value;
  int line = 1;  // 1-based line where the document starts
};

// Parses a multi-document YAML stream or a JSON text. Empty documents are
// dropped. `source` names the input in errors (a file path or "-").
std::vector<Document> parse_documents(std::string_view text, std::string_view source, const ParseLimits& limits = {});

// Parses exactly one JSON value with simdjson.
Value parse_json(std::string_view text, std::string_view source = "<json>", const ParseLimits& limits = {});

// Resolves a plain (unquoted) YAML scalar to null, bool, int, float or string.
Value resolve_plain_scalar(const std::string& text);
// Whether a plain scalar reads as null: "", "~", "null", "Null", "NULL".
bool is_null_word(std::string_view text);

}  // namespace model
