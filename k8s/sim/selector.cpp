#include "k8s/sim/selector.hpp"

#include <algorithm>

#include "k8s/sim/api_error.hpp"

namespace k8s::sim {

LabelSelector parse_label_selector(std::string_view text) {
  try {
    return model::selector_text::parse_label_selector(text);
  } catch (const model::selector_text::SyntaxError& e) {
    throw ApiError::bad_request(e.what());
  }
}

FieldSelector parse_field_selector(std::string_view text, const std::vector<std::string>& supported) {
  FieldSelector selector;
  try {
    selector = model::selector_text::parse_field_selector(text);
  } catch (const model::selector_text::SyntaxError& e) {
    throw ApiError::bad_request(e.what());
  }
  for (const FieldRequirement& r : selector.requirements())
    if (std::find(supported.begin(), supported.end(), r.field) == supported.end())
      throw ApiError::bad_request("field label not supported: " + r.field);
  return selector;
}

}  // namespace k8s::sim
