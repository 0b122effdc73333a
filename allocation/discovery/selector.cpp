#include "allocation/discovery/selector.hpp"

namespace allocation::discovery {

namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

template <class Parse>
auto parse_or_throw(Parse&& parse) {
  try {
    return parse();
  } catch (const model::selector_text::SyntaxError& e) {
    throw SelectorError(e.what());
  }
}

}  // namespace

Selector Selector::parse_labels(std::string_view text) {
  Selector s;
  s.labels_ = parse_or_throw([&] { return model::selector_text::parse_label_selector(text); });
  s.text_ = trimmed(text);
  return s;
}

Selector Selector::parse_fields(std::string_view text) {
  Selector s;
  s.fields_ = parse_or_throw([&] { return model::selector_text::parse_field_selector(text); });
  s.text_ = trimmed(text);
  return s;
}

bool Selector::matches(const model::Value& object) const {
  const model::Value* meta = object.find("metadata");
  return labels_.matches(meta ? meta->find("labels") : nullptr) && fields_.matches(object);
}

}  // namespace allocation::discovery
