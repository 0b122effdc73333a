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

// Labels while they are built; set() overwrites (Go's map assignment and
// LabelSet.Merge). Empty values are kept here and dropped by to_label_set,
// as Prometheus treats an empty value as an absent label.
using LabelMap = std::map<std::string, std::string>;

// Adds __meta_kubernetes_<role>_name, _label_*, _labelpresent_*,
// _annotation_* and _annotationpresent_* from metadata.
void add_object_meta(LabelMap& labels, const model::Value& object, std::string_view role);
std::shared_ptr<const LabelSet> to_label_set(const LabelMap& labels);

}  // namespace allocation::discovery
