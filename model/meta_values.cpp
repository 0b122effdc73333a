// Decoders of the value kinds the scrape CRDs share beyond auth and TLS:
// proxy settings, byte sizes and plain-number quantities.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "model/meta.hpp"

namespace model {

ProxySettings decode_proxy(const Reader& r) {
  ProxySettings p;
  p.proxy_url = r.str_or("proxyUrl");
  p.no_proxy = r.str_or("noProxy");
  p.proxy_from_environment = r.boolean("proxyFromEnvironment");
  Reader headers = r.object("proxyConnectHeader");
  if (headers.present())
    for (const auto& entry : headers.node()->as_object()) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one.
      const std::string& name = entry.first;
      headers.each(name, [&](const Reader& ref, std::size_t) {
        SecretKeySelector s{ref.str_or("name"), ref.str_or("key"), ref.flag("optional")};
        if (s.name.empty()) ref.error("name", "is required");
        if (s.key.empty()) ref.error("key", "is required");
        p.proxy_connect_header[name].push_back(std::move(s));
      });
    }
  if (!p.proxy_url.empty() && !(p.proxy_url.starts_with("http://") || p.proxy_url.starts_with("https://") ||
                                p.proxy_url.starts_with("socks5://")))
    r.error("proxyUrl", "must be an http://, https:// or socks5:// URL");
  // Prometheus refuses a config that breaks these, whole.
  const bool from_env = p.proxy_from_environment.value_or(false);
  if (from_env && !p.proxy_url.empty()) r.error("proxyFromEnvironment", "cannot be used together with proxyUrl");
  if (from_env && !p.no_proxy.empty()) r.error("noProxy", "cannot be used together with proxyFromEnvironment");
  if (!from_env && p.proxy_url.empty() && !p.no_proxy.empty()) r.error("noProxy", "requires proxyUrl");
  if (!from_env && p.proxy_url.empty() && !p.proxy_connect_header.empty())
    r.error("proxyConnectHeader", "requires proxyUrl or proxyFromEnvironment");
  return p;
}

bool is_byte_size(const std::string& s) {
  if (s == "0") return true;
  std::size_t i = 0, digits = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) digits += s[i++] != '.';
  if (digits == 0 || std::count(s.begin(), s.begin() + i, '.') > 1) return false;
  std::string unit = s.substr(i);
  if (!unit.empty() && std::string("KMGTPE").find(unit[0]) != std::string::npos) unit.erase(0, 1);
  if (unit.size() == 2 && unit[0] == 'i') unit.erase(0, 1);
  return unit == "B";
}

std::optional<double> decode_plain_number(const Reader& r, std::string_view key) {
  auto raw = r.raw(key);
  if (!raw) return std::nullopt;
  if (raw->is_number()) return raw->as_double();
  if (raw->is_string()) {
    const std::string& s = raw->as_string();
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    bool plain = !s.empty() && end == s.c_str() + s.size() && s.find_first_not_of("+-.0123456789") == std::string::npos;
    if (plain) return d;
  }
  r.error(key, "must be a plain decimal number");
  return std::nullopt;
}

}  // namespace model
