#include "k8s/client/exec_credential.hpp"

#include <cctype>
#include <cstdio>

#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s {
namespace {

using model::Value;

std::string string_field(const Value& obj, std::string_view key, const std::string& what) {
  const Value* v = obj.find(key);
  if (!v || v->is_null()) return {};
  if (!v->is_string()) throw ExecError(what + ": status." + std::string(key) + " is not a string");
  return v->as_string();
}

// RFC 3339 as Kubernetes writes it ("2026-01-02T03:04:05Z", optionally with
// a fraction and a numeric offset).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& s) {
  int y, mo, d, h, mi, sec, used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6) return {};
  std::size_t i = static_cast<std::size_t>(used);
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));) ++i;
  int offset_min = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om, n = 0;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d%n", &oh, &om, &n) != 2) return {};
    offset_min = (s[i] == '-' ? -1 : 1) * (oh * 60 + om);
    i += 1 + static_cast<std::size_t>(n);
  } else {
    return {};
  }
  if (i != s.size()) return {};
  if (y >= 2262) return std::chrono::system_clock::time_point::max();  // past what the clock holds: never
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok()) return {};
  auto t = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(mi - offset_min) +
           std::chrono::seconds(sec);
  return std::chrono::time_point_cast<std::chrono::system_clock::duration>(t);
}

}  // namespace

ExecCredential parse_exec_credential(const std::string& text, const std::string& api_version, const std::string& what) {
  Value doc;
  try {
    doc = model::parse_json(text, "exec plugin output");
  } catch (const std::exception&) {
    // The parser's message may quote the output, which may hold a token.
    throw ExecError(what + ": the plugin's output is not a JSON ExecCredential");
  }
  if (!doc.is_object()) throw ExecError(what + ": the plugin's output is not a JSON object");
  const Value* version = doc.find("apiVersion");
  std::string got = version && version->is_string() ? version->as_string() : "";
  if (got != api_version)
    throw ExecError(what + ": the plugin returned apiVersion \"" + got + "\", the kubeconfig asks for \"" +
                    api_version + "\"");
  const Value* kind = doc.find("kind");
  if (!kind || !kind->is_string() || kind->as_string() != "ExecCredential")
    throw ExecError(what + ": the plugin's output is not kind ExecCredential");
  const Value* status = doc.find("status");
  if (!status || !status->is_object()) throw ExecError(what + ": the plugin returned no status");
  ExecCredential c;
  c.token = string_field(*status, "token", what);
  c.client_cert_data = string_field(*status, "clientCertificateData", what);
  c.client_key_data = string_field(*status, "clientKeyData", what);
  if (c.token.empty() && c.client_cert_data.empty() && c.client_key_data.empty())
    throw ExecError(what + ": the plugin returned neither a token nor a client certificate and key");
  if (c.client_cert_data.empty() != c.client_key_data.empty())
    throw ExecError(what + ": the plugin returned a client certificate or key without the other");
  if (std::string at = string_field(*status, "expirationTimestamp", what); !at.empty()) {
    c.expiry = parse_rfc3339(at);
    if (!c.expiry) throw ExecError(what + ": status.expirationTimestamp \"" + at + "\" is not RFC 3339");
  }
  return c;
}

std::string exec_info(const ExecConfig& config) {
  Value spec = Value::Object{};
  // We never have a terminal to lend the plugin.
  spec.as_object().push_back({"interactive", Value(false)});
  if (config.provide_cluster_info) {
    Value cluster = Value::Object{};
    cluster.as_object().push_back({"server", Value(config.server)});
    if (!config.ca_data.empty())
      cluster.as_object().push_back({"certificate-authority-data", Value(model::base64_encode(config.ca_data))});
    if (config.insecure_skip_tls_verify) cluster.as_object().push_back({"insecure-skip-tls-verify", Value(true)});
    spec.as_object().push_back({"cluster", std::move(cluster)});
  }
  Value info = Value::Object{};
  info.as_object().push_back({"apiVersion", Value(config.api_version)});
  info.as_object().push_back({"kind", Value("ExecCredential")});
  info.as_object().push_back({"spec", std::move(spec)});
  return model::to_json(info);
}

}  // namespace k8s
