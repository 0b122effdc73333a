// The integrations SD aggregator actor: a thin shell around sd::Aggregator.
// Journaled Endpoints events of the operator's integrations Services set
// each GrafanaAgent's ready pods; a poll is answered from the last merge
// while it is fresh, parked behind the fan-out in flight (single flight),
// or starts one: one GET per pod on the transport's curl multi loop, all
// at once, each with its own timeout and body limit. A fan-out ends at the
// latest at its deadline (the pods' timeout + kSdDeadlineSlack); pods still silent
// then count as timeouts, and their late answers are ignored.
// Contract: never blocks; a pod that fails, hangs or answers garbage is
// logged once per change of its state and counted per GrafanaAgent and
// reason, and never fails a poll. Time is the actor system's clock, so a
// test coordinator drives the freshness window. The transport must not
// send credentials (pods are not the API server).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "actors/protocol.hpp"
#include "model/log.hpp"

namespace actors {

inline constexpr const char* kPodSdPath = "/agent/api/v1/metrics/integrations/sd";
// How far past the pods' timeout a fan-out may run. The transport's loops
// start a fan-out's requests one after another, the last ones up to ~20 ms
// late on 1,000 pods, and each request's own timeout counts from its start;
// the deadline counts from the fan-out's start, so a poll waits at most
// the pod timeout (plus a timer tick), however long the queue was.
inline constexpr std::chrono::milliseconds kSdDeadlineSlack{2};

struct SdConfig {
  std::shared_ptr<k8s::Transport> transport;
  std::chrono::milliseconds pod_timeout{5000};  // --integrations-sd-timeout
  std::chrono::milliseconds freshness{1000};    // --integrations-sd-freshness
  std::size_t max_body = 8 << 20;               // a longer pod answer is a too_large failure
  model::Log log = {};
  // Metrics hooks, called on the actor's thread.
  std::function<void(const sd::AgentKey&, const std::string& reason)> on_failure = {};
  std::function<void(const sd::AgentKey&, std::size_t ready_pods)> on_pods = {};
  std::function<void(const sd::AgentKey&)> on_agent_gone = {};  // its integrations Endpoints were deleted
  std::function<void(double seconds)> on_fanout = {};
};

sd_actor spawn_sd_actor(caf::actor_system& sys, SdConfig cfg);

// An SdPoll for the HTTP endpoint: asks `aggregator` from a scoped actor
// and waits up to `timeout` (the caller is an HTTP worker thread, never an
// actor).
SdPoll make_sd_poll(caf::actor_system& sys, sd_actor aggregator, std::chrono::milliseconds timeout);

}  // namespace actors
