// The target allocator's discovery I/O: one k8s::Reflector per wanted
// WatchSource, one poller per HttpSdSource and one file reader
// (actors/allocation/file_watch.hpp) per FileSdSource, each turning what it sees
// into inputs for the allocation journal. Which sources exist is decided by
// allocation::runtime::State; this actor only starts and stops them.
// Contract: sources_atom replaces the wanted set (by id: unchanged ids keep
// running, so a re-render of Prometheus CR jobs does not relist). Watches
// need a client; without one (no cluster connection) watch sources are
// logged and skipped. Detached: stopping a Reflector waits for its
// callbacks, and the pollers' GETs block their own detached actors.
#pragma once

#include <functional>
#include <string>

#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct SourcesConfig {
  allocation_journal_actor journal;
  k8s::Client* client = nullptr;  // outlives the actor
  model::Log log;                 // component discovery
};

sources_actor spawn_sources(caf::actor_system& sys, SourcesConfig cfg);

// Hands `sources` the watches, http_sd and file_sd sources `st` now wants
// (the allocation actor's AllocationHooks::sources).
void send_wanted_sources(const sources_actor& sources, const allocation::runtime::State& st);

// One GET of an http_sd_configs URL (cpp-httplib; http and https), as the
// http_sd input that records it: status, Content-Type and body, or the
// transport error. Blocks up to min(refresh interval, 10 s) per phase.
allocation::runtime::HttpSdInput fetch_http_sd(const allocation::runtime::HttpSdSource& source);

}  // namespace actors
