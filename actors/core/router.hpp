// The routing layer in one place: a SelectorIndex per member kind, a name
// index for Secrets and ConfigMaps, and the Namespace labels every
// namespace selector reads. route(event) says which roots must see an
// event; set_subscriptions() replaces a root's subscriptions wholesale and
// says which stored objects the root gains or loses, so a root that starts
// selecting something receives its current state even if the object's last
// event was routed before the subscription existed.
// A root holds the Namespace of every namespace where it holds a member (a
// selected kind) and no other: its render reads Namespace labels only to
// evaluate its members' namespaces. So a Namespace event goes only to the
// roots holding members there, and a root that gains its first member of a
// kind in a namespace is handed that Namespace with it (`attach`,
// SubscriptionDelta::namespaces); the root drops a Namespace once it holds
// no member there.
// Contract: deterministic; routing examines only candidate subscriptions
// (examined() reports how many); Namespace events mark dirty only the
// roots whose namespace-selector result changes for some member, and go
// quietly to the other roots holding members there. Objects owned by a
// GrafanaAgent are reported in `owners`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/core/selector_index.hpp"

namespace actors::core {

struct SubscriptionDelta {
  std::vector<std::pair<std::string, ObjectPtr>> gained;  // kind, current object
  std::vector<std::pair<std::string, model::Key>> lost;   // kind, key
  // The last event of each Namespace where `gained` holds the root's first
  // member of a kind; its seq orders it against the same Namespace's
  // events from other selectors.
  std::vector<Event> namespaces;
  bool empty() const { return gained.empty() && lost.empty() && namespaces.empty(); }
};

struct Routing {
  std::set<RootKey> roots;          // deliver and mark dirty
  std::set<RootKey> dropped;        // of `roots`: selected the old version only; they get `as_deleted`
  std::optional<Event> as_deleted;  // the event as a deletion, when `dropped` is not empty
  std::set<RootKey> owners;         // the object is owned by these roots (writer drift)
  std::set<RootKey> quiet;          // a Namespace: the other roots holding members there; deliver quietly
  // A member event: the roots (of `roots`) that hold nothing of its kind in
  // its namespace yet, and the last event of that Namespace, which they
  // receive quietly before the member (no Namespace object: nothing to send).
  std::set<RootKey> attach;
  std::optional<Event> ns_event;
  // A Namespace relabel: members each affected root must add or forget
  // (every key here is also in `roots`).
  std::map<RootKey, SubscriptionDelta> deltas;
};

// A root's references of one kind, shared with the subscriptions they came
// from (held per root, they would otherwise be a copy of its whole set).
using SharedKeys = std::shared_ptr<const std::set<model::Key>>;

// Secrets or ConfigMaps by name, and which roots reference each one.
class NameIndex {
 public:
  void route(const Event& e, std::set<RootKey>& out);
  KindDelta set_references(const RootKey& root, SharedKeys refs);  // null: none
  void remove_root(const RootKey& root) { set_references(root, nullptr); }
  std::set<model::Key> referenced() const;
  std::size_t size() const { return objects_; }  // objects stored
  std::uint64_t examined() const { return examined_; }
  void reset_examined() { examined_ = 0; }

 private:
  // One entry per name that an object has or a root references, or both
  // (one map node for the two: most objects here are referenced).
  struct Entry {
    ObjectPtr object;  // null: referenced, not there
    // Who references it: keys of by_root_ (map nodes do not move), not
    // copies of them; most objects have one referencing root.
    std::vector<const RootKey*> roots;
  };
  std::map<model::Key, Entry> entries_;
  std::size_t objects_ = 0;
  std::map<RootKey, SharedKeys> by_root_;  // never null or empty
  std::uint64_t examined_ = 0;
};

// The member kinds routed by label selectors.
const std::vector<std::string>& selected_kinds();
// The GrafanaAgent owning `obj` through an ownerReference, if any.
std::optional<RootKey> owner_root(const model::Value& obj);

// What an event does to the set of roots: a GrafanaAgent event ensures its
// root exists, its deletion stops it; other kinds leave the set alone. The
// GrafanaAgent selector actor and the replay Pipeline both follow this.
struct RootLifecycle {
  enum class Action { none, ensure, stop };
  Action action = Action::none;
  RootKey key;
};
RootLifecycle root_lifecycle(const Event& e);

class Router {
 public:
  // Indexes every routed kind (the replay Pipeline).
  Router();
  // Indexes only `kinds` (plus Namespace labels): a selector actor owns a
  // few kinds, and indexing the others' subscriptions in every selector
  // multiplied their memory by the number of selectors.
  explicit Router(const std::set<std::string>& kinds);

  Routing route(const Event& e);
  SubscriptionDelta set_subscriptions(const RootKey& root, const std::shared_ptr<const Subscriptions>& subs);
  // The same with a copy of `subs`.
  SubscriptionDelta set_subscriptions(const RootKey& root, const Subscriptions& subs);
  void remove_root(const RootKey& root);

  const SelectorIndex& index(const std::string& kind) const { return selectors_.at(kind); }
  const NameIndex& secrets() const { return secrets_; }
  const NameIndex& config_maps() const { return config_maps_; }
  // ConfigMaps some root references (the journal redacts their values).
  std::set<model::Key> secret_config_maps() const { return config_maps_.referenced(); }
  std::uint64_t examined() const;
  void reset_examined();

 private:
  void route_namespace(const Event& e, Routing& out);
  void route_member(SelectorIndex& index, const Event& e, Routing& out);

  std::map<std::string, SelectorIndex> selectors_;
  NameIndex secrets_, config_maps_;
  bool index_secrets_ = true, index_config_maps_ = true;
  Namespaces namespaces_;
};

}  // namespace actors::core
