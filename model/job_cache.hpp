// Memoised scrape jobs, so a root re-renders only the monitors an event
// touched. An entry is the YAML text of the jobs one ServiceMonitor,
// PodMonitor, Probe or IntegrationMonitor rendered to (a block sequence at indent 0, spliced
// into agent.yml by emit_yaml's splices), the assets it used, the warnings
// it reported (fields left out), and every Secret/ConfigMap key lookup that
// render made. Text, not Value trees: a
// hit then costs neither building nor copying nor emitting the jobs.
// Contract: using the cache never changes the output. An entry is reused
// only when the member and the GrafanaAgent are the same versions (uid and
// resourceVersion; objects without them are never cached) and every
// recorded lookup still gives the same answer in the current inventory.
// Members whose render failed are not cached. sweep() drops entries the
// last render did not use; text from find(), store() or keep() stays valid
// until then. Not thread-safe: one cache per root and RenderOptions
// (options are not part of the key).
// A packed cache (a root's, which lives as long as the process) keeps each
// text deflated (text_pack.hpp; a tenth of its size or less) and inflates it when
// found, into a buffer freed at the sweep; an unpacked one (a one-shot
// render's) keeps the text as emitted. The output is the same.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/assets.hpp"
#include "model/inventory.hpp"
#include "model/packed_lookups.hpp"

namespace model {

class JobCache {
 public:
  struct Entry {
    std::string yaml;
    // Every lookup the render made; the assets it used are the ones found
    // (AssetRefs::use_found), so they are not kept twice.
    PackedLookups lookups;
    FieldErrors warnings;
  };
  // A reused entry: its text, and the assets and warnings it recorded.
  struct Hit {
    std::string_view yaml;
    const Entry* entry;  // its yaml is the stored form (packed or not): read `yaml` above
  };

  explicit JobCache(bool packed = false) : packed_(packed) {}

  // "" when the member or the agent lacks a uid or resourceVersion.
  // `scope` names anything else the jobs depend on (an IntegrationMonitor's
  // jobs name their MetricsInstance).
  static std::string key(const char* kind, const ObjectMeta& member, const ObjectMeta& agent, int flavor,
                         std::string_view scope = {});
  // The same key from a member's parts (a lazy inventory's Member).
  static std::string key(const char* kind, std::string_view ns, std::string_view name, std::string_view uid,
                         std::string_view resource_version, const ObjectMeta& agent, int flavor,
                         std::string_view scope = {});
  // Whether `key` has an entry (not checking its lookups, and not marking
  // it used).
  bool contains(const std::string& key) const { return entries_.count(key) > 0; }
  std::optional<Hit> find(const std::string& key, const Inventory& inv);
  // Returns the stored text.
  std::string_view store(const std::string& key, Entry entry);
  // Holds text that has no key (unversioned members, additional scrape
  // configs) until the next sweep.
  std::string_view keep(std::string text);
  // Drops entries not found or stored since the previous sweep.
  void sweep();

  std::size_t size() const { return entries_.size(); }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Slot {
    Entry entry;
    std::size_t size = 0;  // of the text, when entry.yaml holds it packed
    bool used = true;
  };
  std::map<std::string, Slot> entries_;  // node-based: entries never move
  std::deque<std::string> kept_;
  bool packed_ = false;
  // The first text stored, as the dictionary of every packing: monitors'
  // jobs differ mostly in names, so the rest packs to a few hundred bytes.
  std::string dictionary_;
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace model
