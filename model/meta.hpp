// Shared Kubernetes building blocks: object metadata, label selectors,
// Secret/ConfigMap key references and the Prometheus auth/TLS/relabel types
// that several custom resources embed.
// Contract: decode_* functions validate types and enumerations and report
// problems through the Reader's error list; they never throw.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/decode.hpp"
#include "model/object_fields.hpp"
#include "model/value.hpp"

namespace model {

struct ObjectMeta {
  std::string name;
  std::string ns;
  std::string uid;
  std::string resource_version;
  std::int64_t generation = 0;
  Labels labels;
  Labels annotations;
};
ObjectMeta decode_meta(const Reader& object);

struct Requirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

// A metav1.LabelSelector. std::nullopt stands for a nil selector.
struct LabelSelector {
  Labels match_labels;
  std::vector<Requirement> match_expressions;
  bool matches(const Labels& labels) const;
  // The same test on an object's metadata.labels read in place (string
  // values only, as object_labels() reads them), without copying them.
  bool matches_object(const Value& object) const;
  // The same test on a labels object already found in a tree (null: the
  // object has none), for callers that test many selectors on one object.
  bool matches_labels_value(const Value* labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};
std::optional<LabelSelector> decode_selector(const Reader& parent, std::string_view key);
// nil matches nothing; {} matches everything.
bool selector_matches(const std::optional<LabelSelector>& sel, const Labels& labels);
// The selector as the API server prints it (apimachinery's
// LabelSelectorAsSelector(...).String()): requirements sorted by key,
// `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma-separated; "" for
// an empty selector. kubernetes_sd `selectors` take this text.
std::string selector_string(const LabelSelector& sel);

// A monitor's namespaceSelector (any / matchNames).
struct NamespaceSelector {
  bool any = false;
  std::vector<std::string> match_names;
};
NamespaceSelector decode_namespace_selector(const Reader& parent, std::string_view key);

struct SecretKeySelector {
  std::string name;
  std::string key;
  bool optional = false;
};
std::optional<SecretKeySelector> decode_key_ref(const Reader& parent, std::string_view key);

struct ConfigMapKeySelector {
  std::string name;
  std::string key;
  bool optional = false;
};

struct SecretOrConfigMap {
  std::optional<SecretKeySelector> secret;
  std::optional<ConfigMapKeySelector> config_map;
  bool empty() const { return !secret && !config_map; }
};
SecretOrConfigMap decode_secret_or_configmap(const Reader& parent, std::string_view key);

// TLSConfig; the *_file fields are empty for SafeTLSConfig users.
struct TLSConfig {
  SecretOrConfigMap ca;
  SecretOrConfigMap cert;
  std::optional<SecretKeySelector> key_secret;
  std::string server_name;
  std::optional<bool> insecure_skip_verify;
  std::string ca_file, cert_file, key_file;
  std::string min_version, max_version;  // TLS10..TLS13, as Prometheus spells them; "" = unset
};
std::optional<TLSConfig> decode_tls(const Reader& parent, std::string_view key, bool allow_files);

struct BasicAuth {
  std::optional<SecretKeySelector> username;
  std::optional<SecretKeySelector> password;
};
std::optional<BasicAuth> decode_basic_auth(const Reader& parent, std::string_view key);

// proxyUrl, noProxy, proxyFromEnvironment and proxyConnectHeader (values
// from Secrets of the object's namespace).
struct ProxySettings {
  std::string proxy_url, no_proxy;
  std::optional<bool> proxy_from_environment;
  std::map<std::string, std::vector<SecretKeySelector>> proxy_connect_header;
  // Whether any field but proxyUrl is set (the fields prometheus-operator
  // added after v0.66).
  bool has_extended() const { return !no_proxy.empty() || proxy_from_environment || !proxy_connect_header.empty(); }
};
// The proxy fields of `r`, checked as Prometheus checks them: proxyUrl is
// an http, https or socks5 URL; proxyFromEnvironment excludes proxyUrl and
// noProxy; noProxy needs proxyUrl, proxyConnectHeader needs either.
ProxySettings decode_proxy(const Reader& r);

struct OAuth2 {
  SecretOrConfigMap client_id;
  std::optional<SecretKeySelector> client_secret;
  std::string token_url;
  std::vector<std::string> scopes;
  std::map<std::string, std::string> endpoint_params;
  std::optional<TLSConfig> tls_config;  // for the token endpoint (SafeTLSConfig)
  ProxySettings proxy;
};
std::optional<OAuth2> decode_oauth2(const Reader& parent, std::string_view key);

struct Authorization {
  std::string type;
  std::optional<SecretKeySelector> credentials;
  std::string credentials_file;
};
std::optional<Authorization> decode_authorization(const Reader& parent, std::string_view key);

// A Prometheus byte size as the CRDs' ByteSize pattern and body_size_limit
// accept: "0", or a decimal number with an optional K/M/G/T/P/E(i) prefix
// and a B ("512MB", "1.5GiB").
bool is_byte_size(const std::string& s);

// A resource.Quantity read as a plain number: an integer, a JSON number or
// a decimal string. Suffixed quantities ("100m", "1e3") are errors rather
// than converted approximately.
std::optional<double> decode_plain_number(const Reader& r, std::string_view key);

// A Prometheus label name: ^[a-zA-Z_][a-zA-Z0-9_]*$.
bool is_label_name(std::string_view s);
// Reports each key of the string map at parent.key that is not a label name.
void check_label_name_keys(const Reader& parent, std::string_view key, const std::map<std::string, std::string>& m);
// Reports parent.key unless `value` is a label name ("" is accepted when
// `allow_empty`, i.e. when "" means "disabled" or "unset").
void check_label_name(const Reader& parent, std::string_view key, const std::string& value, bool allow_empty);

// Mutually exclusive fields of one object: {field name, is set}. When more
// than one is set, records one error at the second set field naming both and
// listing the whole group.
void check_exclusive(const Reader& r, std::initializer_list<std::pair<const char*, bool>> fields);

// A Prometheus relabel rule as written in the CRDs (camelCase fields).
struct RelabelConfig {
  std::vector<std::string> source_labels;
  std::optional<std::string> separator;
  std::optional<std::string> target_label;
  std::optional<std::string> regex;
  std::optional<std::int64_t> modulus;
  std::optional<std::string> replacement;
  std::optional<std::string> action;
};
// Validates like Prometheus does at load time: known action, compilable
// (RE2) regex, hashmod modulus and required target labels.
std::vector<RelabelConfig> decode_relabelings(const Reader& parent, std::string_view key);

}  // namespace model
