#include "soak_audit.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>

#include "model/parse.hpp"

namespace soak {

namespace {

using model::Value;

std::string str(const Value* v, const char* k) {
  const Value* x = v ? v->find(k) : nullptr;
  return x && x->is_string() ? x->as_string() : "";
}

// "2026-11-25T10:00:00.123456Z" -> microseconds since the epoch.
std::int64_t parse_micro(const std::string& t) {
  std::tm tm{};
  if (!strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  std::int64_t us = static_cast<std::int64_t>(timegm(&tm)) * 1000000;
  auto dot = t.find('.');
  if (dot != std::string::npos) us += std::stoll(t.substr(dot + 1, 6));
  return us;
}

// "agent-operator/0.1.0 (replica-a)" -> "replica-a".
std::string replica_of(const std::string& user_agent) {
  if (user_agent.rfind("agent-operator/", 0) != 0) return "";
  auto open = user_agent.find('('), close = user_agent.rfind(')');
  return open == std::string::npos || close < open ? "?" : user_agent.substr(open + 1, close - open - 1);
}

AuditWrite read_event(const Value& e) {
  AuditWrite w;
  w.received_us = parse_micro(str(&e, "requestReceivedTimestamp"));
  w.completed_us = parse_micro(str(&e, "stageTimestamp"));
  w.replica = replica_of(str(&e, "userAgent"));
  w.verb = str(&e, "verb");
  const Value* ref = e.find("objectRef");
  w.resource = str(ref, "resource"), w.ns = str(ref, "namespace"), w.name = str(ref, "name");
  w.subresource = str(ref, "subresource");
  const Value* status = e.find("responseStatus");
  const Value* code = status ? status->find("code") : nullptr;
  w.code = code && code->is_int() ? static_cast<int>(code->as_int()) : 0;
  const Value* obj = e.find("responseObject");
  const Value* spec = obj ? obj->find("spec") : nullptr;
  w.lease_holder = str(spec, "holderIdentity");
  const Value* d = spec ? spec->find("leaseDurationSeconds") : nullptr;
  w.lease_duration_s = d && d->is_int() ? d->as_int() : 0;
  return w;
}

}  // namespace

std::string AuditWrite::describe() const {
  return verb + " " + resource + (subresource.empty() ? "" : "/" + subresource) + " " + ns + "/" + name + " by " +
         (replica.empty() ? "another client" : replica) + " -> " + std::to_string(code);
}

std::int64_t now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

std::vector<AuditWrite> read_audit(const std::string& path) {
  std::vector<AuditWrite> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    try {
      out.push_back(read_event(model::parse_json(line, "audit")));
    } catch (const std::exception&) {  // a line being written as we read
    }
  }
  return out;
}

std::vector<std::string> writes_without_lease(std::vector<AuditWrite> log, const std::string& lease_name) {
  // In the order the server finished them (lines are written just after).
  std::stable_sort(log.begin(), log.end(),
                   [](const AuditWrite& a, const AuditWrite& b) { return a.completed_us < b.completed_us; });
  std::vector<std::string> out;
  const AuditWrite* lease = nullptr;  // the last successful write of the Lease so far
  for (const AuditWrite& w : log) {
    if (!w.ok()) continue;
    if (w.is_lease() && w.name == lease_name) {
      lease = &w;
      continue;
    }
    if (w.replica.empty() || w.is_lease()) continue;
    std::string why;
    if (!lease || lease->lease_holder != w.replica)
      why = "the Lease was held by \"" + (lease ? lease->lease_holder : std::string()) + "\"";
    else if (w.completed_us > lease->completed_us + lease->lease_duration_s * 1000000)
      why = "its Lease had expired " + std::to_string((w.completed_us - lease->completed_us) / 1000) +
            " ms after its last renew";
    if (!why.empty()) out.push_back(w.describe() + ": " + why);
  }
  return out;
}

std::vector<AuditWrite> replica_writes_since(const std::vector<AuditWrite>& log, std::int64_t since_us) {
  std::vector<AuditWrite> out;
  for (const AuditWrite& w : log)
    if (!w.replica.empty() && !w.is_lease() && w.received_us >= since_us) out.push_back(w);
  return out;
}

}  // namespace soak
