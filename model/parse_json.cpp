#include <simdjson.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "model/parse.hpp"

namespace model {
namespace {

class JsonBuilder {
 public:
  JsonBuilder(const ParseLimits& limits, std::string_view source) : limits_(limits), source_(source) {}

  Value build(simdjson::dom::element el, std::size_t depth) {
    if (depth > limits_.max_depth)
      throw ParseError(std::string(source_), 0, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    if (++nodes_ > limits_.max_nodes) throw ParseError(std::string(source_), 0, "too many nodes");
    using T = simdjson::dom::element_type;
    switch (el.type()) {
      case T::OBJECT: {
        Value::Object o;
        simdjson::dom::object obj;
        if (el.get(obj)) return Value();
        o.reserve(obj.size());
        for (auto field : obj) o.emplace_back(std::string_view(field.key), build(field.value, depth + 1));
        check_unique_keys(o);
        return Value(std::move(o));
      }
      case T::ARRAY: {
        Value::Array a;
        simdjson::dom::array arr;
        if (el.get(arr)) return Value();
        a.reserve(arr.size());
        for (auto item : arr) a.push_back(build(item, depth + 1));
        return Value(std::move(a));
      }
      case T::STRING: {
        std::string_view s;
        return el.get(s) ? Value() : Value(std::string(s));
      }
      case T::INT64: {
        std::int64_t i = 0;
        return el.get(i) ? Value() : Value(i);
      }
      case T::UINT64: {
        std::uint64_t u = 0;
        return el.get(u) ? Value() : Value(static_cast<double>(u));
      }
      case T::DOUBLE: {
        double d = 0;
        return el.get(d) ? Value() : Value(d);
      }
      case T::BOOL: {
        bool b = false;
        return el.get(b) ? Value() : Value(b);
      }
      case T::NULL_VALUE:
        return Value();
    }
    return Value();
  }

 private:
  // The API server would keep the last duplicate and our lookups the first;
  // refuse rather than guess, as the YAML path does.
  void check_unique_keys(const Value::Object& o) const {
    if (const MemberKey* key = duplicate_key(o)) duplicate(key->str());
  }
  [[noreturn]] void duplicate(std::string_view key) const {
    throw ParseError(std::string(source_), 0, "duplicate key \"" + std::string(key) + "\"");
  }

  const ParseLimits& limits_;
  std::string_view source_;
  std::size_t nodes_ = 0;
};

// A parser per thread that keeps its buffers between documents. A fresh
// one per call allocated several times the input's size (the padded copy,
// structural indexes, tape, strings), and above the mmap threshold each of
// those was mapped, faulted in page by page, zeroed by the kernel and
// unmapped again, which cost more than simdjson's own parsing of a list
// page of 500 objects.
// A parser keeps about four times its largest document resident, so
// documents above kReusedMax (list pages are about 1 MB) get a parser of
// their own rather than pinning that much in every thread that parsed one.
class ReusedParser {
 public:
  static constexpr std::size_t kReusedMax = std::size_t{4} << 20;

  simdjson::error_code parse(std::string_view text, simdjson::dom::element& root) {
    const std::size_t need = text.size() + simdjson::SIMDJSON_PADDING;
    if (need > capacity_) {
      padded_ = std::make_unique<char[]>(need);
      capacity_ = need;
    }
    std::memcpy(padded_.get(), text.data(), text.size());
    std::memset(padded_.get() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    return parser_.parse(padded_.get(), text.size(), false).get(root);
  }

 private:
  simdjson::dom::parser parser_;
  std::unique_ptr<char[]> padded_;
  std::size_t capacity_ = 0;
};

}  // namespace

Value parse_json(std::string_view text, std::string_view source, const ParseLimits& limits) {
  if (text.size() > limits.max_bytes) throw ParseError(std::string(source), 0, "input larger than the size limit");
  auto invalid = [&](simdjson::error_code err) {
    return ParseError(std::string(source), 0, std::string("invalid JSON: ") + simdjson::error_message(err));
  };
  simdjson::dom::element root;
  if (text.size() <= ReusedParser::kReusedMax) {
    thread_local ReusedParser reused;
    if (auto err = reused.parse(text, root)) throw invalid(err);
    return JsonBuilder(limits, source).build(root, 0);
  }
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text.data(), text.size());
  if (auto err = parser.parse(padded).get(root)) throw invalid(err);
  return JsonBuilder(limits, source).build(root, 0);
}

}  // namespace model
