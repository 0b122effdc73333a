// Decoding of the two integration kinds: Integration (design 1: a typed
// config object, type {allNodes, unique}) and MetricsIntegration (design 2:
// a YAML string config, type daemonset|singleton|normal, target labels).
// Both carry the same pod fields (volumes, volumeMounts, secrets,
// configMaps), decoded by one helper.
#include "model/agent.hpp"
#include "model/parse.hpp"

namespace model {
namespace {

template <class T>
void decode_pod_fields(const Reader& spec, T& out) {
  out.volumes = spec.raw_array("volumes");
  out.volume_mounts = spec.raw_array("volumeMounts");
  spec.each("secrets", [&](const Reader& r, std::size_t) {
    out.secrets.push_back(SecretKeySelector{r.str_or("name"), r.str_or("key"), r.flag("optional")});
    if (out.secrets.back().name.empty()) r.error("name", "must not be empty");
    if (out.secrets.back().key.empty()) r.error("key", "must not be empty");
  });
  spec.each("configMaps", [&](const Reader& r, std::size_t) {
    out.config_maps.push_back(ConfigMapKeySelector{r.str_or("name"), r.str_or("key"), r.flag("optional")});
    if (out.config_maps.back().name.empty()) r.error("name", "must not be empty");
    if (out.config_maps.back().key.empty()) r.error("key", "must not be empty");
  });
  spec.each("volumes", [](const Reader& r, std::size_t) {
    if (r.str_or("name").empty()) r.error("name", "is required");
  });
  spec.each("volumeMounts", [](const Reader& r, std::size_t) {
    if (r.str_or("name").empty()) r.error("name", "is required");
  });
}

std::optional<IntegrationType> parse_type(const std::string& s) {
  if (s == "daemonset") return IntegrationType::daemonset;
  if (s == "singleton") return IntegrationType::singleton;
  if (s == "normal") return IntegrationType::normal;
  return std::nullopt;
}

// spec.config: a YAML mapping as text. A broken text stays a value of the
// object (config_error) rather than a decode error, so the object still
// routes and every GrafanaAgent selecting it can say why it is left out.
void parse_config(const std::string& text, MetricsIntegration& out) {
  std::vector<Document> docs;
  try {
    docs = parse_documents(text, "spec.config");
  } catch (const ParseError& e) {
    std::string where = e.line() > 0 ? " (line " + std::to_string(e.line()) + ")" : "";
    out.config_error = "not valid YAML" + where + ": " + e.problem();
    return;
  }
  if (docs.size() > 1) {
    out.config_error = "must be one YAML document, got " + std::to_string(docs.size());
  } else if (!docs.empty() && !docs[0].value.is_null() && !docs[0].value.is_object()) {
    out.config_error = std::string("must be a YAML mapping, got ") + docs[0].value.type_name();
  } else if (!docs.empty() && docs[0].value.is_object()) {
    out.config = std::move(docs[0].value);
  }
}

}  // namespace

const char* to_string(IntegrationType t) {
  switch (t) {
    case IntegrationType::daemonset:
      return "daemonset";
    case IntegrationType::singleton:
      return "singleton";
    case IntegrationType::normal:
      break;
  }
  return "normal";
}

Integration decode_integration(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  Integration in;
  in.meta = decode_meta(root);
  Reader spec = root.object("spec");
  in.name = spec.str_or("name");
  if (in.name.empty()) spec.error("name", "is required");
  Reader type = spec.object("type");
  in.all_nodes = type.flag("allNodes");
  in.unique = type.flag("unique");
  if (auto cfg = spec.raw_object("config"))
    in.config = std::move(*cfg);
  else
    spec.error("config", "is required");
  decode_pod_fields(spec, in);
  return in;
}

MetricsIntegration decode_metrics_integration(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  MetricsIntegration mi;
  mi.meta = decode_meta(root);
  Reader spec = root.object("spec");
  mi.name = spec.str_or("name");
  if (mi.name.empty()) spec.error("name", "is required");
  // The name becomes the "<name>_configs" key of agent.yml and a label value.
  check_label_name(spec, "name", mi.name, true);
  if (auto t = spec.str("type"); t && !t->empty()) {
    if (auto parsed = parse_type(*t))
      mi.type = *parsed;
    else
      spec.error("type", "must be one of daemonset, singleton, normal, got \"" + *t + "\"");
  }
  if (auto cfg = spec.str("config")) parse_config(*cfg, mi);
  mi.labels = spec.string_map("labels");
  check_label_name_keys(spec, "labels", mi.labels);
  decode_pod_fields(spec, mi);
  return mi;
}

}  // namespace model
