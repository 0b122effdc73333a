// SelectorIndex against a scan: random objects, relabels, deletions,
// Namespace relabels and subscription changes, where every subscription
// change must gain and lose exactly what a scan of every stored object (in
// key order) would, whichever path (label buckets or namespace scan) the
// index takes.
#include <catch2/catch.hpp>

#include <random>

#include "actors/core/selector_index.hpp"

namespace {

namespace core = actors::core;

struct Reference {
  std::map<model::Key, model::Value> labels;  // stored objects' metadata.labels (null: none)
  std::map<core::RootKey, std::vector<core::SelectorSubscription>> subs;

  static bool any_selects(const std::vector<core::SelectorSubscription>& subs, const model::Key& key,
                          const model::Value& labels, const core::Namespaces& ns) {
    auto it = ns.find(key.first);
    const model::Value* nl = it == ns.end() ? nullptr : it->second.labels;
    const model::Value* l = labels.is_null() ? nullptr : &labels;
    for (const auto& s : subs)
      if (s.selector.matches_labels_value(l) && s.selects_namespace(key.first, nl)) return true;
    return false;
  }

  struct Delta {
    std::vector<model::Key> gained, lost;
    std::set<std::string> first_in;
  };

  // What replacing `root`'s subscriptions by `next` gains and loses, by scan.
  Delta replace(const core::RootKey& root, const std::vector<core::SelectorSubscription>& next,
                const core::Namespaces& ns) {
    const auto& prev = subs[root];
    std::map<std::string, int> held;
    for (const auto& [key, l] : labels)
      if (any_selects(prev, key, l, ns)) ++held[key.first];
    Delta d;
    for (const auto& [key, l] : labels) {
      bool was = any_selects(prev, key, l, ns), is = any_selects(next, key, l, ns);
      if (is && !was && ++held[key.first] == 1) d.first_in.insert(key.first);
      if (is && !was) d.gained.push_back(key);
      if (was && !is) {
        --held[key.first];
        d.lost.push_back(key);
      }
    }
    subs[root] = next;
    return d;
  }
};

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  const char* key() { return kKeys[pick(3)]; }
  const char* value() { return kValues[pick(3)]; }
  std::string ns() { return kNamespaces[pick(4)]; }

  model::Value labels() {
    if (pick(8) == 0) return model::Value();
    model::Value l = model::Value::object();
    for (const char* k : kKeys)
      if (pick(2)) l.set(k, pick(12) == 0 ? model::Value(7) : model::Value(value()));
    return l;
  }

  model::LabelSelector selector() {
    model::LabelSelector s;
    switch (pick(6)) {
      case 0:
        break;  // empty: selects everything
      case 1:
        s.match_expressions.push_back({key(), "In", {value(), value()}});
        break;
      case 2:
        s.match_expressions.push_back({key(), pick(2) ? "NotIn" : "Exists", {}});
        break;
      default:
        s.match_labels[key()] = value();
        if (pick(3) == 0) s.match_labels[key()] = value();
        if (pick(3) == 0) s.match_expressions.push_back({key(), "In", {value()}});
    }
    for (auto& r : s.match_expressions)
      if (r.op == "NotIn") r.values = {value()};
    return s;
  }

  core::SelectorSubscription subscription() {
    core::SelectorSubscription s{"ServiceMonitor", selector(), std::nullopt, ns()};
    if (std::size_t n = pick(3); n == 1)
      s.namespace_selector = model::LabelSelector{};
    else if (n == 2)
      s.namespace_selector = selector();
    return s;
  }

  std::vector<core::SelectorSubscription> subscriptions() {
    std::vector<core::SelectorSubscription> out;
    for (std::size_t n = pick(4); n > 0; --n) out.push_back(subscription());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.canonical() < b.canonical(); });
    auto same = [](const auto& a, const auto& b) { return a.canonical() == b.canonical(); };
    out.erase(std::unique(out.begin(), out.end(), same), out.end());
    return out;
  }

 private:
  static constexpr const char* kKeys[] = {"team", "app", "tier"};
  static constexpr const char* kValues[] = {"x", "y", "z"};
  static constexpr const char* kNamespaces[] = {"a", "b", "c", "ghost"};  // "ghost": no Namespace object
  std::mt19937 rng_;
};

core::Event monitor_event(std::uint64_t seq, core::EventType type, const model::Key& key, model::Value labels) {
  model::Value meta = model::Value::obj({{"name", key.second}, {"namespace", key.first}});
  if (!labels.is_null()) meta.set("labels", std::move(labels));
  return core::make_event(
      seq, 0, type,
      model::Value::obj(
          {{"apiVersion", "monitoring.coreos.com/v1"}, {"kind", "ServiceMonitor"}, {"metadata", std::move(meta)}}));
}

core::NamespaceEntry namespace_with_team(std::uint64_t seq, const std::string& name, const std::string& team) {
  return core::namespace_entry(core::make_event(
      seq, 0, core::EventType::modified,
      model::Value::obj(
          {{"apiVersion", "v1"},
           {"kind", "Namespace"},
           {"metadata", model::Value::obj({{"name", name}, {"labels", model::Value::obj({{"team", team}})}})}})));
}

std::vector<model::Key> keys_of(const std::vector<core::ObjectPtr>& objects) {
  std::vector<model::Key> out;
  for (const auto& o : objects) out.push_back(model::object_key(*o));
  return out;
}

}  // namespace

TEST_CASE("SelectorIndex: every subscription change equals a scan of every object", "[actors][routing]") {
  for (unsigned seed = 1; seed <= 12; ++seed) {
    Generator g(seed);
    core::SelectorIndex index("ServiceMonitor");
    Reference ref;
    core::Namespaces ns;
    for (const char* name : {"a", "b", "c"}) ns[name] = namespace_with_team(0, name, g.value());
    const std::vector<core::RootKey> roots = {{"a", "r0"}, {"b", "r1"}, {"c", "r2"}, {"a", "r3"}};
    std::uint64_t seq = 0;
    for (int step = 0; step < 1500; ++step) {
      std::size_t op = g.pick(10);
      if (op < 5) {  // add or relabel
        model::Key key{g.ns(), "m" + std::to_string(g.pick(12))};
        model::Value l = g.labels();
        core::KindRouting out;
        auto type = ref.labels.count(key) ? core::EventType::modified : core::EventType::added;
        index.route(monitor_event(++seq, type, key, l), ns, out);
        ref.labels[key] = std::move(l);
      } else if (op < 7) {  // delete
        model::Key key{g.ns(), "m" + std::to_string(g.pick(12))};
        if (!ref.labels.count(key)) continue;
        core::KindRouting out;
        index.route(monitor_event(++seq, core::EventType::deleted, key, ref.labels[key]), ns, out);
        ref.labels.erase(key);
      } else if (op < 8) {  // a Namespace relabel
        std::string name(1, "abc"[g.pick(3)]);
        core::NamespaceEntry before = ns[name];
        ns[name] = namespace_with_team(++seq, name, g.value());
        std::map<core::RootKey, core::KindDelta> out;
        index.namespace_changed(name, before.labels, ns[name].labels, out);
      } else {
        const core::RootKey& root = roots[g.pick(roots.size())];
        auto next = g.subscriptions();
        Reference::Delta want = ref.replace(root, next, ns);
        core::KindDelta got = index.set_subscriptions(root, next, ns);
        INFO("seed " << seed << " step " << step);
        CHECK(keys_of(got.gained) == want.gained);
        CHECK(got.lost == want.lost);
        CHECK(got.first_in == want.first_in);
      }
    }
  }
}
