// The leader label: while this replica leads, its own Pod carries a label
// (--leader-pod-label) so a Service can select the leader alone (the
// operator's targets endpoint: only the leader's allocation is served).
// Pure decisions; actors/leader_label_actor.cpp makes the API calls.
// Contract: at most one call in flight. The own Pod's label follows the
// latest leadership (unknown at start, so a restarted container first
// clears what its previous life left); after gaining the lead, every other
// Pod of the namespace that still carries the label is cleared (a leader
// that died could not). A failed call is retried after a delay; a terminal
// one (the Pod does not exist, the label is refused) is reported once and
// not retried until leadership changes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace actors::core {

enum class LabelCall { none, label_own, unlabel_own, list_labelled };

struct LeaderLabelState {
  bool leading = false;
  std::optional<bool> labelled;  // the own Pod's label as last written; nullopt: not known
  bool sweep = false;            // other Pods may still carry the label
  bool busy = false;             // a call is in flight
  bool retry_scheduled = false;
  bool stopped = false;  // a terminal failure; resumes when leadership changes
};

// Leadership as the elector reports it (every renew repeats `true`).
void label_on_leader(LeaderLabelState& s, bool leading);
// The next call to make, marking it in flight; none when nothing is due.
LabelCall label_next(LeaderLabelState& s);

enum class LabelAnswer { ok, retry, terminal };
// The answer to the call in flight; on `retry` the shell schedules
// label_on_retry after a delay.
void label_on_answer(LeaderLabelState& s, LabelCall call, LabelAnswer a);
void label_on_retry(LeaderLabelState& s);

// The merge patch that sets (true) or removes (false) `key` on a Pod.
std::string label_patch(const std::string& key, bool set);
// The Pods of a List answer, other than `own`, that carry `key`.
std::vector<std::string> labelled_others(const std::string& list_json, const std::string& key, const std::string& own);

}  // namespace actors::core
