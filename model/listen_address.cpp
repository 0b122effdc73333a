#include "model/listen_address.hpp"

namespace model {

namespace {

std::optional<int> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return std::nullopt;
  return port;
}

}  // namespace

std::optional<ListenAddress> parse_listen_address(std::string_view text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return std::nullopt;
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return std::nullopt;
  }
  auto port = parse_port(text.substr(colon + 1));
  if (!port) return std::nullopt;
  return ListenAddress{host.empty() ? "0.0.0.0" : std::string(host), *port};
}

}  // namespace model
