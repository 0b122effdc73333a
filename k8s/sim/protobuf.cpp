#include "k8s/sim/protobuf.hpp"

#include <cstdint>
#include <vector>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/clock.hpp"
#include "model/codec.hpp"

namespace k8s::sim {

using model::Value;

namespace {

enum class Kind { string, bytes, int64, boolean, message, string_map, bytes_map, time };

struct Message;

struct Field {
  int number;
  const char* json;
  Kind kind;
  bool repeated = false;
  const Message* message = nullptr;
};

struct Message {
  std::vector<Field> fields;
};

// Field numbers from k8s.io/api and apimachinery generated.proto.
const Message kOwnerReference{{{1, "kind", Kind::string},
                               {3, "name", Kind::string},
                               {4, "uid", Kind::string},
                               {5, "apiVersion", Kind::string},
                               {6, "controller", Kind::boolean},
                               {7, "blockOwnerDeletion", Kind::boolean}}};
const Message kObjectMeta{{{1, "name", Kind::string},
                           {2, "generateName", Kind::string},
                           {3, "namespace", Kind::string},
                           {5, "uid", Kind::string},
                           {6, "resourceVersion", Kind::string},
                           {7, "generation", Kind::int64},
                           {8, "creationTimestamp", Kind::time},
                           {9, "deletionTimestamp", Kind::time},
                           {10, "deletionGracePeriodSeconds", Kind::int64},
                           {11, "labels", Kind::string_map},
                           {12, "annotations", Kind::string_map},
                           {13, "ownerReferences", Kind::message, true, &kOwnerReference},
                           {14, "finalizers", Kind::string, true}}};
const Message kNamespaceSpec{{{1, "finalizers", Kind::string, true}}};
const Message kNamespace{
    {{1, "metadata", Kind::message, false, &kObjectMeta}, {2, "spec", Kind::message, false, &kNamespaceSpec}}};
const Message kSecret{{{1, "metadata", Kind::message, false, &kObjectMeta},
                       {2, "data", Kind::bytes_map},
                       {3, "type", Kind::string},
                       {4, "stringData", Kind::string_map},
                       {5, "immutable", Kind::boolean}}};
const Message kConfigMap{{{1, "metadata", Kind::message, false, &kObjectMeta},
                          {2, "data", Kind::string_map},
                          {3, "binaryData", Kind::bytes_map},
                          {4, "immutable", Kind::boolean}}};
const Message kObjectReference{{{1, "kind", Kind::string},
                                {2, "namespace", Kind::string},
                                {3, "name", Kind::string},
                                {4, "uid", Kind::string},
                                {5, "apiVersion", Kind::string},
                                {6, "resourceVersion", Kind::string},
                                {7, "fieldPath", Kind::string}}};
const Message kLocalObjectReference{{{1, "name", Kind::string}}};
const Message kServiceAccount{{{1, "metadata", Kind::message, false, &kObjectMeta},
                               {2, "secrets", Kind::message, true, &kObjectReference},
                               {3, "imagePullSecrets", Kind::message, true, &kLocalObjectReference},
                               {4, "automountServiceAccountToken", Kind::boolean}}};

const Message kBoundObjectReference{
    {{1, "kind", Kind::string}, {2, "apiVersion", Kind::string}, {3, "name", Kind::string}, {4, "uid", Kind::string}}};
const Message kTokenRequestSpec{{{1, "audiences", Kind::string, true},
                                 {3, "boundObjectRef", Kind::message, false, &kBoundObjectReference},
                                 {4, "expirationSeconds", Kind::int64}}};
const Message kTokenRequest{
    {{1, "metadata", Kind::message, false, &kObjectMeta}, {2, "spec", Kind::message, false, &kTokenRequestSpec}}};

const char* kSupported = "Namespace, Secret, ConfigMap, ServiceAccount and authentication.k8s.io/v1 TokenRequest";

[[noreturn]] void malformed() {
  throw ApiError::bad_request("the protobuf body could not be decoded");
}

// A reader over protobuf wire format (varints and length-delimited fields).
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  std::uint64_t varint() {
    std::uint64_t out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) malformed();
      auto byte = static_cast<unsigned char>(data_[pos_++]);
      out |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return out;
    }
    malformed();
  }
  std::string_view bytes() {
    std::uint64_t len = varint();
    if (len > data_.size() - pos_) malformed();
    auto out = data_.substr(pos_, len);
    pos_ += len;
    return out;
  }
  // Skips a field of an unknown number (wire types 0, 1, 2 and 5).
  void skip(int wire) {
    if (wire == 0)
      varint();
    else if (wire == 2)
      bytes();
    else if (wire == 1 || wire == 5)
      advance(wire == 1 ? 8 : 4);
    else
      malformed();
  }

 private:
  void advance(std::size_t n) {
    if (n > data_.size() - pos_) malformed();
    pos_ += n;
  }
  std::string_view data_;
  std::size_t pos_ = 0;
};

Value decode(std::string_view data, const Message& m);

std::pair<std::string, std::string> map_entry(std::string_view data) {
  Reader r(data);
  std::pair<std::string, std::string> out;
  while (!r.done()) {
    auto tag = r.varint();
    if ((tag & 7) != 2) malformed();
    if ((tag >> 3) == 1)
      out.first = r.bytes();
    else if ((tag >> 3) == 2)
      out.second = r.bytes();
    else
      malformed();
  }
  return out;
}

std::string time_text(std::string_view data) {
  Reader r(data);
  std::int64_t seconds = 0;
  while (!r.done()) {
    auto tag = r.varint();
    if ((tag >> 3) == 1 && (tag & 7) == 0)
      seconds = static_cast<std::int64_t>(r.varint());
    else
      r.skip(static_cast<int>(tag & 7));
  }
  return rfc3339(Clock::time_point(std::chrono::seconds(seconds)));
}

// The JSON value of one occurrence of `f`; null when Go would omit it.
Value field_value(Reader& r, int wire, const Field& f) {
  switch (f.kind) {
    case Kind::int64: {
      if (wire != 0) malformed();
      auto v = static_cast<std::int64_t>(r.varint());
      return v == 0 ? Value() : Value(v);
    }
    case Kind::boolean:
      if (wire != 0) malformed();
      return Value(r.varint() != 0);
    default:
      break;
  }
  if (wire != 2) malformed();
  std::string_view data = r.bytes();
  if (f.kind == Kind::string) return data.empty() && !f.repeated ? Value() : Value(std::string(data));
  if (f.kind == Kind::bytes) return Value(model::base64_encode(data));
  if (f.kind == Kind::time) return data.empty() ? Value() : Value(time_text(data));
  if (f.kind == Kind::message) {
    Value v = decode(data, *f.message);
    return v.as_object().empty() && !f.repeated ? Value() : v;
  }
  auto [key, value] = map_entry(data);
  return Value::obj({{key, f.kind == Kind::bytes_map ? model::base64_encode(value) : value}});
}

Value decode(std::string_view data, const Message& m) {
  Reader r(data);
  Value out = Value::object();
  while (!r.done()) {
    auto tag = r.varint();
    int number = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    const Field* f = nullptr;
    for (const Field& candidate : m.fields)
      if (candidate.number == number) f = &candidate;
    if (!f) {
      r.skip(wire);
      continue;
    }
    Value v = field_value(r, wire, *f);
    if (v.is_null()) continue;
    if (f->kind == Kind::string_map || f->kind == Kind::bytes_map) {
      Value* map = out.find(f->json);
      if (!map) map = &out.set(f->json, Value::object());
      for (auto& [k, item] : v.as_object()) map->set(k, item);
    } else if (f->repeated) {
      Value* list = out.find(f->json);
      if (!list) list = &out.set(f->json, Value::array());
      list->push(std::move(v));
    } else {
      out.set(f->json, std::move(v));
    }
  }
  return out;
}

const Message* message_for(const std::string& api_version, const std::string& kind) {
  if (api_version == "authentication.k8s.io/v1" && kind == "TokenRequest") return &kTokenRequest;
  if (api_version != "v1") return nullptr;
  if (kind == "Namespace") return &kNamespace;
  if (kind == "Secret") return &kSecret;
  if (kind == "ConfigMap") return &kConfigMap;
  if (kind == "ServiceAccount") return &kServiceAccount;
  return nullptr;
}

}  // namespace

Value decode_protobuf_object(std::string_view body) {
  if (body.size() < 4 || body.substr(0, 4) != std::string_view("k8s\0", 4)) malformed();
  Reader envelope(body.substr(4));
  std::string api_version, kind;
  std::string_view raw;
  while (!envelope.done()) {
    auto tag = envelope.varint();
    int number = static_cast<int>(tag >> 3), wire = static_cast<int>(tag & 7);
    if (number == 1 && wire == 2) {
      Value type_meta = decode(envelope.bytes(), Message{{{1, "apiVersion", Kind::string}, {2, "kind", Kind::string}}});
      if (const Value* v = type_meta.find("apiVersion")) api_version = v->as_string();
      if (const Value* v = type_meta.find("kind")) kind = v->as_string();
    } else if (number == 2 && wire == 2) {
      raw = envelope.bytes();
    } else {
      envelope.skip(wire);
    }
  }
  const Message* m = message_for(api_version, kind);
  if (!m)
    throw ApiError::unsupported_media_type(
        std::string("application/json, application/yaml (simcluster decodes protobuf "
                    "bodies only for v1 ") +
        kSupported + "; got " + (api_version.empty() ? "" : api_version + " ") +
        (kind.empty() ? "an unknown kind" : kind) + ")");
  Value object = decode(raw, *m);
  Value out = Value::obj({{"apiVersion", api_version}, {"kind", kind}});
  for (auto& [k, v] : object.as_object()) out.set(k, std::move(v));
  return out;
}

}  // namespace k8s::sim
