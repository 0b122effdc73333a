#include "model/agent.hpp"
#include "model/codec.hpp"

namespace model {

Secret decode_secret(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  Secret s;
  s.meta = decode_meta(root);
  for (const auto& [k, v] : root.string_map("data")) {
    if (auto bytes = base64_decode(v))
      s.data[k] = std::move(*bytes);
    else
      root.error_at("data." + k, "is not valid base64");
  }
  // stringData is write-only on the API server and wins over data.
  for (auto& [k, v] : root.string_map("stringData")) s.data[k] = v;
  return s;
}

ConfigMap decode_config_map(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  ConfigMap c;
  c.meta = decode_meta(root);
  // data is read before binaryData, as upstream does, so data wins.
  for (const auto& [k, v] : root.string_map("binaryData")) {
    if (auto bytes = base64_decode(v))
      c.data[k] = std::move(*bytes);
    else
      root.error_at("binaryData." + k, "is not valid base64");
  }
  for (auto& [k, v] : root.string_map("data")) c.data[k] = v;
  return c;
}

Namespace decode_namespace(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  return Namespace{decode_meta(root)};
}

}  // namespace model
