// Label and field selectors as simcluster's REST layer takes them
// (`labelSelector=`, `fieldSelector=`): model/selector_text.hpp's grammar,
// with its errors turned into the API server's 400 answers.
// Contract: parse_* throw ApiError 400 (BadRequest) on malformed input, with
// the real server's wording; matching never throws. An empty selector
// matches everything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/selector_text.hpp"

namespace k8s::sim {

using model::selector_text::field_text;
using model::selector_text::FieldRequirement;
using model::selector_text::FieldSelector;
using model::selector_text::LabelRequirement;
using model::selector_text::LabelSelector;

LabelSelector parse_label_selector(std::string_view text);

// `supported` lists the field paths this resource accepts; any other field
// is rejected as the real server does ("field label not supported").
FieldSelector parse_field_selector(std::string_view text, const std::vector<std::string>& supported);

}  // namespace k8s::sim
