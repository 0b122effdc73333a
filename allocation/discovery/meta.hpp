// Helpers shared by the discovery builders: Prometheus's label-name
// sanitising, Go's net.JoinHostPort, reading fields of Kubernetes objects
// held as model::Value, and the mutable label map the builders fill.
// Contract: pure. sanitize_label_name matches Prometheus's
// strutil.SanitizeLabelName: every character outside [a-zA-Z0-9_] becomes
// one '_' (a valid multi-byte UTF-8 character is one character; each byte
// of an invalid sequence is one). A leading digit is kept, as upstream.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/labels.hpp"
#include "model/object_fields.hpp"
#include "model/value.hpp"

namespace allocation::discovery {

std::string sanitize_label_name(std::string_view name);
// "host:port", or "[host]:port" when host contains ':' (IPv6).
std::string join_host_port(std::string_view host, std::string_view port);

// A whole number rendered in decimal ("" when absent or not an integer).
std::string int_at(const model::Value& v, std::initializer_list<std::string_view> path);
// The items of the array at `path` (empty when absent).
const model::Value::Array& array_at(const model::Value& v, std::initializer_list<std::string_view> path);

// Labels of the http_sd and file_sd grammar, as parsed.
using LabelMap = std::map<std::string, std::string>;

// Labels while a role builds them: interned names, values copied into one
// buffer (a map of strings cost a node and a key per label). set()
// overwrites (Go's map assignment and LabelSet.Merge): the last value of
// a name wins when the set is made, and empty values are dropped then, as
// Prometheus treats an empty value as an absent label. A role reuses one
// draft for all its targets (assign() keeps the buffers), so a target costs
// no allocation besides its LabelSet.
class LabelDraft {
 public:
  using Init = std::initializer_list<std::pair<Name, std::string_view>>;
  LabelDraft() = default;
  LabelDraft(Init labels) { assign(labels); }
  // Replaces every label with `labels`.
  void assign(Init labels);
  void set(Name name, std::string_view value);
  // set(name, join_host_port(host, port)), without the temporary.
  void set_host_port(Name name, std::string_view host, std::string_view port);
  bool empty() const { return entries_.empty(); }
  std::shared_ptr<const LabelSet> share();

 private:
  struct Entry {
    Name name;
    std::uint32_t offset, size;
  };
  std::vector<Entry> entries_;
  std::string text_;
  std::vector<LabelRef> refs_;  // share()'s scratch
};

// Adds __meta_kubernetes_<role>_name, _label_*, _labelpresent_*,
// _annotation_* and _annotationpresent_* from metadata.
void add_object_meta(LabelDraft& labels, const model::Value& object, std::string_view role);
std::shared_ptr<const LabelSet> to_label_set(const LabelMap& labels);

// The string at `path` as a view into `v` ("" when absent or not a string).
std::string_view string_view_at(const model::Value& v, std::initializer_list<std::string_view> path);

}  // namespace allocation::discovery
