// Internal to the writer actor (writer_actor.cpp, writer_status.cpp): its
// state and the helpers the two files share.
#pragma once

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "actors/core/writer_plan.hpp"
#include "actors/writer_actor.hpp"

namespace actors::writer {

using ObjectKey = core::Identity;  // kind, ns, name
using actors::ResultPtr;

struct RootWrites {
  RootOutputPtr out;
  std::map<ObjectKey, model::Value> observed;  // owned objects, as last seen
  // Each object as our last write left it (server fields stripped): the
  // planner's drift baseline, server defaults included.
  std::map<ObjectKey, model::Value> written;
  std::map<ObjectKey, std::uint64_t> written_rv;  // events older than our write are ignored
  std::vector<core::Action> queue;                // the rest of the batch in flight
  std::uint64_t batch = 0;                        // tags completions of the current batch
  bool in_flight = false, replan = false, retry_scheduled = false;
  bool backoff_after_reread = false;  // many conflicts in a row: replan after a backoff
  unsigned attempt = 0;
  std::string write_error;
  model::Value written_status;  // the status we last wrote
  std::string last_event;       // reason+message of the last Event emitted
};

struct State {
  WriterConfig cfg;
  std::map<core::RootKey, RootWrites> roots;
  std::set<std::string> deleted_uids;  // outputs of deleted agents still in flight are ignored
  bool synced = false;
  std::size_t synced_seen = 0;
  bool leader = false;
  WriterStats stats;
};

using Actor = writer_actor::stateful_pointer<State>;

std::string describe(const std::string& kind, const std::string& ns, const std::string& name);
// False, and the writer stands down until leader_atom, when a fence is set
// and the last Lease renew is older than the renew deadline.
bool fence_holds(Actor self);
// After a batch: the status patch and, on failure, an Event.
void report_status(Actor self, const core::RootKey& key, RootWrites& rw);

}  // namespace actors::writer
