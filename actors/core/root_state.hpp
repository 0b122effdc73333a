// The state of one root actor (one GrafanaAgent): the objects routed to it,
// decoded into a model::Inventory restricted to what the root selects or
// references, the subscriptions the router has acknowledged, and the last
// rendered outputs. It holds a Namespace only while it holds a member
// (an object of a selected kind) in that namespace: the render reads
// Namespace labels only to evaluate members' namespaces.
// Contract: level-based and pure. apply() only updates the store and marks
// the root dirty (unless the object did not change meaningfully, or the
// caller delivers it quietly); reconcile() derives everything from the
// store: first the subscriptions (when they differ from the acknowledged
// ones it returns them instead of rendering, because the store may still
// lack objects the new subscriptions select), then model::render_agent.
// Equal stores give byte-identical desired objects.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "actors/core/bindings.hpp"
#include "actors/core/event.hpp"
#include "actors/core/router.hpp"
#include "actors/core/subscriptions.hpp"
#include "model/job_cache.hpp"
#include "model/render.hpp"

namespace actors::core {

using ObjectId = std::pair<std::string, model::Key>;  // kind, namespace/name

// A render's desired objects, sorted by kind, then name. Immutable and
// shared: the root keeps the last render's (a fallback for an object that
// grows too large) and the writer plans from the same vector, instead of a
// copy each (the assets and config Secrets are the largest objects a root
// renders).
using Desired = std::vector<model::Value>;
using DesiredPtr = std::shared_ptr<const Desired>;
// The one empty Desired, so a DesiredPtr is never null.
const DesiredPtr& no_desired();

// The one empty Subscriptions, so a RootState's are never null.
const std::shared_ptr<const Subscriptions>& no_subscriptions();

struct RootState {
  RootKey root;
  // The raw objects behind `inventory` that it does not hold itself: it
  // holds monitors and Secrets (the kinds a root holds by the thousand) as
  // the very trees it was given, so they are not indexed twice
  // (held_object() reads both).
  std::map<ObjectId, ObjectPtr> other_objects;
  model::Inventory inventory;
  std::map<ObjectId, std::vector<model::Problem>> decode_problems;
  // Deleted Secrets/ConfigMaps still held (held_object) for their grace period
  // (value: the deletion event's time), until their grace expiry event.
  std::map<ObjectId, std::int64_t> tombstones;
  // Members held per namespace; a Namespace is dropped when its count ends.
  std::map<std::string, std::size_t> members_in;
  // Seq of the event behind each Namespace held (or deleted): several
  // selectors send Namespaces, so an older one arriving late is ignored.
  std::map<std::string, std::uint64_t> namespace_seq;
  // As acknowledged by the router; never null. Shared with the router's
  // Secret and ConfigMap indexes, which keep the references from it.
  std::shared_ptr<const Subscriptions> subscriptions = no_subscriptions();
  bool dirty = true;
  std::uint64_t last_seq = 0;
  // Outputs of the last render.
  DesiredPtr desired = no_desired();
  std::vector<model::Problem> problems;
  std::uint64_t rendered_seq = 0;
  std::uint64_t renders = 0;
  // Per-monitor scrape jobs as YAML text, so a render redoes only the
  // monitors an event touched (shared by copies of the state: entries are
  // keyed by content versions, so sharing cannot change an output).
  std::shared_ptr<model::JobCache> job_cache;
};

enum class Delivery { dirty, quiet };

// A Secret or ConfigMap DELETED event takes effect in two journaled steps:
// the deletion keeps the last known object as a tombstone (reported as a
// Problem), and a second DELETED carrying this annotation, which the
// selector ingests once the grace period has passed, drops it. Both are
// ordinary journal events, so a replay folds to the same outputs whatever
// grace period it is run with.
inline constexpr const char* kGraceExpiredAnnotation = "agent-operator.grafana.com/grace-expired";
bool is_grace_expiry(const model::Value& obj);
// `obj` marked as the grace expiry of its own deletion.
model::Value grace_expiry(model::Value obj);

RootState make_root(const RootKey& root);

// How the store names an object: its kind and namespace/name, the
// namespace defaulted as the inventory defaults it ("default" for a
// namespaced kind), so the two never key one object apart.
ObjectId object_id(const std::string& kind, const model::Key& key);
// The raw object held for `id`, or nullptr.
const ObjectPtr* held_object(const RootState& s, const ObjectId& id);

// Updates the store with `e`. Delivery::quiet stores without marking dirty
// (Namespace events the router did not flag for this root). A Namespace
// event older than the one the root holds is ignored.
void apply(RootState& s, const Event& e, Delivery d = Delivery::dirty);
RootState apply(RootState s, const Event& e);
// Applies the router's answer to subscriptions returned by reconcile().
void acknowledge(RootState& s, Subscriptions subs, const SubscriptionDelta& delta);
void acknowledge(RootState& s, std::shared_ptr<const Subscriptions> subs, const SubscriptionDelta& delta);
// Takes the delta's Namespaces, then forgets and adds members as it says
// (a subscription change or a Namespace relabel); marks dirty.
void absorb(RootState& s, const SubscriptionDelta& delta);

// How many members the hierarchy selects (a member selected by two
// instances counts twice, as it is scraped twice).
struct HierarchyCounts {
  std::size_t metrics_instances = 0, service_monitors = 0, pod_monitors = 0, probes = 0;
  std::size_t logs_instances = 0, pod_logs = 0, integrations = 0;
  std::size_t metrics_integrations = 0, integration_monitors = 0;
  friend bool operator==(const HierarchyCounts&, const HierarchyCounts&) = default;
};
HierarchyCounts count_members(const model::Hierarchy& h);

struct Effects {
  std::optional<Subscriptions> subscribe;  // set: hand to the router, acknowledge, reconcile again
  bool rendered = false;
  bool root_present = true;  // false: the GrafanaAgent is gone; desired is empty
  // false: the GrafanaAgent does not decode; desired is empty but the writer
  // must not prune (an invalid edit must not delete running workloads).
  bool root_valid = true;
  bool paused = false;  // spec.paused: the writer must neither apply nor prune
  HierarchyCounts counts;
  DesiredPtr desired = no_desired();
  std::vector<model::Problem> problems;  // render problems plus decode problems of routed objects
  // The root's verdict on each monitor it selects (status.bindings), when
  // rendered and valid.
  RootBindings bindings;
  // Objects the API server would refuse as too large and that have no last
  // good version to fall back on: not in `desired`, and the writer must not
  // prune what the cluster holds of them.
  std::vector<std::tuple<std::string, std::string, std::string>> held;  // kind, ns, name
  // shardingStrategy consistent: model::AgentRender::allocator_config, and
  // the ServiceAccount whose tokens may read the agent's targets. Empty
  // otherwise (and when not rendered).
  std::string allocator_config, service_account;
};

Effects reconcile(RootState& s, const model::RenderOptions& opts);

// Equal up to metadata noise (resourceVersion, managedFields, generation)
// and status: such changes never change what a root renders.
bool same_content(const model::Value& a, const model::Value& b);

}  // namespace actors::core
