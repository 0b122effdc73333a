// Scrape classes: decoding and validation of the list, and lookup.
#include "model/scrape_class.hpp"

#include <algorithm>
#include <iterator>

namespace model {
namespace {

constexpr const char* kProtocols[] = {"PrometheusProto", "OpenMetricsText0.0.1", "OpenMetricsText1.0.0",
                                      "PrometheusText0.0.4", "PrometheusText1.0.0"};

// A class belongs to no namespace, so it can only name files: references
// to Secrets or ConfigMaps could not be resolved for every monitor.
constexpr const char* kNoRefs =
    "not supported in a scrape class (it has no namespace to read Secrets or ConfigMaps "
    "from); use the *File fields";

void check_tls(const Reader& r, const TLSConfig& t) {
  Reader tls = r.object("tlsConfig");
  if (!t.ca.empty()) tls.error("ca", kNoRefs);
  if (!t.cert.empty()) tls.error("cert", kNoRefs);
  if (t.key_secret) tls.error("keySecret", kNoRefs);
  // prometheus-operator's TLSConfig validation: a client certificate needs
  // its key and the other way round.
  if (!t.cert_file.empty() && t.key_file.empty()) tls.error("certFile", "client cert requires keyFile");
  if (t.cert_file.empty() && !t.key_file.empty()) tls.error("keyFile", "client key requires certFile");
}

ScrapeClass decode_class(const Reader& r) {
  ScrapeClass c;
  const Value* name = r.node()->find("name");
  c.name = r.str_or("name");
  if (!name || name->is_null() || (name->is_string() && c.name.empty())) r.error("name", "is required");
  c.is_default = r.flag("default");
  c.tls_config = decode_tls(r, "tlsConfig", true);
  if (c.tls_config) check_tls(r, *c.tls_config);
  c.authorization = decode_authorization(r, "authorization");
  if (c.authorization && c.authorization->credentials) r.object("authorization").error("credentials", kNoRefs);
  c.relabelings = decode_relabelings(r, "relabelings");
  c.metric_relabelings = decode_relabelings(r, "metricRelabelings");
  if (Reader am = r.object("attachMetadata"); am.present()) c.attach_metadata_node = am.flag("node");
  c.fallback_scrape_protocol = r.str_or("fallbackScrapeProtocol");
  if (!c.fallback_scrape_protocol.empty() && !is_scrape_protocol(c.fallback_scrape_protocol))
    r.error("fallbackScrapeProtocol", "unknown scrape protocol \"" + c.fallback_scrape_protocol + "\"");
  return c;
}

}  // namespace

bool is_scrape_protocol(const std::string& s) {
  return std::find(std::begin(kProtocols), std::end(kProtocols), s) != std::end(kProtocols);
}

const ScrapeClass* ScrapeClasses::find(const std::string& name) const {
  for (const auto& c : classes)
    if (c.name == name) return &c;
  return nullptr;
}

const ScrapeClass* ScrapeClasses::default_class() const {
  for (const auto& c : classes)
    if (c.is_default) return &c;
  return nullptr;
}

ScrapeClasses decode_scrape_classes(const Value* list, const std::string& path, FieldErrors& errors) {
  ScrapeClasses out;
  if (!list || list->is_null()) return out;
  if (!list->is_array()) {
    errors.push_back({path, std::string("expected a list of scrape classes, got ") + list->type_name()});
    return out;
  }
  for (std::size_t i = 0; i < list->as_array().size(); ++i) {
    const Value& item = list->as_array()[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      errors.push_back({at, std::string("expected object, got ") + item.type_name()});
      continue;
    }
    Reader r(&item, at, &errors);
    ScrapeClass c = decode_class(r);
    const std::size_t index = out.classes.size();
    for (std::size_t j = 0; j < index; ++j) {
      if (!c.name.empty() && out.classes[j].name == c.name)
        r.error("name", "duplicate scrape class name \"" + c.name + "\"");
      if (c.is_default && out.classes[j].is_default)
        r.error("default", "only one scrape class may be the default (\"" + out.classes[j].name + "\" is too)");
    }
    out.classes.push_back(std::move(c));
  }
  return out;
}

}  // namespace model
