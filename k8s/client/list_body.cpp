#include "k8s/client/list_body.hpp"

#include <simdjson.h>

namespace k8s {
namespace {

namespace od = simdjson::ondemand;
// Values are taken as results and every access checks its error code: the
// implicit conversion of a result to od::value (or of type() to json_type)
// throws simdjson_error on malformed JSON, which escaped the transport's
// callback and terminated the process (found by tests/fuzz/watch_fuzz.cpp).
using ValueResult = simdjson::simdjson_result<od::value>;

std::string string_field(ValueResult v) {
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s);
}

bool scan_metadata(ValueResult v, ListPage& page) {
  od::object meta;
  if (v.get_object().get(meta) != simdjson::SUCCESS) return false;
  for (auto field : meta) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    if (key == "resourceVersion")
      page.resource_version = string_field(field.value());
    else if (key == "continue")
      page.continue_token = string_field(field.value());
  }
  return true;
}

bool scan_items(ValueResult v, ListPage& page) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == od::json_type::null) return true;  // "items": null is an empty list
  od::array items;
  std::string_view raw;
  if (v.get_array().get(items) != simdjson::SUCCESS || items.raw_json().get(raw) != simdjson::SUCCESS) return false;
  std::size_t open = raw.find('['), close = raw.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  raw = raw.substr(open + 1, close - open - 1);
  if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos) raw = {};
  page.items = raw;
  return true;
}

}  // namespace

bool scan_list(std::string& body, ListPage& page) {
  page = ListPage{};
  body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
  thread_local od::parser parser;
  od::document doc;
  if (parser.iterate(simdjson::padded_string_view(body.data(), body.size(), body.capacity())).get(doc) !=
      simdjson::SUCCESS)
    return false;
  od::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return false;
  for (auto field : root) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    bool ok = true;
    if (key == "metadata")
      ok = scan_metadata(field.value(), page);
    else if (key == "items")
      ok = scan_items(field.value(), page);
    else if (key == "kind")
      page.kind = string_field(field.value());
    else if (key == "apiVersion")
      page.api_version = string_field(field.value());
    if (!ok) return false;
  }
  return true;
}

std::string query_escape(std::string_view value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

}  // namespace k8s
