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
  // Go clients serialise an unset selector as {key: ""}; like
  // prometheus-operator, a selector without a name is no selector.
  if (s.name.empty()) return std::nullopt;
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

namespace {

std::string decode_tls_version(const Reader& r, std::string_view key) {
  std::string v = r.str_or(key);
  if (!v.empty() && v != "TLS10" && v != "TLS11" && v != "TLS12" && v != "TLS13")
    r.error(key, "must be one of TLS10, TLS11, TLS12, TLS13, got \"" + v + "\"");
  return v;
}

}  // namespace

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
  t.min_version = decode_tls_version(r, "minVersion");
  t.max_version = decode_tls_version(r, "maxVersion");
  // Prometheus refuses the pair when inverted ("TLS1x" names sort by version).
  if (!t.min_version.empty() && !t.max_version.empty() && t.max_version < t.min_version)
    r.error("maxVersion", "must not be below minVersion " + t.min_version);
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
  o.tls_config = decode_tls(r, "tlsConfig", false);
  o.proxy = decode_proxy(r);
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

bool is_label_name(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

void check_label_name_keys(const Reader& parent, std::string_view key, const std::map<std::string, std::string>& m) {
  for (const auto& [k, v] : m)
    if (!is_label_name(k)) parent.error_at(parent.path_of(key) + "." + k, "\"" + k + "\" is not a valid label name");
}

void check_label_name(const Reader& parent, std::string_view key, const std::string& value, bool allow_empty) {
  if (value.empty() && allow_empty) return;
  if (!is_label_name(value)) parent.error(key, "\"" + value + "\" is not a valid label name");
}

void check_exclusive(const Reader& r, std::initializer_list<std::pair<const char*, bool>> fields) {
  const char* first = nullptr;
  for (const auto& [name, set] : fields) {
    if (!set) continue;
    if (!first) {
      first = name;
      continue;
    }
    std::string group;
    std::size_t i = 0;
    for (const auto& f : fields) {
      if (i > 0) group += i + 1 == fields.size() ? " and " : ", ";
      group += f.first;
      ++i;
    }
    r.error(name,
            std::string(first) + " and " + name + " are mutually exclusive: at most one of " + group + " may be set");
    return;
  }
}

namespace {

const char* const kActions[] = {"replace",   "keep",      "drop",      "hashmod",   "labelmap", "labeldrop",
                                "labelkeep", "keepequal", "dropequal", "lowercase", "uppercase"};

// Compiling a regex costs microseconds and clusters reuse the same few
// hundred patterns across thousands of monitors, so results are memoised.
// The message comes from the pattern as the user wrote it; the anchored form
// Prometheus uses is checked too.
const std::string& regex_error(const std::string& regex) {
  thread_local std::unordered_map<std::string, std::string> cache;
  if (auto it = cache.find(regex); it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  RE2::Options opts;
  opts.set_log_errors(false);
  std::string err;
  if (RE2 plain(regex, opts); !plain.ok()) {
    err = plain.error();
  } else if (RE2 anchored("^(?:" + regex + ")$", opts); !anchored.ok()) {
    err = anchored.error();
  }
  return cache.emplace(regex, std::move(err)).first->second;
}

// Prometheus' relabelTarget: a replace rule's target_label may hold $1 or
// ${name} references, expanded before the result is used as a label name.
bool is_relabel_target(const std::string& s) {
  static const RE2 re(R"(^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$)");
  return RE2::FullMatch(s, re);
}

void validate_relabel(const Reader& r, const RelabelConfig& c) {
  // An empty action is left out when rendering, so it means replace.
  std::string action = c.action && !c.action->empty() ? *c.action : "replace";
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
  bool needs_target = action == "replace" || action == "hashmod" || action == "lowercase" || action == "uppercase" ||
                      action == "keepequal" || action == "dropequal";
  if (needs_target && !has_target) {
    r.error("targetLabel", "is required for action " + action);
  } else if (needs_target && action == "replace" && !is_relabel_target(*c.target_label)) {
    r.error("targetLabel",
            "\"" + *c.target_label + "\" is not a valid label name (or $1 / ${name} template) for action replace");
  } else if (needs_target && action != "replace" && !is_label_name(*c.target_label)) {
    r.error("targetLabel", "\"" + *c.target_label + "\" is not a valid label name for action " + action);
  }
  if (action == "hashmod" && c.modulus.value_or(0) <= 0)
    r.error("modulus", "must be a positive integer for action hashmod");
  else if (action != "hashmod" && c.modulus && *c.modulus <= 0)
    r.error("modulus",
            "must be a positive integer, got " + std::to_string(*c.modulus) + " (and is only used by hashmod)");
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
