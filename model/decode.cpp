#include "model/decode.hpp"

#include <cmath>

namespace model {
namespace {

thread_local FieldLookupLog* active_log = nullptr;

}  // namespace

FieldLookupLog::FieldLookupLog() : previous_(active_log) {
  active_log = this;
}

FieldLookupLog::~FieldLookupLog() {
  active_log = previous_;
}

void FieldLookupLog::note(const std::string& path) {
  if (active_log) active_log->paths_.insert(path);
}

Reader::Reader(const Value* node, std::string path, FieldErrors* errors)
    : node_(node && node->is_object() ? node : nullptr), path_(std::move(path)), errors_(errors) {}

std::string Reader::path_of(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return path_ + "." + std::string(key);
}

void Reader::error(std::string_view key, std::string message) const {
  error_at(path_of(key), std::move(message));
}

void Reader::error_at(std::string path, std::string message) const {
  if (errors_) errors_->push_back(FieldError{std::move(path), std::move(message)});
}

const Value* Reader::lookup(std::string_view key) const {
  if (active_log) FieldLookupLog::note(path_of(key));
  return node_->find(key);
}

const Value* Reader::typed(std::string_view key, Value::Type t) const {
  if (!node_) return nullptr;
  const Value* v = lookup(key);
  if (!v || v->is_null()) return nullptr;
  bool ok = v->type() == t || (t == Value::Type::number && v->is_number());
  if (!ok) {
    error(key, std::string("expected ") + Value::type_name(t) + ", got " + v->type_name());
    return nullptr;
  }
  return v;
}

Reader Reader::object(std::string_view key) const {
  return Reader(typed(key, Value::Type::object), path_of(key), errors_);
}

std::optional<std::string> Reader::str(std::string_view key) const {
  if (const Value* v = typed(key, Value::Type::string)) return v->as_string();
  return std::nullopt;
}

std::string Reader::str_or(std::string_view key, std::string fallback) const {
  auto s = str(key);
  return s ? *s : std::move(fallback);
}

std::optional<std::int64_t> Reader::integer(std::string_view key) const {
  if (!node_) return std::nullopt;
  const Value* v = lookup(key);
  if (!v || v->is_null()) return std::nullopt;
  if (v->is_int()) return v->as_int();
  if (v->is_number()) {
    double d = v->as_double();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e18) return static_cast<std::int64_t>(d);
  }
  if (v->is_number()) {
    double d = v->as_double();
    bool whole = std::isfinite(d) && std::floor(d) == d;
    error(key, whole || !std::isfinite(d) ? std::string("integer out of range")
                                          : std::string("expected integer, got a fraction"));
    return std::nullopt;
  }
  error(key, std::string("expected integer, got ") + v->type_name());
  return std::nullopt;
}

std::optional<bool> Reader::boolean(std::string_view key) const {
  if (const Value* v = typed(key, Value::Type::boolean)) return v->as_bool();
  return std::nullopt;
}

std::optional<double> Reader::number(std::string_view key) const {
  if (const Value* v = typed(key, Value::Type::number)) return v->as_double();
  return std::nullopt;
}

std::optional<IntOrString> Reader::int_or_string(std::string_view key) const {
  if (!node_) return std::nullopt;
  const Value* v = lookup(key);
  if (!v || v->is_null()) return std::nullopt;
  if (v->is_string()) return IntOrString{false, 0, v->as_string()};
  if (v->is_int()) return IntOrString{true, v->as_int(), {}};
  error(key, std::string("expected integer or string, got ") + v->type_name());
  return std::nullopt;
}

std::vector<std::string> Reader::strings(std::string_view key) const {
  std::vector<std::string> out;
  const Value* arr = typed(key, Value::Type::array);
  if (!arr) return out;
  std::size_t i = 0;
  for (const auto& item : arr->as_array()) {
    if (item.is_string()) {
      out.push_back(item.as_string());
    } else {
      error_at(path_of(key) + "[" + std::to_string(i) + "]", std::string("expected string, got ") + item.type_name());
    }
    ++i;
  }
  return out;
}

std::map<std::string, std::string> Reader::string_map(std::string_view key) const {
  std::map<std::string, std::string> out;
  const Value* obj = typed(key, Value::Type::object);
  if (!obj) return out;
  for (const auto& [k, v] : obj->as_object()) {
    if (v.is_string()) {
      out[k] = v.as_string();
    } else if (!v.is_null()) {
      error_at(path_of(key) + "." + k, std::string("expected string, got ") + v.type_name());
    }
  }
  return out;
}

std::optional<Value> Reader::raw(std::string_view key) const {
  if (!node_) return std::nullopt;
  const Value* v = lookup(key);
  if (!v || v->is_null()) return std::nullopt;
  return *v;
}

std::optional<Value> Reader::raw_object(std::string_view key) const {
  if (const Value* v = typed(key, Value::Type::object)) return *v;
  return std::nullopt;
}

std::optional<Value> Reader::raw_array(std::string_view key) const {
  if (const Value* v = typed(key, Value::Type::array)) return *v;
  return std::nullopt;
}

std::map<std::string, std::vector<std::string>> decode_params(const Reader& r) {
  std::map<std::string, std::vector<std::string>> out;
  Reader p = r.object("params");
  if (!p.present()) return out;
  for (const auto& [k, v] : p.node()->as_object()) out[k] = p.strings(k);
  return out;
}

}  // namespace model
