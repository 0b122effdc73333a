#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "model/meta.hpp"

namespace model {

std::optional<SecretKeySelector> decode_key_ref(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  SecretKeySelector s{r.str_or("name"), r.str_or("key"), r.flag("optional")};
  if (s.name.empty()) r.error("name", "must not be empty");
  if (s.key.empty()) r.error("key", "must not be empty");
  return s;
}

SecretOrConfigMap decode_secret_or_configmap(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  SecretOrConfigMap out;
  out.secret = decode_key_ref(r, "secret");
  if (auto cm = decode_key_ref(r, "configMap")) out.config_map = ConfigMapKeySelector{cm->name, cm->key, cm->optional};
  if (out.secret && out.config_map) r.error("configMap", "secret and configMap are mutually exclusive");
  return out;
}

std::optional<TLSConfig> decode_tls(const Reader& parent, std::string_view key, bool allow_files) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  TLSConfig t;
  t.ca = decode_secret_or_configmap(r, "ca");
  t.cert = decode_secret_or_configmap(r, "cert");
  t.key_secret = decode_key_ref(r, "keySecret");
  t.server_name = r.str_or("serverName");
  t.insecure_skip_verify = r.boolean("insecureSkipVerify");
  if (allow_files) {
    t.ca_file = r.str_or("caFile");
    t.cert_file = r.str_or("certFile");
    t.key_file = r.str_or("keyFile");
  }
  return t;
}

std::optional<BasicAuth> decode_basic_auth(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  return BasicAuth{decode_key_ref(r, "username"), decode_key_ref(r, "password")};
}

std::optional<OAuth2> decode_oauth2(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  OAuth2 o;
  o.client_id = decode_secret_or_configmap(r, "clientId");
  o.client_secret = decode_key_ref(r, "clientSecret");
  o.token_url = r.str_or("tokenUrl");
  o.scopes = r.strings("scopes");
  o.endpoint_params = r.string_map("endpointParams");
  if (o.client_id.empty()) r.error("clientId", "is required");
  if (!o.client_secret) r.error("clientSecret", "is required");
  if (o.token_url.empty()) r.error("tokenUrl", "is required");
  return o;
}

std::optional<Authorization> decode_authorization(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  Authorization a;
  a.type = r.str_or("type");
  a.credentials = decode_key_ref(r, "credentials");
  a.credentials_file = r.str_or("credentialsFile");
  std::string lower = a.type;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "basic") r.error("type", "\"Basic\" is not allowed; use basicAuth instead");
  return a;
}

namespace {

const char* const kActions[] = {"replace",   "keep",      "drop",      "hashmod",   "labelmap", "labeldrop",
                                "labelkeep", "keepequal", "dropequal", "lowercase", "uppercase"};

// Compiling a regex costs microseconds and clusters reuse the same few
// hundred patterns across thousands of monitors, so results are memoised.
const std::string& regex_error(const std::string& regex) {
  thread_local std::unordered_map<std::string, std::string> cache;
  if (auto it = cache.find(regex); it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  RE2::Options opts;
  opts.set_log_errors(false);
  RE2 re("^(?:" + regex + ")$", opts);
  return cache.emplace(regex, re.ok() ? std::string() : re.error()).first->second;
}

void validate_relabel(const Reader& r, const RelabelConfig& c) {
  std::string action = c.action.value_or("replace");
  std::transform(action.begin(), action.end(), action.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (std::find(std::begin(kActions), std::end(kActions), action) == std::end(kActions)) {
    r.error("action", "unknown relabel action \"" + *c.action + "\"");
    return;
  }
  if (c.regex) {
    const std::string& err = regex_error(*c.regex);
    if (!err.empty()) r.error("regex", "invalid regular expression \"" + *c.regex + "\": " + err);
  }
  bool has_target = c.target_label && !c.target_label->empty();
  if ((action == "replace" || action == "hashmod" || action == "lowercase" || action == "uppercase" ||
       action == "keepequal" || action == "dropequal") &&
      !has_target)
    r.error("targetLabel", "is required for action " + action);
  if (action == "hashmod" && c.modulus.value_or(0) <= 0)
    r.error("modulus", "must be a positive integer for action hashmod");
  if ((action == "labeldrop" || action == "labelkeep") &&
      (!c.source_labels.empty() || has_target || c.modulus || (c.replacement && *c.replacement != "$1") ||
       (c.separator && *c.separator != ";")))
    r.error("action", action + " accepts only regex");
}

}  // namespace

std::vector<RelabelConfig> decode_relabelings(const Reader& parent, std::string_view key) {
  std::vector<RelabelConfig> out;
  parent.each(key, [&](const Reader& r, std::size_t) {
    RelabelConfig c;
    c.source_labels = r.strings("sourceLabels");
    c.separator = r.str("separator");
    c.target_label = r.str("targetLabel");
    c.regex = r.str("regex");
    c.modulus = r.integer("modulus");
    c.replacement = r.str("replacement");
    c.action = r.str("action");
    validate_relabel(r, c);
    out.push_back(std::move(c));
  });
  return out;
}

}  // namespace model
