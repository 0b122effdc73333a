// The writer's decision, as a pure function: given the objects a root wants
// and the objects observed in the cluster, which API writes to make.
// Each object carries a hash annotation (SHA-256 of the canonical JSON of
// the desired object, without status and server-set metadata). An object
// whose hash matches is still compared field by field with its baseline:
// what our last write left (when the caller knows it) or else the desired
// object. A field of ours changed or removed is drift and planned as an
// update; fields others add are not. So a restarted operator repairs
// tampering and makes no writes when nothing changed.
// Updates carry the resourceVersion of the observed object they were
// planned from (a stale write fails with 409) and keep the labels and
// annotations others added.
// Contract: deterministic order: Secrets and ConfigMaps, then Services, then
// workloads, then prunes. Only objects owned by the root (managed-by label
// plus an ownerReference to the GrafanaAgent) are ever pruned. A change to
// an immutable field (StatefulSet selector, serviceName, volumeClaimTemplates,
// podManagementPolicy; Deployment/DaemonSet selector; Service clusterIP)
// becomes a recreate instead of an update the API server would reject.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "actors/core/selector_index.hpp"
#include "model/value.hpp"

namespace actors::core {

using Identity = std::tuple<std::string, std::string, std::string>;  // kind, ns, name

inline constexpr const char* kConfigHashAnnotation = "agent-operator.grafana.com/config-hash";

// Hex SHA-256 of the canonical (sorted-key) JSON of `obj` without status,
// server-set metadata and the hash annotation itself.
std::string config_hash(const model::Value& obj);
// `obj` with the hash annotation set.
model::Value with_config_hash(model::Value obj);
// `obj` with the hash annotation set to `hash` (its config_hash, known).
model::Value with_hash_annotation(model::Value obj, const std::string& hash);

// Owned objects as last seen, by identity. The pointers are the informer's
// own trees (or a parsed write answer until its echo comes), not copies.
using SharedObject = std::shared_ptr<const model::Value>;
using ObservedObjects = std::map<Identity, SharedObject>;

// Our last write of an object, the planner's drift baseline: the hash it
// carried and what the server answered, without server fields. When the
// server only added to what we sent (defaults), only the additions are kept
// (`extras`; null when it added nothing, as for most Secrets, the largest
// objects): the baseline is the desired object of `hash` plus them. Only an
// answer that changed or dropped something we sent is kept whole.
struct WrittenObject {
  std::string hash;
  model::Value answer;  // the whole answer, or null
  model::Value extras;  // what the answer added, or null
};
using WrittenObjects = std::map<Identity, WrittenObject>;
// Where others' labels and annotations live on the objects we write: an
// update keeps what others added there (update_body), and neither the
// baseline nor the record of a write counts it.
using FieldPath = std::span<const std::string_view>;
inline constexpr std::string_view kMetaLabels[] = {"metadata", "labels"};
inline constexpr std::string_view kMetaAnnotations[] = {"metadata", "annotations"};
inline constexpr std::string_view kTemplateLabels[] = {"spec", "template", "metadata", "labels"};
inline constexpr std::string_view kTemplateAnnotations[] = {"spec", "template", "metadata", "annotations"};
inline constexpr std::array<FieldPath, 4> kForeignKeyPaths = {kMetaLabels, kMetaAnnotations, kTemplateLabels,
                                                              kTemplateAnnotations};

// The record of a write whose answer was `answer` for the object `sent`.
// Additions to labels and annotations are others' and never baseline
// (update_body keeps them): they are not recorded.
WrittenObject written_record(const model::Value& answer, const model::Value& sent);
// Adds `extras` (written_record's) to `base`, member by member.
void apply_extras(model::Value& base, const model::Value& extras);
// Records a write's (or re-read's) answer as observed, unless the informer
// already delivered this version or a later one: its echo can come first,
// and it is the shared tree, where the answer is a copy.
void observe_answer(ObservedObjects& observed, const Identity& id, SharedObject answer);

enum class ActionType { create, update, recreate, remove };
const char* action_name(ActionType t);

struct Action {
  ActionType type;
  std::string kind, ns, name;
  model::Value object;  // desired (with hash) for create/update/recreate; observed for remove
  // Why, for logs: empty for a new object; "deleted by someone else" for
  // one we wrote before; the field for drift (drift_reason).
  std::string reason;
};

struct Plan {
  std::vector<Action> actions;
  std::size_t unchanged = 0;  // desired objects skipped because their hash matched
  bool empty() const { return actions.empty(); }
};

struct PlanInput {
  RootKey root;
  std::string root_uid;  // when set, ownerReferences must carry it
  const std::vector<model::Value>* desired = nullptr;
  const std::vector<model::Value>* observed = nullptr;  // owned kinds, as read from the API
  bool prune = true;                                    // false while the root is invalid: never delete on bad input
  // Each object as our last write in this process left it (the server's
  // answer without server fields); absent after a restart.
  const WrittenObjects* written = nullptr;
  // Objects withheld from `desired` (too large to write) that must not be
  // pruned either.
  const std::vector<Identity>* held = nullptr;
  // When set: config_hash of each of `desired` (same order), so a caller
  // that plans one desired set many times (the writer replans on every
  // echo of its own writes) hashes each object once.
  const std::vector<std::string>* hashes = nullptr;
  // When set, used instead of `observed`: the observed objects by identity,
  // so they are neither copied nor re-keyed for each plan.
  const ObservedObjects* observed_by_id = nullptr;
};

// config_hash of each of `desired`: PlanInput::hashes.
std::vector<std::string> config_hashes(const std::vector<model::Value>& desired);

Plan plan_writes(const PlanInput& in);

// Helpers the writer shares: an object's kind/namespace/name; and whether
// every field of `want` is present and equal in `have` (arrays element-wise
// and of equal length), i.e. the server or others may add fields but not
// change ours. Strings at a path: model/object_fields.hpp.
Identity identity(const model::Value& v);
bool covered(const model::Value& want, const model::Value& have);
// The first field path ("spec.replicas", "data[agent.yml]"-style dotted)
// of `want` that is missing or different in `have`; nullopt when covered.
std::optional<std::string> first_difference(const model::Value& want, const model::Value& have);
// The same, with both values (pointers into the arguments; `have` null
// when the field is missing there).
struct Difference {
  std::string path;
  const model::Value* want = nullptr;
  const model::Value* have = nullptr;
};
std::optional<Difference> find_difference(const model::Value& want, const model::Value& have);
// "drift: spec.replicas changed by someone else (want 1, have 7)", or
// "... removed by someone else". Values are shown only when short scalars
// outside Secrets, data, env, args, command and annotations, so no
// credential reaches a log; otherwise the path alone.
std::string drift_reason(const std::string& kind, const Difference& d);
// The object without status and server-maintained metadata.
model::Value without_server_fields(model::Value obj);
// metadata.resourceVersion as a number, to tell an informer event older
// than our own write: resourceVersions are opaque to clients, but every
// API server (and simcluster) issues increasing integers; 0 when it is not one.
std::uint64_t numeric_resource_version(const model::Value& obj);

// The managed-by label plus an ownerReference to the root GrafanaAgent.
bool owned_by(const model::Value& obj, const RootKey& root, const std::string& root_uid = "");
// The first immutable field path whose observed value the desired object
// would change, if any. Fields the server defaults (absent from desired)
// are not counted as changes.
std::optional<std::string> immutable_change(const model::Value& observed, const model::Value& desired);

}  // namespace actors::core
