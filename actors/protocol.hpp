// Every actor role's interface, in one place (CAF 0.17 typed_actor): the
// journal, the GrafanaAgent selector, the member selectors, the roots, the
// writer, the leader elector, the integrations SD aggregator, the kubelet
// Service controller, and the target allocator's journal and allocation actor. Each atom is declared here once and
// carries one payload shape wherever it is sent; the compiler rejects a
// message a role does not declare. Payloads are shared immutable pointers,
// so one event fans out to many roots without copying; they never leave the
// process, so they are allowed as unsafe (non-serializable) message types.
// Contract: handlers never mutate a payload they received. Messages an
// actor sends itself (timers, API completions) are part of its interface.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "actors/core/bindings_machine.hpp"
#include "actors/core/event.hpp"
#include "actors/core/kubelet_machine.hpp"
#include "actors/core/root_state.hpp"
#include "actors/core/router.hpp"
#include "actors/core/writer_machine.hpp"
#include "actors/http/sd_endpoint.hpp"
#include "allocation/runtime/input.hpp"
#include "allocation/runtime/replay.hpp"
#include "caf/all.hpp"
#include "k8s/client/transport.hpp"
#include "sd/aggregator.hpp"

namespace actors {

// --- atoms -----------------------------------------------------------------
// informer -> journal: a watched object changed (kind, type, object).
using ingest_atom = caf::atom_constant<caf::atom("ingest")>;
// journal -> selector: a journaled event.
using event_atom = caf::atom_constant<caf::atom("event")>;
// selector -> root: an event the root is interested in; `quiet` events
// update its state without scheduling a render.
using routed_atom = caf::atom_constant<caf::atom("routed")>;
// root -> member selector (request): replace my subscriptions; reply: the delta.
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
// member selector -> root: members a Namespace relabel adds or removes.
using absorb_atom = caf::atom_constant<caf::atom("absorb")>;
// root and elector self-timer: a debounce deadline / retry period passed.
using tick_atom = caf::atom_constant<caf::atom("tick")>;
// root -> writer: the root's latest reconcile outcome.
using desired_atom = caf::atom_constant<caf::atom("desired")>;
using verdicts_atom = caf::atom_constant<caf::atom("verdicts")>;
// selector -> writer: an owned object changed (drift and write confirmation).
using observed_atom = caf::atom_constant<caf::atom("observed")>;
// writer and kubelet internal: the re-read of one owned object after a 409/404.
using reread_atom = caf::atom_constant<caf::atom("reread")>;
// journal -> selectors -> writer and roots: the informers' first lists are in.
using synced_atom = caf::atom_constant<caf::atom("synced")>;
// writer and kubelet internal: an API call of batch N finished / a backoff elapsed.
using done_atom = caf::atom_constant<caf::atom("done")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
// elector -> writer (and kubelet): leadership gained (true) or lost (false).
using leader_atom = caf::atom_constant<caf::atom("leader")>;
// controller -> elector (request, on shutdown): stop writing, then hand the
// Lease back; the reply says whether a release was written.
using release_atom = caf::atom_constant<caf::atom("release")>;
// elector internal: the Lease read, write and release answers.
using lease_atom = caf::atom_constant<caf::atom("lease")>;
using wrote_atom = caf::atom_constant<caf::atom("wrote")>;
using released_atom = caf::atom_constant<caf::atom("released")>;
// any -> an actor (request): its counters, for tests, metrics and views.
using stats_atom = caf::atom_constant<caf::atom("stats")>;
// -> GrafanaAgent selector -> root (request): why each member is in or out, as JSON.
using explain_atom = caf::atom_constant<caf::atom("explain")>;
// GrafanaAgent selector -> writer: a GrafanaAgent was deleted (the event carries its uid).
using gone_atom = caf::atom_constant<caf::atom("gone")>;
// writer internal: the owner GrafanaAgent was re-read.
using owner_atom = caf::atom_constant<caf::atom("owner")>;
// writer internal: a status patch answered (its tag, whether it succeeded).
using status_atom = caf::atom_constant<caf::atom("status")>;
// member selector -> journal: the ConfigMaps to redact as secrets.
using redact_atom = caf::atom_constant<caf::atom("redact")>;
// journal internal: durability point (flush/fsync).
using flush_atom = caf::atom_constant<caf::atom("flush")>;
// member selector internal: a referenced Secret/ConfigMap's grace period is over.
using expire_atom = caf::atom_constant<caf::atom("expire")>;
// controller -> member selector: the journal to send expiries and redactions to.
using journal_atom = caf::atom_constant<caf::atom("journal")>;
// An allocator input: unstamped from a source (or a reallocate request) to
// the allocation journal, stamped from the journal to the allocation actor.
using input_atom = caf::atom_constant<caf::atom("input")>;
// The allocation actor's current assignment, for tests and debugging.
using assignment_atom = caf::atom_constant<caf::atom("assignment")>;
// SIGHUP -> the allocator's config file watch: read the file now.
using reload_atom = caf::atom_constant<caf::atom("reload")>;
// The allocator's wanted sources, to the sources actor.
using sources_atom = caf::atom_constant<caf::atom("sources")>;
// HTTP handler -> SD aggregator (request): the merged integrations targets,
// of every GrafanaAgent ("") or of one ("NAMESPACE/NAME").
using poll_atom = caf::atom_constant<caf::atom("poll")>;
// SD aggregator internal: one pod's answer to the fan-out in flight, and
// the deadline of fan-out N (the pods' timeout after it started).
using answer_atom = caf::atom_constant<caf::atom("answer")>;
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;

// status.bindings writer internal: a monitor's patch or re-read answered,
// a backoff for a monitor (or, with no name, its kind's CRD) elapsed, and
// the CRD of a monitor kind read.
using patched_atom = caf::atom_constant<caf::atom("patched")>;
using fetched_atom = caf::atom_constant<caf::atom("fetched")>;
using again_atom = caf::atom_constant<caf::atom("again")>;
using label_atom = caf::atom_constant<caf::atom("label")>;
using crd_atom = caf::atom_constant<caf::atom("crd")>;

// --- payloads --------------------------------------------------------------
using EventPtr = std::shared_ptr<const core::Event>;
using DeltaPtr = std::shared_ptr<const core::SubscriptionDelta>;
using SubscriptionsPtr = std::shared_ptr<const core::Subscriptions>;
using KeySet = std::shared_ptr<const std::set<model::Key>>;
using ResultPtr = std::shared_ptr<const k8s::Result>;  // an API call's outcome

using core::RootOutput;  // what a root hands the writer after each reconcile
using core::RootOutputPtr;
using core::RootVerdictsPtr;

struct SelectorStats {
  std::uint64_t events = 0, deliveries = 0, roots = 0, examined = 0;
};

using core::BindingsStats;
using core::KubeletStats;
using core::WriterStats;

using InputPtr = allocation::runtime::InputPtr;
using AssignmentPtr = std::shared_ptr<const allocation::runtime::Assignment>;
using SdAnswerPtr = std::shared_ptr<const SdAnswer>;
using PodAnswerPtr = std::shared_ptr<const sd::PodAnswer>;
struct SdStats {
  std::uint64_t fanouts = 0, polls = 0, served_fresh = 0, waited = 0;
  std::size_t pods = 0;
};

using WatchSourcesPtr = std::shared_ptr<const std::vector<allocation::runtime::WatchSource>>;
using HttpSdSourcesPtr = std::shared_ptr<const std::vector<allocation::runtime::HttpSdSource>>;
using FileSdSourcesPtr = std::shared_ptr<const std::vector<allocation::runtime::FileSdSource>>;

// --- interfaces ------------------------------------------------------------
using caf::reacts_to;
using caf::replies_to;

using journal_actor = caf::typed_actor<reacts_to<ingest_atom, std::string, core::EventType, core::ObjectPtr>,
                                       reacts_to<redact_atom, KeySet>, reacts_to<flush_atom>, reacts_to<synced_atom>,
                                       replies_to<stats_atom>::with<std::uint64_t>>;

// What the journal forwards to: every selector is one.
using event_sink_actor = caf::typed_actor<reacts_to<event_atom, EventPtr>, reacts_to<synced_atom>>;

using writer_actor =
    caf::typed_actor<reacts_to<desired_atom, RootOutputPtr>, reacts_to<observed_atom, EventPtr, KeySet>,
                     reacts_to<gone_atom, EventPtr>, reacts_to<synced_atom>, reacts_to<leader_atom, bool>,
                     reacts_to<done_atom, core::RootKey, std::uint64_t, ResultPtr>,
                     reacts_to<reread_atom, core::RootKey, core::Identity, ResultPtr>,
                     reacts_to<owner_atom, core::RootKey, std::string, ResultPtr>,
                     reacts_to<status_atom, core::RootKey, std::uint64_t, bool>, reacts_to<retry_atom, core::RootKey>,
                     replies_to<stats_atom>::with<WriterStats>>;

using root_actor =
    caf::typed_actor<reacts_to<routed_atom, EventPtr, bool>, reacts_to<absorb_atom, DeltaPtr>, reacts_to<synced_atom>,
                     reacts_to<tick_atom>, replies_to<explain_atom, core::RootKey>::with<std::string>>;

// One per member kind (and one for the owned workloads): routes events to
// the roots subscribed to them.
using member_selector_actor =
    event_sink_actor::extend<reacts_to<journal_atom, journal_actor>, reacts_to<expire_atom, EventPtr>,
                             replies_to<subscribe_atom, core::RootKey, SubscriptionsPtr>::with<DeltaPtr, std::uint64_t>,
                             replies_to<stats_atom>::with<SelectorStats>>;

// Starts and stops one root per GrafanaAgent.
using agent_selector_actor = event_sink_actor::extend<replies_to<explain_atom, core::RootKey>::with<std::string>,
                                                      replies_to<stats_atom>::with<SelectorStats>>;

// What the elector tells leadership to besides the writer.
using leader_sink_actor = caf::typed_actor<reacts_to<leader_atom, bool>>;

// Keeps the leader label on this replica's Pod (--leader-pod-label): the
// elector's leadership in, the answers of its own API calls back.
using leader_label_actor = leader_sink_actor::extend<reacts_to<label_atom, int, ResultPtr>, reacts_to<retry_atom>>;

using elector_actor = caf::typed_actor<reacts_to<tick_atom>, reacts_to<lease_atom, ResultPtr>,
                                       reacts_to<wrote_atom, ResultPtr>, reacts_to<released_atom, ResultPtr>,
                                       replies_to<release_atom>::with<bool>, replies_to<stats_atom>::with<bool>>;

// The target allocator: inputs reach the journal, which stamps and records
// them and forwards them, in order, to the allocation actor.
using allocation_journal_actor =
    caf::typed_actor<reacts_to<input_atom, InputPtr>, replies_to<stats_atom>::with<std::uint64_t>>;
using allocation_actor =
    caf::typed_actor<reacts_to<input_atom, InputPtr>, replies_to<assignment_atom>::with<std::uint64_t, AssignmentPtr>>;
// Polls one http_sd URL: each tick is one GET, then the next tick is set.
using http_sd_poller_actor = caf::typed_actor<reacts_to<tick_atom>>;
// Polls files (the config file, file_sd_configs files): a tick per interval,
// and reload_atom for a check now.
using file_watch_actor = caf::typed_actor<reacts_to<tick_atom>, reacts_to<reload_atom>>;
// Runs the watches, http_sd polls and file_sd reads the allocation state asks for.
using sources_actor = caf::typed_actor<reacts_to<sources_atom, WatchSourcesPtr, HttpSdSourcesPtr, FileSdSourcesPtr>>;

// The integrations SD aggregator: Endpoints events from the journal keep
// each GrafanaAgent's pods; a poll is answered from the last merge while it
// is fresh, or after one shared fan-out over every pod.
using sd_actor = event_sink_actor::extend<replies_to<poll_atom, std::string>::with<SdAnswerPtr>,
                                          reacts_to<answer_atom, PodAnswerPtr>, reacts_to<deadline_atom, std::uint64_t>,
                                          replies_to<stats_atom>::with<SdStats>>;

// The kubelet Service controller: journaled Node events and the events of
// its own objects in, the Service, Endpoints and EndpointSlices out; only
// while leading. Answers and timers come back as the writer's do, keyed by
// the Service's namespace and name.
using kubelet_actor =
    event_sink_actor::extend<reacts_to<leader_atom, bool>,
                             reacts_to<done_atom, core::RootKey, std::uint64_t, ResultPtr>,
                             reacts_to<reread_atom, core::RootKey, core::Identity, ResultPtr>,
                             reacts_to<retry_atom, core::RootKey>, replies_to<stats_atom>::with<KubeletStats>>;

// The status.bindings writer (issue 19): roots' verdicts (taken out of the
// outputs the writer gets), journaled monitor and GrafanaAgent events,
// leadership.
using bindings_actor =
    event_sink_actor::extend<reacts_to<verdicts_atom, RootVerdictsPtr>, reacts_to<leader_atom, bool>,
                             reacts_to<patched_atom, core::MonitorId, ResultPtr>,
                             reacts_to<again_atom, core::MonitorId>, reacts_to<crd_atom, std::string, ResultPtr>,
                             replies_to<stats_atom>::with<BindingsStats>>;

}  // namespace actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::EventPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::InputPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::SdAnswerPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::PodAnswerPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::SdStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::AssignmentPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::WatchSourcesPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::HttpSdSourcesPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::FileSdSourcesPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::DeltaPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::SubscriptionsPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::KeySet)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::RootOutputPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::RootVerdictsPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::ResultPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::SelectorStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::WriterStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::KubeletStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::BindingsStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::MonitorId)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::ObjectPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::EventType)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::RootKey)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::Identity)
