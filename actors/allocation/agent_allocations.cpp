#include "actors/allocation/agent_allocations.hpp"

#include <atomic>
#include <utility>

#include "allocation/responses.hpp"
#include "allocation/runtime/config.hpp"

namespace actors {
namespace {

using allocation::runtime::InputType;

// Written by the publish hook (the allocation actor's thread), read by
// HTTP threads: the snapshot is swapped whole.
struct PublishedTargets {
  allocation::ResponseCache cache;              // the publish hook's only
  allocation::runtime::PlacementLedger ledger;  // likewise
  std::shared_ptr<const AgentTargets> targets;

  void publish(const allocation::Allocator& a, std::uint64_t seq, const std::string& cause) {
    auto next = std::make_shared<AgentTargets>();
    ledger.update(a, seq, cause);
    next->placements = ledger.snapshot();
    for (const allocation::Collector& c : a.collectors()) next->shards.push_back(c.name);
    for (allocation::Name job : a.jobs()) {
      for (const allocation::Collector& c : a.collectors()) {
        next->answers.emplace(std::pair{std::string(job.text()), c.name},
                              cache.collector_targets(a, c.name, job.text()));
      }
    }
    cache.prune(a);
    std::atomic_store(&targets, std::shared_ptr<const AgentTargets>(std::move(next)));
  }
  std::shared_ptr<const AgentTargets> load() const { return std::atomic_load(&targets); }
};

std::string allocation_journal_file(const std::string& dir, const core::RootKey& key) {
  if (dir.empty()) return {};
  return dir + "/allocation-" + key.first + "-" + key.second + ".jsonl";
}

InputPtr agent_config_input(const std::string& text, const core::RootKey& key) {
  auto in = std::make_shared<allocation::runtime::Input>();
  in->type = InputType::config;
  in->config.text = text;
  in->config.path = "GrafanaAgent " + key.first + "/" + key.second;
  in->config.collector_namespace = key.first;
  return in;
}

}  // namespace

struct AgentAllocations::Agent {
  std::string config_text, service_account;
  std::shared_ptr<PublishedTargets> published = std::make_shared<PublishedTargets>();
  AllocationPipeline pipeline;
  sources_actor sources;
};

AgentAllocations::AgentAllocations(caf::actor_system& sys, AgentAllocationsConfig cfg)
    : sys_(sys), cfg_(std::move(cfg)) {}

AgentAllocations::~AgentAllocations() {
  stop();
}

void AgentAllocations::on_render(const core::RootOutput& out) {
  const core::Effects& fx = out.effects;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  auto it = agents_.find(out.root);
  // An invalid or paused root keeps serving what it served.
  if (fx.root_present && (!fx.root_valid || fx.paused || !fx.rendered)) return;
  if (!fx.root_present || fx.allocator_config.empty()) {
    if (it == agents_.end()) return;
    stop_agent(*it->second);
    agents_.erase(it);
    return;
  }
  if (it == agents_.end()) return start_agent(out.root, fx);
  Agent& a = *it->second;
  a.service_account = fx.service_account;
  if (a.config_text == fx.allocator_config) return;
  a.config_text = fx.allocator_config;
  caf::anon_send(a.pipeline.journal, input_atom::value, agent_config_input(a.config_text, out.root));
}

void AgentAllocations::start_agent(const core::RootKey& key, const core::Effects& fx) {
  auto a = std::make_shared<Agent>();
  a->config_text = fx.allocator_config;
  a->service_account = fx.service_account;
  AllocationHooks hooks;
  std::shared_ptr<PublishedTargets> published = a->published;
  hooks.publish = [published](const allocation::runtime::State& st, std::uint64_t seq, const std::string& cause) {
    published->publish(st.allocator(), seq, cause);
  };
  hooks.log = cfg_.log;
  // The pipeline's actor feeds `sources` through this hook, so it is set
  // once the sources actor exists.
  auto sources = std::make_shared<sources_actor>();
  hooks.sources = [sources](const allocation::runtime::State& st) { send_wanted_sources(*sources, st); };
  hooks.fatal = [log = cfg_.log, key](const model::LogEntry& e) {
    log(e);
    log(model::log_error("allocation", "the agent's allocation stopped; restart the operator to recover")
            .object("GrafanaAgent", key.first, key.second));
  };
  a->pipeline = spawn_allocation_pipeline(sys_, std::move(hooks),
                                          redacting_journal(allocation_journal_file(cfg_.journal_dir, key), cfg_.log));
  a->sources = spawn_sources(sys_, {a->pipeline.journal, cfg_.client, cfg_.log});
  *sources = a->sources;
  caf::anon_send(a->pipeline.journal, input_atom::value, agent_config_input(a->config_text, key));
  cfg_.log(model::log_info("allocation", "placing the agent's targets (shardingStrategy consistent or node)")
               .object("GrafanaAgent", key.first, key.second));
  agents_.emplace(key, std::move(a));
}

std::vector<caf::actor> AgentAllocations::actors_of(const Agent& a) {
  std::vector<caf::actor> out;
  for (caf::actor actor : {caf::actor_cast<caf::actor>(a.sources), caf::actor_cast<caf::actor>(a.pipeline.journal),
                           caf::actor_cast<caf::actor>(a.pipeline.allocator)})
    if (actor) out.push_back(actor);
  return out;
}

void AgentAllocations::stop_agent(Agent& a) {
  for (const caf::actor& actor : actors_of(a)) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

std::optional<AgentLookup> AgentAllocations::lookup(const std::string& ns, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = agents_.find({ns, name});
  if (it == agents_.end()) return std::nullopt;
  return AgentLookup{it->second->published->load(), it->second->service_account};
}

std::size_t AgentAllocations::agents() const {
  std::lock_guard<std::mutex> lock(mu_);
  return agents_.size();
}

void AgentAllocations::stop() {
  std::vector<caf::actor> live;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [key, a] : agents_) {
      stop_agent(*a);
      for (caf::actor& actor : actors_of(*a)) live.push_back(std::move(actor));
    }
    agents_.clear();
  }
  caf::scoped_actor self{sys_};
  self->wait_for(live);
}

}  // namespace actors
