// The writer's state machine, as pure functions: per root it keeps the
// latest desired objects and the owned objects observed, plans one batch of
// API calls at a time (core::plan_writes), and decides what to do with each
// answer: next call, re-read and replan (409/404/410), retry after a backoff
// (5xx, 429, timeouts), or stop and report (terminal). It also decides the
// GrafanaAgent status patch and the Warning Event after each batch, and
// when an owned object vanished, to confirm its owner before restoring it.
// Each function takes the state and one input and returns the effects for
// the shell (actors/writer_actor.cpp) to perform; the shell does no
// deciding. Answers are tagged with their batch, so late answers of an
// abandoned batch are ignored.
// Contract: no effect writes before the initial sync, while not the leader,
// or once the fence says the last Lease renew is older than the renew
// deadline; a paused or invalid root is never pruned. Deterministic for a
// given input sequence and clock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/core/event.hpp"
#include "actors/core/lease_fence.hpp"
#include "actors/core/root_state.hpp"
#include "actors/core/writer_plan.hpp"
#include "k8s/client/retry.hpp"
#include "model/log.hpp"

namespace actors::core {

// What a root hands the writer after each reconcile.
struct RootOutput {
  RootKey root;
  std::string uid;  // the GrafanaAgent's metadata.uid
  std::int64_t generation = 0;
  std::uint64_t seq = 0;  // the journal seq this output reflects
  Effects effects;
  model::Value previous_status;  // the GrafanaAgent's .status as last observed
  double render_seconds = 0;     // how long reconcile() took
};
using RootOutputPtr = std::shared_ptr<const RootOutput>;

struct WriterStats {
  std::uint64_t plans = 0, writes = 0, skipped = 0, errors = 0, status_writes = 0, events = 0;
  std::uint64_t fenced = 0;  // writes withheld because the Lease renew was stale
  bool synced = false, leader = false;
  std::size_t roots = 0, in_flight = 0, retrying = 0;  // retrying: a backoff is pending
};

// An API answer: its status, error class (k8s::classify), body and error text.
struct CallAnswer {
  int status = 0;  // HTTP status, 0 = transport error
  k8s::ErrorClass error_class = k8s::ErrorClass::ok;
  std::string body, error;
};

// What one reconcile came to, for controller_runtime_reconcile_total: a
// reconcile is a root's output and the writes it leads to, settled once per
// output (or per drift repair) by the leader. Spec errors are terminal and
// reported on the status, so the reconcile itself succeeded; a conflict
// re-reads and replans (requeue); a failed API write is an error.
enum class ReconcileOutcome { success, requeue, error };
const char* outcome_name(ReconcileOutcome o);

struct WriterEffect {
  enum class Type {
    call,           // perform `action` (create, update or remove) for batch `batch`
    reread,         // GET `id`, answer with on_reread
    confirm_owner,  // GET the GrafanaAgent, answer with on_owner (with `uid`)
    retry,          // on_retry after `delay` (the backoff for `attempt`)
    status_patch,   // merge-patch `body` into the GrafanaAgent's status subresource; answer with on_status (`batch`)
    event,          // create the Event `body`
    wrote,          // metrics: `action` (without its object) answered with `status`
    log,            // `entry`
    reconciled,     // metrics: a reconcile ended with `outcome`; its render took `seconds`
  };
  Type type;
  RootKey root;
  std::uint64_t batch = 0;
  unsigned attempt = 0;
  std::chrono::milliseconds delay{0};
  int status = 0;
  Action action{};
  Identity id;
  model::Value body;
  model::LogEntry entry;
  std::string uid;  // confirm_owner: the GrafanaAgent generation whose existence is asked
  ReconcileOutcome outcome = ReconcileOutcome::success;
  double seconds = 0;
};
using WriterEffects = std::vector<WriterEffect>;

struct WriterSettings {
  bool leader = true;  // false: wait for on_leader
  std::size_t sync_sources = 1;
  bool write_status = true, emit_events = true;
  std::shared_ptr<LeaseFence> fence;         // null: no fencing
  std::function<std::string()> now_rfc3339;  // status and Event times
  k8s::Backoff backoff;                      // for retry_call answers and repeated conflicts
};

struct RootWrites {
  RootOutputPtr out;
  std::vector<std::string> hashes;  // config_hash of each of out's desired objects
  ObservedObjects observed;         // owned objects, as last seen
  // Each object as our last write left it (server fields stripped): the
  // planner's drift baseline, server defaults included.
  WrittenObjects written;
  std::map<Identity, std::uint64_t> written_rv;  // events older than our write are ignored
  std::vector<Action> queue;                     // the rest of the batch in flight
  std::uint64_t batch = 0;                       // tags answers of the current batch
  bool in_flight = false, replan = false, retry_scheduled = false;
  bool backoff_after_reread = false;  // many conflicts in a row: replan after a backoff
  bool reconcile_open = false;        // a new output or repair whose outcome is not yet counted
  unsigned attempt = 0;
  std::string write_error;
  // The status we last wrote or, while standing by, the one the leader
  // wrote as last observed (the base of the next report).
  model::Value written_status;
  std::string last_event;  // reason+message of the last Event emitted
  // One status patch in flight at a time: two could land in either order
  // and leave an older status last. A report while one is in flight waits
  // and is computed afresh when the answer comes.
  std::uint64_t status_tag = 0;  // the patch in flight (0: none); answers of others are ignored
  bool status_waiting = false;   // a report came while the patch was in flight
};

struct WriterState {
  WriterSettings settings;
  std::map<RootKey, RootWrites> roots;
  std::set<std::string> deleted_uids;  // outputs of deleted agents still in flight are ignored
  std::uint64_t batches = 0;           // the last batch tag handed out (unique across roots and generations)
  bool synced = false, leader = true;
  std::size_t synced_seen = 0;
  WriterStats stats;
};

WriterState make_writer(WriterSettings settings);

WriterEffects on_desired(WriterState& st, RootOutputPtr out);
// An owned object changed, as the informer saw it, for these owner roots.
// A GrafanaAgent event (its own root as the owner) only tells the status a
// leader wrote, which a standby takes as the base of its next report.
WriterEffects on_observed(WriterState& st, const Event& e, const std::set<RootKey>& owners);
WriterEffects on_gone(WriterState& st, const Event& e);
WriterEffects on_synced(WriterState& st);
WriterEffects on_leader(WriterState& st, bool leading);
WriterEffects on_call_done(WriterState& st, const RootKey& root, std::uint64_t batch, const CallAnswer& a);
WriterEffects on_reread(WriterState& st, const RootKey& root, const Identity& id, const CallAnswer& a);
// The answer to confirm_owner for generation `uid`. It judges only that
// generation: a root re-created since (a newer uid) is left alone.
WriterEffects on_owner(WriterState& st, const RootKey& root, const std::string& uid, const CallAnswer& a);
// The answer to status_patch `tag`: on success a report that waited is made
// now; on failure the status is patched again after a backoff.
WriterEffects on_status(WriterState& st, const RootKey& root, std::uint64_t tag, bool ok);
WriterEffects on_retry(WriterState& st, const RootKey& root);
WriterStats writer_stats(const WriterState& st);

}  // namespace actors::core
