// The kubelet Service controller's state machine, as pure functions: it
// folds journaled Node events and the observed kubelet objects (Service,
// Endpoints, our EndpointSlices), renders what they should be with
// model::render_kubelet_objects, plans one batch of writes at a time with
// core::plan_writes (config hash, field-by-field drift, updates fenced by
// resourceVersion) plus the removal of our slices no longer wanted, and
// decides what each answer leads to. Effects are core::WriterEffect (call,
// reread, retry, event, wrote, log); the shell (actors/kubelet_actor.cpp)
// performs them.
// Error classes (k8s::ErrorClass): retry_reconcile (409, 404, 410) re-reads
// the object and replans, with a backoff after three in a row; retry_call
// (5xx, 429, transport) retries after a backoff; terminal (other 4xx) is
// logged once and not retried until an input changes.
// A Node without a usable address is left out; the first time (and when
// its problem changes) the leader logs it and creates a Warning Event on
// the Node, and logs again when the Node is back.
// Contract: no effect writes before the initial sync, while not the
// leader, or once the fence says the last Lease renew is older than the
// renew deadline. Deterministic for a given input sequence.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/core/event.hpp"
#include "actors/core/lease_fence.hpp"
#include "actors/core/writer_machine.hpp"
#include "actors/core/writer_plan.hpp"
#include "k8s/client/retry.hpp"
#include "model/kubelet.hpp"

namespace actors::core {

struct KubeletSettings {
  model::KubeletServiceOptions service;
  bool leader = true;                        // false: wait for on_leader
  std::shared_ptr<LeaseFence> fence;         // null: no fencing
  std::function<std::string()> now_rfc3339;  // Event times
  bool emit_events = true;
  k8s::Backoff backoff{std::chrono::milliseconds(500), std::chrono::milliseconds(60'000)};
};

struct KubeletStats {
  std::uint64_t plans = 0, writes = 0, unchanged = 0, errors = 0, events = 0, fenced = 0;
  std::size_t nodes = 0, addresses = 0, skipped = 0;  // as of the last plan
  bool synced = false, leader = false, in_flight = false, retrying = false;
};

struct KubeletState {
  KubeletSettings settings;
  std::map<std::string, model::Value> nodes;  // by name, model::trim_node'd without resourceVersion
  ObservedObjects observed;                   // our objects as last seen
  WrittenObjects written;                     // our last writes (server fields stripped)
  std::map<Identity, std::uint64_t> written_rv;
  std::vector<Action> queue;  // the rest of the batch in flight
  std::uint64_t batch = 0;
  bool synced = false, leader = true, in_flight = false, replan = false, retry_scheduled = false;
  bool backoff_after_reread = false;
  unsigned attempt = 0;
  std::map<std::string, std::string> reported;  // Node -> the problem last reported
  std::string last_error;                       // the terminal error last logged
  KubeletStats stats;
};

KubeletState make_kubelet(KubeletSettings settings);
// The key every effect carries (WriterEffect::root): the Service's.
RootKey kubelet_key(const KubeletState& st);

// A journaled event: Nodes, and the kubelet objects (others are ignored).
WriterEffects on_kubelet_event(KubeletState& st, const Event& e);
WriterEffects on_kubelet_synced(KubeletState& st);
WriterEffects on_kubelet_leader(KubeletState& st, bool leading);
WriterEffects on_kubelet_call_done(KubeletState& st, std::uint64_t batch, const CallAnswer& a);
WriterEffects on_kubelet_reread(KubeletState& st, const Identity& id, const CallAnswer& a);
WriterEffects on_kubelet_retry(KubeletState& st);
KubeletStats kubelet_stats(const KubeletState& st);

}  // namespace actors::core
