// Label-name sanitising and object field access for the discovery builders.
#include "allocation/discovery/meta.hpp"

#include <optional>

namespace allocation::discovery {

namespace {

bool ascii_name_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the valid UTF-8 sequence at s[i], or 1 when it is invalid (Go
// decodes an invalid byte as one RuneError of width 1).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    n = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF)
    n = 3, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
  else if (b0 >= 0xF0 && b0 <= 0xF4)
    n = 4, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
  else
    return 1;
  if (i + n > s.size()) return 1;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b1 < lo || b1 > hi) return 1;
  for (std::size_t k = 2; k < n; ++k)
    if (!continuation(static_cast<unsigned char>(s[i + k]))) return 1;
  return n;
}

const model::Value::Array& empty_array() {
  static const model::Value::Array none;
  return none;
}

}  // namespace

std::string sanitize_label_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (ascii_name_char(c)) {
      out += static_cast<char>(c);
      ++i;
    } else {
      out += '_';
      i += c < 0x80 ? 1 : utf8_length(name, i);
    }
  }
  return out;
}

std::string join_host_port(std::string_view host, std::string_view port) {
  if (host.find(':') != std::string_view::npos) return "[" + std::string(host) + "]:" + std::string(port);
  return std::string(host) + ":" + std::string(port);
}

std::string int_at(const model::Value& v, std::initializer_list<std::string_view> path) {
  const model::Value* n = model::find_path(v, path);
  return n && n->is_int() ? std::to_string(n->as_int()) : std::string();
}

const model::Value::Array& array_at(const model::Value& v, std::initializer_list<std::string_view> path) {
  const model::Value* a = model::find_path(v, path);
  return a && a->is_array() ? a->as_array() : empty_array();
}

namespace {

// The names add_object_meta writes for one role, interned once per role.
struct ObjectMetaNames {
  std::string_view role;
  Name name;
  std::string prefixes[4];  // label_, labelpresent_, annotation_, annotationpresent_
};

ObjectMetaNames object_meta_names(std::string_view role) {
  const std::string p = "__meta_kubernetes_" + std::string(role);
  return {role,
          Name::intern(p + "_name"),
          {p + "_label_", p + "_labelpresent_", p + "_annotation_", p + "_annotationpresent_"}};
}

// nullptr for a role without a builder (only tests ask for one).
const ObjectMetaNames* known_meta_names(std::string_view role) {
  static const ObjectMetaNames known[] = {object_meta_names("pod"), object_meta_names("service"),
                                          object_meta_names("endpoints"), object_meta_names("endpointslice"),
                                          object_meta_names("ingress")};
  for (const auto& k : known)
    if (k.role == role) return &k;
  return nullptr;
}

}  // namespace

void LabelDraft::assign(Init labels) {
  entries_.clear(), text_.clear();
  for (const auto& [name, value] : labels) set(name, value);
}

void LabelDraft::set(Name name, std::string_view value) {
  entries_.push_back({name, static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(value.size())});
  text_.append(value);
}

void LabelDraft::set_host_port(Name name, std::string_view host, std::string_view port) {
  const std::size_t start = text_.size();
  const bool brackets = host.find(':') != std::string_view::npos;
  if (brackets) text_ += '[';
  text_.append(host);
  if (brackets) text_ += ']';
  (text_ += ':').append(port);
  entries_.push_back({name, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(text_.size() - start)});
}

std::shared_ptr<const LabelSet> LabelDraft::share() {
  refs_.clear();
  for (const Entry& e : entries_) refs_.push_back({e.name, std::string_view(text_).substr(e.offset, e.size)});
  return share_label_set(LabelSet(std::span<LabelRef>(refs_)));
}

void add_object_meta(LabelDraft& labels, const model::Value& object, std::string_view role) {
  const ObjectMetaNames* known = known_meta_names(role);
  std::optional<ObjectMetaNames> other;
  const ObjectMetaNames& names = known ? *known : other.emplace(object_meta_names(role));
  labels.set(names.name, string_view_at(object, {"metadata", "name"}));
  for (int field = 0; field < 2; ++field) {
    const model::Value* m = model::find_path(object, {"metadata", field ? "annotations" : "labels"});
    if (!m || !m->is_object()) continue;
    for (const auto& [k, v] : m->as_object()) {
      const std::string name = sanitize_label_name(k);
      labels.set(Name::intern(names.prefixes[2 * field] + name), v.is_string() ? v.as_string() : std::string_view());
      labels.set(Name::intern(names.prefixes[2 * field + 1] + name), "true");
    }
  }
}

std::shared_ptr<const LabelSet> to_label_set(const LabelMap& labels) {
  std::vector<Label> out;
  out.reserve(labels.size());
  for (const auto& [k, v] : labels)
    if (!v.empty()) out.push_back({Name::intern(k), v});
  return share_label_set(LabelSet(std::move(out)));
}

std::string_view string_view_at(const model::Value& v, std::initializer_list<std::string_view> path) {
  const model::Value* found = model::find_path(v, path);
  return found && found->is_string() ? std::string_view(found->as_string()) : std::string_view();
}

}  // namespace allocation::discovery
