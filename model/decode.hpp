// Typed reading of Value trees with field paths. A Reader wraps one object
// node; each accessor checks the JSON type and records a FieldError naming
// the full path (e.g. "spec.endpoints[0].port") when it is wrong.
// Contract: a wrong type never throws; the accessor returns "absent" and the
// error is appended to the shared list. Unknown fields are ignored, so which
// fields a decoder reads is observable only through FieldLookupLog.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/value.hpp"

namespace model {

struct FieldError {
  std::string path;
  std::string message;
};
using FieldErrors = std::vector<FieldError>;

// A Kubernetes int-or-string (e.g. a targetPort).
struct IntOrString {
  bool is_int = false;
  std::int64_t int_value = 0;
  std::string str_value;
  std::string to_string() const { return is_int ? std::to_string(int_value) : str_value; }
  Value to_value() const { return is_int ? Value(int_value) : Value(str_value); }
};

// While one is alive, every field path a Reader on this thread looks up
// (present or not, e.g. "spec.endpoints[0].tlsConfig.minVersion") is added
// to it: tests derive from it which CRD fields a decoder reads. Nests; the
// innermost log records.
class FieldLookupLog {
 public:
  FieldLookupLog();
  ~FieldLookupLog();
  FieldLookupLog(const FieldLookupLog&) = delete;
  FieldLookupLog& operator=(const FieldLookupLog&) = delete;

  const std::set<std::string>& paths() const { return paths_; }
  bool contains(const std::string& path) const { return paths_.count(path) != 0; }
  static void note(const std::string& path);

 private:
  std::set<std::string> paths_;
  FieldLookupLog* previous_;
};

class Reader {
 public:
  Reader(const Value* node, std::string path, FieldErrors* errors);

  bool present() const { return node_ != nullptr; }
  const Value* node() const { return node_; }
  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;

  // A nested object; absent (and possibly an error) when missing or not an object.
  Reader object(std::string_view key) const;
  std::optional<std::string> str(std::string_view key) const;
  std::string str_or(std::string_view key, std::string fallback = {}) const;
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  bool flag(std::string_view key) const { return boolean(key).value_or(false); }
  std::optional<double> number(std::string_view key) const;
  std::optional<IntOrString> int_or_string(std::string_view key) const;
  std::vector<std::string> strings(std::string_view key) const;
  std::map<std::string, std::string> string_map(std::string_view key) const;
  // Raw pass-through nodes; `expected` checks only the top-level type.
  std::optional<Value> raw(std::string_view key) const;
  std::optional<Value> raw_object(std::string_view key) const;
  std::optional<Value> raw_array(std::string_view key) const;

  // Calls f(Reader item, index) for every element of an array of objects.
  template <class F>
  void each(std::string_view key, F&& f) const {
    const Value* arr = typed(key, Value::Type::array);
    if (!arr) return;
    std::size_t i = 0;
    for (const auto& item : arr->as_array()) {
      std::string p = path_of(key) + "[" + std::to_string(i) + "]";
      if (!item.is_object()) {
        if (!item.is_null()) error_at(p, std::string("expected object, got ") + item.type_name());
      } else {
        f(Reader(&item, p, errors_), i);
      }
      ++i;
    }
  }

  void error(std::string_view key, std::string message) const;
  void error_at(std::string path, std::string message) const;
  FieldErrors* errors() const { return errors_; }

 private:
  const Value* typed(std::string_view key, Value::Type t) const;
  // node_->find(key), recorded in the active FieldLookupLog.
  const Value* lookup(std::string_view key) const;

  const Value* node_;
  std::string path_;
  FieldErrors* errors_;
};

// `params` of a scrape endpoint or ScrapeConfig: name -> values.
std::map<std::string, std::vector<std::string>> decode_params(const Reader& r);

}  // namespace model
