#include "k8s/lease/leader.hpp"

#include <array>
#include <cstdio>

namespace k8s::lease {

using model::Value;

namespace {

std::string spec_str(const Value& lease, const char* field) {
  const Value* spec = lease.find("spec");
  const Value* v = spec ? spec->find(field) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

std::int64_t spec_int(const Value& lease, const char* field) {
  const Value* spec = lease.find("spec");
  const Value* v = spec ? spec->find(field) : nullptr;
  return v && v->is_int() ? v->as_int() : 0;
}

Value lease_spec(const LeaderConfig& cfg, const std::string& acquire, const std::string& now,
                 std::int64_t transitions) {
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(cfg.lease_duration).count();
  return Value::obj({{"holderIdentity", cfg.identity},
                     {"leaseDurationSeconds", static_cast<std::int64_t>(secs)},
                     {"acquireTime", acquire},
                     {"renewTime", now},
                     {"leaseTransitions", transitions}});
}

}  // namespace

std::string micro_time(std::int64_t unix_ms) {
  using namespace std::chrono;
  sys_time<milliseconds> t{milliseconds(unix_ms)};
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss<milliseconds> hms{t - day};
  std::array<char, 64> buf;
  std::snprintf(buf.data(), buf.size(), "%04d-%02u-%02uT%02d:%02d:%02lld.%03lld000Z", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<long long>(hms.seconds().count()), static_cast<long long>(hms.subseconds().count()));
  return buf.data();
}

LeaseDecision decide_lease(const LeaderConfig& cfg, const std::optional<Value>& lease, LeaseObservation& seen,
                           std::int64_t now_mono_ms, const std::string& now_micro_time) {
  LeaseDecision d;
  if (!lease) {
    d.step = LeaseStep::create;
    d.lease = Value::obj({{"apiVersion", "coordination.k8s.io/v1"},
                          {"kind", "Lease"},
                          {"metadata", Value::obj({{"name", cfg.name}, {"namespace", cfg.ns}})},
                          {"spec", lease_spec(cfg, now_micro_time, now_micro_time, 0)}});
    return d;
  }
  std::string holder = spec_str(*lease, "holderIdentity");
  std::string renew = spec_str(*lease, "renewTime");
  if (holder != seen.holder || renew != seen.renew_time || seen.observed_ms == 0) {
    seen = {holder, renew, now_mono_ms};
  }
  std::int64_t duration_ms = spec_int(*lease, "leaseDurationSeconds") * 1000;
  if (duration_ms <= 0) duration_ms = cfg.lease_duration.count();
  bool mine = holder == cfg.identity;
  bool expired = holder.empty() || now_mono_ms >= seen.observed_ms + duration_ms;
  if (!mine && !expired) return d;  // someone else holds a live lease
  d.step = mine ? LeaseStep::renew : LeaseStep::acquire;
  d.lease = *lease;
  std::int64_t transitions = spec_int(*lease, "leaseTransitions") + (mine ? 0 : 1);
  std::string acquire = mine ? spec_str(*lease, "acquireTime") : now_micro_time;
  if (acquire.empty()) acquire = now_micro_time;
  d.lease.set("spec", lease_spec(cfg, acquire, now_micro_time, transitions));
  return d;
}

std::optional<Value> release_lease(const LeaderConfig& cfg, const Value& lease, const std::string& now_micro_time) {
  if (spec_str(lease, "holderIdentity") != cfg.identity) return std::nullopt;
  LeaderConfig released = cfg;
  released.identity.clear();
  released.lease_duration = std::chrono::seconds(1);
  Value out = lease;
  out.set("spec", lease_spec(released, now_micro_time, now_micro_time, spec_int(lease, "leaseTransitions")));
  return out;
}

}  // namespace k8s::lease
