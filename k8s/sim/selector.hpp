// Label and field selectors in the query-string syntax of the Kubernetes
// API (`labelSelector=app=a,tier in (web,db),!legacy`,
// `fieldSelector=metadata.name=x`).
// Contract: parse_* throws ApiError 400 (BadRequest) on malformed input, with
// the real server's wording where it has one; matching never throws. An
// empty selector matches everything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace k8s::sim {

struct LabelRequirement {
  enum class Op { equals, not_equals, in, not_in, exists, not_exists, greater, less };
  std::string key;
  Op op = Op::exists;
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  LabelSelector() = default;
  explicit LabelSelector(std::vector<LabelRequirement> reqs) : reqs_(std::move(reqs)) {}
  // `labels` is metadata.labels (an object of strings) or null.
  bool matches(const model::Value* labels) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<LabelRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<LabelRequirement> reqs_;
};

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
  bool matches(const model::Value& object) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<FieldRequirement> reqs_;
};

// `supported` lists the field paths this resource accepts; any other field
// is rejected as the real server does ("field label not supported").
FieldSelector parse_field_selector(std::string_view text, const std::vector<std::string>& supported);

// The string at a dotted path ("spec.nodeName") of an object; "" if absent.
// Integers and booleans are rendered as text.
std::string field_text(const model::Value& object, std::string_view path);

}  // namespace k8s::sim
