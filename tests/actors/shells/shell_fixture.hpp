// The deterministic fixture for the actor shells: CAF's test coordinator
// (messages run one at a time, timers fire when the test advances the
// clock) with a k8s::Client over the scripted transport, and helpers that
// build the objects the writer and selectors handle.
#pragma once

#include "actors/protocol.hpp"
#include "caf/test/dsl.hpp"
#include "k8s/client/client.hpp"
#include "model/parse.hpp"
#include "tests/k8s/client/scripted_transport.hpp"

namespace shells {

inline const actors::core::RootKey kAlpha{"mon", "alpha"};

inline k8s::ClientOptions unthrottled() {
  k8s::ClientOptions o;
  o.qps = 1e9;
  o.burst = 1e9;
  o.max_retries = 0;  // the shells' own retries are under test
  return o;
}

struct api_fixture : test_coordinator_fixture<> {
  std::shared_ptr<testutil::ScriptedTransport> api = std::make_shared<testutil::ScriptedTransport>();
  k8s::Client client{api, unthrottled()};
};

inline model::Value yaml(const std::string& text) {
  return model::parse_documents(text, "fixture").at(0).value;
}

// An object the GrafanaAgent mon/alpha owns, as the renderer marks it.
inline model::Value owned(const std::string& kind, const std::string& name, const std::string& body) {
  std::string api = kind == "StatefulSet" ? "apps/v1" : "v1";
  return yaml("apiVersion: " + api + "\nkind: " + kind + "\nmetadata:\n  name: " + name +
              "\n  namespace: mon\n  labels: {app.kubernetes.io/managed-by: grafana-agent-operator}\n"
              "  ownerReferences: [{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, name: alpha,"
              " uid: uid-alpha, controller: true}]\n" +
              body);
}

inline actors::EventPtr event(actors::core::EventType t, const model::Value& obj, std::uint64_t seq = 1) {
  return std::make_shared<const actors::core::Event>(actors::core::make_event(seq, 0, t, obj));
}

}  // namespace shells
