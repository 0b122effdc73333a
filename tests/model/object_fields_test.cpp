#include <catch2/catch.hpp>

#include <array>

#include "model/object_fields.hpp"
#include "model/parse.hpp"

using model::Value;

namespace {

Value object_with_server_metadata() {
  return model::parse_json(
      R"({"metadata": {"name": "web", "namespace": "mon", "uid": "u-1", "resourceVersion": "7",
          "generation": 2, "creationTimestamp": "t0", "deletionTimestamp": "t1",
          "deletionGracePeriodSeconds": 30, "managedFields": [], "selfLink": "/x",
          "labels": {"app": "web", "n": 1}},
          "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}})",
      "fixture");
}

}  // namespace

TEST_CASE("find_path reads the same member by a span or a braced list", "[model][object_fields]") {
  Value v = object_with_server_metadata();
  static constexpr std::array<std::string_view, 4> kPath = {"spec", "template", "metadata", "labels"};
  const Value* by_span = model::find_path(v, kPath);
  REQUIRE(by_span);
  CHECK(by_span == model::find_path(v, {"spec", "template", "metadata", "labels"}));
  CHECK(model::find_path(v, std::span(kPath).first(2)) == v.find("spec")->find("template"));
  CHECK(model::find_path(v, {"spec", "absent", "labels"}) == nullptr);
  CHECK(model::find_path(v, std::span<const std::string_view>()) == &v);
  CHECK(model::label_string(model::find_path(v, {"metadata", "labels"}), "app")->compare("web") == 0);
  CHECK(model::label_string(model::find_path(v, {"metadata", "labels"}), "n") == nullptr);
}

TEST_CASE("strip_server_metadata erases exactly the fields the API server sets", "[model][object_fields]") {
  Value v = object_with_server_metadata();
  Value& meta = *v.find("metadata");
  for (std::string_view k : model::kServerSetMetadata) {
    CHECK(model::is_server_set_metadata(k));
    CHECK(meta.find(k));
  }
  CHECK_FALSE(model::is_server_set_metadata("name"));
  CHECK_FALSE(model::is_server_set_metadata("labels"));
  CHECK(model::strip_server_metadata(meta));
  for (std::string_view k : model::kServerSetMetadata) CHECK_FALSE(meta.find(k));
  CHECK(meta == model::parse_json(R"({"name": "web", "namespace": "mon", "labels": {"app": "web", "n": 1}})", "want"));
  CHECK_FALSE(model::strip_server_metadata(meta));  // nothing left to erase
}
