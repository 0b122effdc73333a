// Label and field selectors in their text form: the grammar of the
// Kubernetes API's `labelSelector=` and `fieldSelector=` parameters, which
// kubernetes_sd_config `selectors` also use (`app=a,tier in (web,db),!old`,
// `metadata.name=x,status.phase!=Failed`). Simcluster and the target
// allocator's discovery both parse with this one grammar.
// Contract: pure. parse_* throw SyntaxError with the API server's
// wording; matching never throws. An empty selector matches everything.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace model::selector_text {

class SyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LabelRequirement {
  enum class Op { equals, not_equals, in, not_in, exists, not_exists, greater, less };
  std::string key;
  Op op = Op::exists;
  std::vector<std::string> values;  // sorted for in/notin
};

class LabelSelector {
 public:
  LabelSelector() = default;
  explicit LabelSelector(std::vector<LabelRequirement> reqs) : reqs_(std::move(reqs)) {}
  // `labels` is metadata.labels (an object of strings) or null.
  bool matches(const Value* labels) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<LabelRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<LabelRequirement> reqs_;
};

// Keys must be qualified names and values label values, as the server checks.
LabelSelector parse_label_selector(std::string_view text);

struct FieldRequirement {
  std::string field;  // dotted path, e.g. "metadata.name"
  bool negated = false;
  std::string value;
};

class FieldSelector {
 public:
  FieldSelector() = default;
  explicit FieldSelector(std::vector<FieldRequirement> reqs) : reqs_(std::move(reqs)) {}
  // Fields are read from the object by dotted path; absent fields read "".
  bool matches(const Value& object) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<FieldRequirement> reqs_;
};

// `path=v`, `path==v`, `path!=v`, comma-separated; `\,`, `\=` and `\\` escape
// in values; empty terms are skipped. Which fields exist is the caller's
// question (the API server allows a few per resource).
FieldSelector parse_field_selector(std::string_view text);

// The string at a dotted path ("spec.nodeName") of an object; "" if absent.
// Integers and booleans are rendered as text.
std::string field_text(const Value& object, std::string_view path);

}  // namespace model::selector_text
