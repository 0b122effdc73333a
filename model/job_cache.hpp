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
#pragma once

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/assets.hpp"
#include "model/inventory.hpp"

namespace model {

class JobCache {
 public:
  struct Entry {
    std::string yaml;
    std::map<std::string, std::string> used;  // asset store key -> value
    std::vector<AssetLookup> lookups;
    FieldErrors warnings;
  };

  // "" when the member or the agent lacks a uid or resourceVersion.
  // `scope` names anything else the jobs depend on (an IntegrationMonitor's
  // jobs name their MetricsInstance).
  static std::string key(const char* kind, const ObjectMeta& member, const ObjectMeta& agent, int flavor,
                         std::string_view scope = {});
  const Entry* find(const std::string& key, const Inventory& inv);
  const Entry& store(const std::string& key, Entry entry);
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
    bool used = true;
  };
  std::map<std::string, Slot> entries_;  // node-based: entries never move
  std::deque<std::string> kept_;
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace model
