// Value constraints of OpenAPI schemas, with the API server's messages.
#include <re2/re2.h>

#include <map>
#include <memory>
#include <mutex>

#include "k8s/sim/validate.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const Value* number(const Value& s, const char* key) {
  const Value* v = s.find(key);
  return v && v->is_number() ? v : nullptr;
}

bool flag(const Value& s, const char* key) {
  const Value* v = s.find(key);
  return v && v->is_bool() && v->as_bool();
}

std::string num_text(const Value& v) {
  return model::to_json(v);
}

// Compiled patterns are shared: CRD schemas repeat the same few.
bool matches_pattern(const std::string& pattern, const std::string& text) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<RE2>> cache;
  std::shared_ptr<RE2> re;
  {
    std::lock_guard lock(mutex);
    auto& slot = cache[pattern];
    if (!slot) slot = std::make_shared<RE2>(pattern, RE2::Quiet);
    re = slot;
  }
  return !re->ok() || RE2::PartialMatch(text, *re);
}

void check_number(const Value& s, const Value& v, const std::string& path, std::vector<Cause>& out) {
  double x = v.as_double();
  std::string prefix = "Invalid value: " + num_text(v) + ": " + path + " in body should be ";
  if (const Value* min = number(s, "minimum")) {
    bool exclusive = flag(s, "exclusiveMinimum");
    if (exclusive ? x <= min->as_double() : x < min->as_double())
      out.push_back({"FieldValueInvalid", path,
                     prefix + (exclusive ? "greater than " : "greater than or equal to ") + num_text(*min)});
  }
  if (const Value* max = number(s, "maximum")) {
    bool exclusive = flag(s, "exclusiveMaximum");
    if (exclusive ? x >= max->as_double() : x > max->as_double())
      out.push_back(
          {"FieldValueInvalid", path, prefix + (exclusive ? "less than " : "less than or equal to ") + num_text(*max)});
  }
}

void check_string(const Value& s, const std::string& text, const std::string& path, std::vector<Cause>& out) {
  std::string quoted = model::to_json(Value(text));
  if (const Value* p = s.find("pattern"); p && p->is_string() && !matches_pattern(p->as_string(), text))
    out.push_back({"FieldValueInvalid", path,
                   "Invalid value: " + quoted + ": " + path + " in body should match '" + p->as_string() + "'"});
  if (const Value* n = number(s, "maxLength"); n && static_cast<double>(text.size()) > n->as_double())
    out.push_back({"FieldValueTooLong", path, "Too long: may not be more than " + num_text(*n) + " bytes"});
  if (const Value* n = number(s, "minLength"); n && static_cast<double>(text.size()) < n->as_double())
    out.push_back(
        {"FieldValueInvalid", path,
         "Invalid value: " + quoted + ": " + path + " in body should be at least " + num_text(*n) + " chars long"});
}

void check_size(const Value& s, const Value& v, const char* min_key, const char* max_key, const char* what,
                const std::string& path, std::vector<Cause>& out) {
  double n = static_cast<double>(v.size());
  if (const Value* min = number(s, min_key); min && n < min->as_double())
    out.push_back({"FieldValueInvalid", path,
                   "Invalid value: " + std::to_string(v.size()) + ": " + path + " in body should have at least " +
                       num_text(*min) + " " + what});
  if (const Value* max = number(s, max_key); max && n > max->as_double())
    out.push_back({"FieldValueTooMany", path,
                   "Too many: " + std::to_string(v.size()) + ": must have at most " + num_text(*max) + " " + what});
}

}  // namespace

void check_constraints(const Value& s, const Value& v, const std::string& path, std::vector<Cause>& out) {
  if (v.is_number()) check_number(s, v, path, out);
  if (v.is_string()) check_string(s, v.as_string(), path, out);
  if (v.is_array()) check_size(s, v, "minItems", "maxItems", "items", path, out);
  if (v.is_object()) check_size(s, v, "minProperties", "maxProperties", "properties", path, out);
}

}  // namespace k8s::sim
