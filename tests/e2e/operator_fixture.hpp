// End-to-end fixture: an in-process simcluster served over HTTP, and the
// real controller (CAF actors, curl client, informers, writer) running
// against it. Tests change the cluster through the simulator and check
// that the operator converged: every object render_all wants over the
// cluster's current contents exists with the same config hash, and no
// owned object is left over.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/controller.hpp"
#include "k8s/client/client.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"
#include "model/render.hpp"

namespace e2e {

struct FixtureOptions {
  bool load_examples = true;  // deploy/examples
  k8s::sim::ServerOptions server;
  bool start_operator = true;
  std::string journal_path;
  bool journal_include_secrets = true;
  // The integrations SD aggregator and its Endpoints informer, on a pod
  // transport of the fixture's own (no freshness window: tests see each
  // change at once).
  bool integrations_sd = true;
  // -kubelet-service: the kubelet Service controller and its informers.
  std::optional<model::KubeletServiceOptions> kubelet;
  // Also handed every root output (RootConfig::on_render), e.g. to run the
  // consistent-sharding allocations beside the controller.
  std::function<void(const actors::RootOutput&)> on_render;
  // --monitor-status: the status.bindings writer.
  bool monitor_status = false;
};

// A second operator process, for leader election: its own actor system,
// transport and client against the fixture's server.
class OperatorInstance {
 public:
  OperatorInstance(const std::string& url, actors::ControllerOptions o);
  ~OperatorInstance();
  actors::Controller& controller() { return *controller_; }

 private:
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  std::unique_ptr<k8s::Client> client_;
  std::unique_ptr<actors::Controller> controller_;
};

class OperatorFixture {
 public:
  explicit OperatorFixture(FixtureOptions o = {});
  ~OperatorFixture();

  void start_operator(std::optional<actors::ControllerOptions> o = std::nullopt);
  void stop_operator();
  std::unique_ptr<OperatorInstance> start_instance(actors::ControllerOptions o) {
    return std::make_unique<OperatorInstance>(server_->url(), std::move(o));
  }
  actors::Controller& controller() { return *controller_; }
  bool wait_idle(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Polls until divergence() is empty and the controller is idle.
  bool wait_converged(std::chrono::milliseconds timeout);

  // Cluster access, bypassing the operator.
  void apply_yaml(const std::string& yaml);
  std::optional<model::Value> get(const std::string& kind, const std::string& ns, const std::string& name);
  std::vector<model::Value> list(const std::string& kind, const std::string& ns = "");
  void remove(const std::string& kind, const std::string& ns, const std::string& name);
  k8s::sim::ResourceType type(const std::string& kind);
  k8s::sim::Cluster& cluster() { return cluster_; }
  k8s::sim::Server& server() { return *server_; }
  // Runs the real kubectl (PATH, or $KUBECTL) against the server.
  k8s::sim::RunResult kubectl(std::vector<std::string> args);

  // What the operator should have produced, rendered from the cluster's
  // current contents, and the differences from what the cluster holds
  // (empty = converged).
  std::vector<model::Value> expected();
  std::vector<std::string> divergence();
  // Owned objects (managed-by label) currently in the cluster.
  std::vector<model::Value> owned();
  std::vector<std::string> log() const;

 private:
  FixtureOptions opts_;
  k8s::sim::SystemClock clock_;
  k8s::sim::Cluster cluster_;
  std::unique_ptr<k8s::sim::Server> server_;
  struct Runtime;
  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<actors::Controller> controller_;
};

std::string source_dir();
// metadata.annotations[key] ("" when absent).
std::string annotation(const model::Value& obj, const std::string& key);
const model::Value* condition(const model::Value& agent, const std::string& type);

}  // namespace e2e
