// simcluster's audit log, in the format of kube-apiserver's log backend
// (--audit-log-path): one audit.k8s.io/v1 Event per line, stage
// ResponseComplete, for every API request that can change state (create,
// update, patch, delete, deletecollection), whatever its answer. The
// policy is fixed: level Metadata, except Leases, which are logged at
// RequestResponse with their responseObject, so a reader can tell who held
// a Lease at each moment. Reads and watches are not logged.
// Contract: thread-safe; each line is flushed when written, so another
// process may follow the file. Timestamps are the wall clock with
// microseconds; requestReceivedTimestamp is taken before any injected
// latency, stageTimestamp after the request was handled.
#pragma once

#include <chrono>
#include <fstream>
#include <mutex>
#include <string>

#include "k8s/sim/api.hpp"
#include "model/value.hpp"

namespace k8s::sim {

struct AuditRecord {
  const HttpRequest* request = nullptr;
  const HttpResponse* response = nullptr;
  std::string user;        // the authenticated user ("" when refused with 401)
  std::string user_agent;  // the User-Agent header
  std::chrono::system_clock::time_point received, completed;
};

// Whether kube-apiserver's audit would log this request under our policy.
bool is_audited(const HttpRequest& request);
// The audit.k8s.io/v1 Event for one request.
model::Value audit_event(const AuditRecord& record, std::uint64_t id);

class AuditLog {
 public:
  // Appends to `path`; throws std::runtime_error when it cannot be opened.
  explicit AuditLog(const std::string& path);
  void record(const AuditRecord& record);

 private:
  std::mutex mutex_;
  std::ofstream out_;
  std::uint64_t next_id_ = 1;
};

}  // namespace k8s::sim
