// A kubernetes_sd_config `selectors` entry's label or field selector: the
// API server's text grammar (model/selector_text.hpp, the one simcluster
// serves) kept with its text and evaluated against objects held as
// model::Value.
// Contract: pure. Label selectors take `k`, `!k`, `k=v`, `k==v`, `k!=v`,
// `k in (a,b)`, `k notin (a,b)`, `k>1`, `k<1`, comma-separated (all must
// hold), with qualified-name keys and label values, as Prometheus validates
// them. Field selectors take `path=v`, `path==v`, `path!=v` with dotted paths
// into the object (`metadata.name`, `status.phase`, `spec.nodeName`); a
// missing field reads as "". parse_* throw SelectorError with the API
// server's wording.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "model/selector_text.hpp"
#include "model/value.hpp"

namespace allocation::discovery {

class SelectorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Selector {
 public:
  Selector() = default;  // matches everything
  static Selector parse_labels(std::string_view text);
  static Selector parse_fields(std::string_view text);

  bool empty() const { return labels_.empty() && fields_.empty(); }
  bool matches(const model::Value& object) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  model::selector_text::LabelSelector labels_;
  model::selector_text::FieldSelector fields_;
};

}  // namespace allocation::discovery
