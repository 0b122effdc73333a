#include "k8s/lease/round.hpp"

#include "model/parse.hpp"

namespace k8s::lease {

namespace {

std::optional<model::Value> parse_lease(std::string_view body) {
  try {
    return model::parse_json(body, "lease");
  } catch (const model::ParseError&) {
    return std::nullopt;
  }
}

}  // namespace

void check_deadline(const LeaderConfig& cfg, RoundState& st, std::int64_t now_mono_ms) {
  if (st.leading && now_mono_ms - st.last_renew_ms > cfg.renew_deadline.count()) st.leading = false;
}

RoundStep after_read(const LeaderConfig& cfg, RoundState& st, int status, std::string_view body,
                     std::int64_t now_mono_ms, std::int64_t now_wall_ms) {
  std::optional<model::Value> lease;
  if (status == 200) {
    lease = parse_lease(body);
    if (!lease) {
      check_deadline(cfg, st, now_mono_ms);
      return {};
    }
  } else if (status != 404) {
    check_deadline(cfg, st, now_mono_ms);
    return {};
  }
  st.lease = lease;
  LeaseDecision d = decide_lease(cfg, lease, st.seen, now_mono_ms, micro_time(now_wall_ms));
  if (d.step == LeaseStep::wait) {
    st.leading = false;
    return {};
  }
  st.sent_ms = now_mono_ms;
  return {d.step == LeaseStep::create ? LeaseWrite::create : LeaseWrite::update, std::move(d.lease)};
}

void after_write(const LeaderConfig& cfg, RoundState& st, bool ok, std::string_view body, std::int64_t now_mono_ms) {
  if (!ok) return check_deadline(cfg, st, now_mono_ms);
  st.lease = parse_lease(body);  // without it, nothing is released on shutdown
  st.last_renew_ms = st.sent_ms;
  st.leading = true;
}

std::optional<model::Value> step_down(const LeaderConfig& cfg, RoundState& st, std::int64_t now_wall_ms) {
  bool was_leading = st.leading;
  st.leading = false;
  if (!was_leading || !st.lease) return std::nullopt;
  return release_lease(cfg, *st.lease, micro_time(now_wall_ms));
}

}  // namespace k8s::lease
