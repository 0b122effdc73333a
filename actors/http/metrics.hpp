// The operator's Prometheus metrics: controller-runtime compatible names
// (reconciles, work queues, REST client) plus agent-operator's own (journal,
// hierarchy sizes, writes, leadership), rendered as Prometheus text.
// Contract: every method is thread-safe and takes plain types; label values
// may be any UTF-8 text (escaped on render). Series are created on first use;
// hierarchy series of an agent disappear after remove_agent().
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "model/build_info.hpp"

namespace actors {

enum class ReconcileResult { success, error, requeue };

const char* to_string(ReconcileResult r);

class OperatorMetrics {
 public:
  OperatorMetrics();
  ~OperatorMetrics();
  OperatorMetrics(const OperatorMetrics&) = delete;
  OperatorMetrics& operator=(const OperatorMetrics&) = delete;

  // Creates the zero-valued reconcile series of a controller, so rates over
  // them exist before the first error or requeue (as controller-runtime does).
  void add_controller(const std::string& controller);
  void observe_reconcile(const std::string& controller, ReconcileResult result, double seconds);

  void set_queue_depth(const std::string& queue, double depth);
  void count_queue_add(const std::string& queue);
  // How long an item waited in `queue` before a worker took it.
  void observe_queue_wait(const std::string& queue, double seconds);

  // code 0 means the request failed without an HTTP status (label "<error>").
  void observe_rest_request(const std::string& method, const std::string& host, int code, double seconds);

  void count_journal_event(std::size_t bytes);

  // `agent` is "namespace/name"; `kind` a member kind such as MetricsInstance.
  void set_hierarchy_members(const std::string& agent, const std::string& kind, double count);
  // Drops every hierarchy series of `agent` (the GrafanaAgent was deleted).
  void remove_agent(const std::string& agent);

  // action: create | update | patch | delete | recreate | unchanged ...
  void count_write(const std::string& kind, const std::string& action);

  void set_leader(bool leader);

  // The kubelet Service controller: Nodes listed in its Endpoints and Nodes
  // skipped (no usable address).
  void set_kubelet_nodes(double listed, double skipped);

  // agent_operator_build_info{version,revision} 1, as Prometheus's own
  // prometheus_build_info. Call once, before serving; until then the
  // family is absent (a library user has no build to report).
  void set_build_info(const model::BuildInfo& info);

  // The integrations SD aggregator. `agent` is "namespace/name"; reason is
  // sd::failure_name's (transport, timeout, status, content_type, ...).
  void count_integrations_sd_failure(const std::string& agent, const std::string& reason);
  void set_integrations_sd_pods(const std::string& agent, double pods);
  // Removes the agent's pods gauge and failure counters (its Endpoints are
  // gone), so departed agents leave no series behind.
  void forget_integrations_sd_agent(const std::string& agent);
  void observe_integrations_sd_fanout(double seconds);

  // Prometheus text exposition format 0.0.4.
  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actors
