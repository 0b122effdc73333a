// The messages the controller's actors exchange (CAF 0.17: atom_constant
// tags plus payloads). Payloads are shared immutable pointers, so one event
// fans out to many roots without copying; they never leave the process, so
// they are allowed as unsafe (non-serializable) message types.
// Contract: handlers never mutate a payload they received.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/core/event.hpp"
#include "actors/core/root_state.hpp"
#include "actors/core/router.hpp"
#include "caf/all.hpp"
#include "k8s/client/transport.hpp"

namespace actors {

// informer -> journal: a watched object changed.
using ingest_atom = caf::atom_constant<caf::atom("ingest")>;
// journal -> router -> roots: a journaled event.
using event_atom = caf::atom_constant<caf::atom("event")>;
// root -> router (request): replace my subscriptions; reply: the delta.
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
// router -> root: members a Namespace relabel adds or removes.
using absorb_atom = caf::atom_constant<caf::atom("absorb")>;
// root self-timer: the debounce deadline passed.
using tick_atom = caf::atom_constant<caf::atom("tick")>;
// root -> writer: the root's latest reconcile outcome.
using desired_atom = caf::atom_constant<caf::atom("desired")>;
// router -> writer: an owned object changed (drift and write confirmation).
using observed_atom = caf::atom_constant<caf::atom("observed")>;
// controller -> writer: every owned kind's informer has synced.
using synced_atom = caf::atom_constant<caf::atom("synced")>;
// writer internal: an API call finished / a backoff elapsed.
using done_atom = caf::atom_constant<caf::atom("done")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
// leader elector -> writer: leadership gained (true) or lost (false).
using leader_atom = caf::atom_constant<caf::atom("leader")>;
// controller -> elector (request, on shutdown): stop writing, then hand the
// Lease back; the reply says whether a release was written.
using release_atom = caf::atom_constant<caf::atom("release")>;
// any -> journal/router/writer (request): a snapshot for tests and views.
using stats_atom = caf::atom_constant<caf::atom("stats")>;
// -> router -> root (request): why each member is in or out, as JSON.
using explain_atom = caf::atom_constant<caf::atom("explain")>;
// router -> writer: a GrafanaAgent was deleted (the event carries its uid).
using gone_atom = caf::atom_constant<caf::atom("gone")>;
// writer internal: the owner GrafanaAgent was re-read.
using owner_atom = caf::atom_constant<caf::atom("owner")>;
// writer internal: a status patch failed.
using status_atom = caf::atom_constant<caf::atom("status")>;
// controller -> journal: update the ConfigMaps redacted as secrets.
using redact_atom = caf::atom_constant<caf::atom("redact")>;
// -> journal: durability point (flush/fsync).
using flush_atom = caf::atom_constant<caf::atom("flush")>;
// selector -> itself: a referenced Secret/ConfigMap's grace period is over.
using expire_atom = caf::atom_constant<caf::atom("expire")>;

using EventPtr = std::shared_ptr<const core::Event>;
using DeltaPtr = std::shared_ptr<const core::SubscriptionDelta>;
using SubscriptionsPtr = std::shared_ptr<const core::Subscriptions>;
using KeySet = std::shared_ptr<const std::set<model::Key>>;
using ResultPtr = std::shared_ptr<const k8s::Result>;  // an API call's outcome

// What a root hands the writer after each reconcile.
struct RootOutput {
  core::RootKey root;
  std::string uid;  // the GrafanaAgent's metadata.uid
  std::int64_t generation = 0;
  std::uint64_t seq = 0;  // the journal seq this output reflects
  core::Effects effects;
  model::Value previous_status;  // the GrafanaAgent's .status as last observed
  double render_seconds = 0;     // how long reconcile() took
};
using RootOutputPtr = std::shared_ptr<const RootOutput>;

}  // namespace actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::EventPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::DeltaPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::SubscriptionsPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::KeySet)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::RootOutputPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::ResultPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::ObjectPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::EventType)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::core::RootKey)
