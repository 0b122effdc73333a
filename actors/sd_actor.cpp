#include "actors/sd_actor.hpp"

#include <map>
#include <vector>

#include "sd/endpoints.hpp"

namespace actors {

namespace {

struct Parked {
  caf::typed_response_promise<SdAnswerPtr> promise;
  std::string agent;
};

struct SdActorState {
  SdConfig cfg;
  sd::Aggregator agg;
  std::vector<Parked> parked;
  std::map<std::string, SdAnswerPtr> answers;  // per filter, for agg.generation()
  std::uint64_t answers_generation = 0;
  sd::TimePoint fanout_started{};
  SdStats stats;
  static inline const char* name = "sd-aggregator";
};

using sd_pointer = sd_actor::stateful_pointer<SdActorState>;

std::optional<sd::AgentKey> parse_filter(const std::string& agent) {
  std::size_t slash = agent.find('/');
  if (agent.empty() || slash == std::string::npos) return std::nullopt;
  return sd::AgentKey{agent.substr(0, slash), agent.substr(slash + 1)};
}

// The entity tag (sd::merge_etag) hashes the fragments the body is made of.
SdAnswerPtr make_answer(const std::string& body, std::string etag) {
  return std::make_shared<const SdAnswer>(body, std::move(etag));
}

SdAnswerPtr answer_for(SdActorState& st, const std::string& agent) {
  std::optional<sd::AgentKey> only = parse_filter(agent);
  if (only && !st.agg.pods().count(*only)) {
    // An agent without pods: not cached, so polls naming arbitrary agents
    // cannot grow the caches.
    static const SdAnswerPtr empty = make_answer(sd::merge({}, std::nullopt), sd::merge_etag({}, std::nullopt));
    return empty;
  }
  if (st.answers_generation != st.agg.generation()) {
    st.answers.clear();
    st.answers_generation = st.agg.generation();
  }
  SdAnswerPtr& out = st.answers[agent];
  if (!out) {
    out = make_answer(st.agg.body(only), st.agg.etag(only));
  }
  return out;
}

void on_endpoints(SdActorState& st, const core::Event& ev) {
  if (ev.kind != "Endpoints" || !ev.object) return;
  std::optional<sd::EndpointsPods> pods = sd::read_endpoints(*ev.object);
  if (!pods) return;
  if (ev.type == core::EventType::deleted) pods->addresses.clear();
  st.agg.set_pods(pods->agent, pods->addresses);
  st.stats.pods = 0;
  for (const auto& [agent, addresses] : st.agg.pods()) st.stats.pods += addresses.size();
  if (ev.type == core::EventType::deleted) {
    if (st.cfg.on_agent_gone) st.cfg.on_agent_gone(pods->agent);
  } else if (st.cfg.on_pods) {
    st.cfg.on_pods(pods->agent, pods->addresses.size());
  }
}

PodAnswerPtr to_answer(const sd::PodTarget& pod, std::uint64_t fanout, k8s::Result r) {
  auto a = std::make_shared<sd::PodAnswer>();
  a->pod = pod;
  a->fanout = fanout;
  a->status = r.status;
  a->content_type = std::move(r.content_type);
  a->body = std::move(r.body);
  a->error = std::move(r.error);
  a->timed_out = r.timed_out;
  a->too_large = r.too_large;
  return a;
}

void start_fanout(sd_pointer self, const std::vector<sd::PodTarget>& pods) {
  SdActorState& st = self->state;
  st.fanout_started = self->clock().now();
  ++st.stats.fanouts;
  self->delayed_send(self, st.cfg.pod_timeout + kSdDeadlineSlack, deadline_atom::value, st.agg.fanout());
  sd_actor handle = caf::actor_cast<sd_actor>(self);
  for (const sd::PodTarget& pod : pods) {
    k8s::Request req;
    req.path = "http://" + pod.address + kPodSdPath;
    req.timeout = st.cfg.pod_timeout;
    req.max_body = st.cfg.max_body;
    req.user_agent = "agent-operator-integrations-sd";
    std::uint64_t fanout = st.agg.fanout();
    st.cfg.transport->send(std::move(req), [handle, pod, fanout](k8s::Result r) {
      caf::anon_send(handle, answer_atom::value, to_answer(pod, fanout, std::move(r)));
    });
  }
}

void deliver_parked(sd_pointer self) {
  SdActorState& st = self->state;
  if (st.cfg.on_fanout)
    st.cfg.on_fanout(std::chrono::duration<double>(self->clock().now() - st.fanout_started).count());
  std::vector<Parked> parked = std::move(st.parked);
  st.parked.clear();
  for (Parked& p : parked) p.promise.deliver(answer_for(st, p.agent));
}

void log_all(const SdActorState& st, const std::vector<model::LogEntry>& logs) {
  for (const model::LogEntry& e : logs) st.cfg.log(e);
}

void on_answer(sd_pointer self, const PodAnswerPtr& a) {
  SdActorState& st = self->state;
  std::vector<model::LogEntry> logs;
  sd::Failure failure = sd::Failure::none;
  bool done = st.agg.answer(*a, self->clock().now(), logs, &failure);
  log_all(st, logs);
  if (failure != sd::Failure::none && st.cfg.on_failure) st.cfg.on_failure(a->pod.agent, sd::failure_name(failure));
  if (done) deliver_parked(self);
}

void on_deadline(sd_pointer self, std::uint64_t fanout) {
  SdActorState& st = self->state;
  if (fanout != st.agg.fanout() || !st.agg.in_flight()) return;  // that fan-out already ended
  std::vector<model::LogEntry> logs;
  std::vector<sd::PodTarget> late = st.agg.expire(self->clock().now(), logs);
  log_all(st, logs);
  for (const sd::PodTarget& pod : late)
    if (st.cfg.on_failure) st.cfg.on_failure(pod.agent, sd::failure_name(sd::Failure::timeout));
  deliver_parked(self);
}

caf::typed_response_promise<SdAnswerPtr> on_poll(sd_pointer self, const std::string& agent) {
  SdActorState& st = self->state;
  ++st.stats.polls;
  auto promise = self->make_response_promise<SdAnswerPtr>();
  sd::Poll p = st.agg.poll(self->clock().now());
  if (p.action == sd::Poll::Action::serve) {
    ++st.stats.served_fresh;
    promise.deliver(answer_for(st, agent));
    return promise;
  }
  if (p.action == sd::Poll::Action::wait) ++st.stats.waited;
  st.parked.push_back({promise, agent});
  if (p.action == sd::Poll::Action::start) start_fanout(self, p.fetch);
  return promise;
}

// A function with arguments rather than a capturing lambda: CAF 0.17 binds
// a lambda's empty argument tuple through a null pointer (UBSan reports it).
sd_actor::behavior_type sd_behavior(sd_pointer self, SdConfig cfg) {
  self->state.cfg = std::move(cfg);
  self->state.agg = sd::Aggregator(self->state.cfg.freshness);
  return {
      [self](event_atom, const EventPtr& ev) { on_endpoints(self->state, *ev); },
      [](synced_atom) {},
      [self](poll_atom, const std::string& agent) { return on_poll(self, agent); },
      [self](answer_atom, const PodAnswerPtr& a) { on_answer(self, a); },
      [self](deadline_atom, std::uint64_t fanout) { on_deadline(self, fanout); },
      [self](stats_atom) { return self->state.stats; },
  };
}

}  // namespace

sd_actor spawn_sd_actor(caf::actor_system& sys, SdConfig cfg) {
  return sys.spawn(sd_behavior, std::move(cfg));
}

SdPoll make_sd_poll(caf::actor_system& sys, sd_actor aggregator, std::chrono::milliseconds timeout) {
  return [&sys, aggregator, timeout](const std::string& agent) -> SdAnswerPtr {
    SdAnswerPtr out;
    caf::scoped_actor self{sys};
    self->request(aggregator, timeout, poll_atom::value, agent)
        .receive([&](const SdAnswerPtr& a) { out = a; }, [](const caf::error&) {});
    return out;
  };
}

}  // namespace actors
