// Kubernetes label and field selectors in their text form (as written in a
// kubernetes_sd_config's `selectors`), parsed once and evaluated against
// objects held as model::Value.
// Contract: pure. Label selectors accept what the API server accepts
// except `<` and `>`: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
// `k notin (a,b)`, comma-separated (all must hold). Field selectors accept
// `path=v`, `path==v`, `path!=v` with dotted paths into the object
// (`metadata.name`, `status.phase`, `spec.nodeName`); a missing field reads
// as "". parse_* throws SelectorError describing the problem.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace allocation::discovery {

class SelectorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Requirement {
  enum class Op { exists, not_exists, equals, not_equals, in, not_in };
  std::string key;
  Op op = Op::exists;
  std::vector<std::string> values;
};

class Selector {
 public:
  Selector() = default;  // matches everything
  static Selector parse_labels(std::string_view text);
  static Selector parse_fields(std::string_view text);

  bool empty() const { return reqs_.empty(); }
  bool matches(const model::Value& object) const;
  const std::string& text() const { return text_; }

 private:
  bool fields_ = false;
  std::string text_;
  std::vector<Requirement> reqs_;
};

}  // namespace allocation::discovery
