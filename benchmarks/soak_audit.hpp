// Reading simcluster's audit log (k8s/sim/audit.hpp) for the chaos soak:
// which replica wrote what and when, and who held the Lease at that
// moment. Replicas are told apart by their User-Agent, which carries the
// Lease identity ("agent-operator/VERSION (IDENTITY)"); the driver's own
// edits come as "chaos-soak".
// Contract: reads the whole file each time (it is only appended to);
// timestamps are the server's, in microseconds since the epoch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace soak {

struct AuditWrite {
  std::int64_t received_us = 0, completed_us = 0;
  std::string replica;  // "" for other clients
  std::string verb, resource, ns, name, subresource;
  int code = 0;
  // Lease writes that succeeded: the holder and duration they recorded.
  std::string lease_holder;
  std::int64_t lease_duration_s = 0;
  bool is_lease() const { return resource == "leases"; }
  bool ok() const { return code >= 200 && code < 300; }
  std::string describe() const;
};

std::vector<AuditWrite> read_audit(const std::string& path);
std::int64_t now_us();

// Successful writes by a replica, other than to the Lease, that landed
// when that replica did not hold a live Lease: the last successful Lease
// write before it named another holder (or none), or is older than its
// leaseDurationSeconds. One line per offending write.
std::vector<std::string> writes_without_lease(std::vector<AuditWrite> log, const std::string& lease_name);

// Attempted writes (any answer) by replicas, Lease writes excepted, that
// the server received at or after `since_us`.
std::vector<AuditWrite> replica_writes_since(const std::vector<AuditWrite>& log, std::int64_t since_us);

}  // namespace soak
