// Internal to model/ and its tests: the two YAML readers behind
// parse_documents. read_yaml_fast reads the block-style subset that
// Kubernetes manifests are written in and builds Values directly;
// read_yaml_cpp is the complete reader on yaml-cpp's event parser.
// Contract: read_yaml_fast never throws; it answers std::nullopt whenever
// the text strays from its subset or comes near the limits, and otherwise
// returns exactly what read_yaml_cpp returns (documents, lines, values,
// types, member order). tests/model/yaml_fast_test.cpp checks this
// differentially. Both take text that passed parse_documents' UTF-8 check.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/parse.hpp"

namespace model {

std::optional<std::vector<Document>> read_yaml_fast(std::string_view text, const ParseLimits& limits) noexcept;

// Offset of the first byte that makes `s` something other than UTF-8 YAML
// text (invalid UTF-8, or NUL), or npos; parse_documents refuses such text.
std::size_t non_utf8_yaml_at(std::string_view s);

// Throws ParseError, naming `source` and the line yaml-cpp reports.
std::vector<Document> read_yaml_cpp(std::string_view text, std::string_view source, const ParseLimits& limits);

}  // namespace model
