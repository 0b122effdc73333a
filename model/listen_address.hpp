// The one parser of listen addresses (`--listen`, `--listen-addr`), shared
// by the operator's HTTP server and the target allocator: `host:port`,
// `:port` (every interface) or `[v6]:port`, as Go's net.Listen reads them.
// Contract: the port is 0 to 65535 in decimal digits only; a bare IPv6
// host (more than one colon without brackets) is refused; an empty host
// becomes "0.0.0.0"; brackets are removed from an IPv6 host.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace model {

struct ListenAddress {
  std::string host;
  int port = 0;
};

std::optional<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace model
