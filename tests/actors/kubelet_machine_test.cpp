// actors/core/kubelet_machine.hpp: what the kubelet Service controller
// writes for each input, against a small in-memory API (create, update
// fenced by resourceVersion, delete) that answers as the API server does.
#include <catch2/catch.hpp>

#include "actors/core/kubelet_machine.hpp"
#include "actors_fixtures.hpp"
#include "model/log_format.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using model::Value;

namespace {

using FxType = WriterEffect::Type;

Value node(const std::string& name, const std::string& ip, const std::string& rv = "1",
           const std::string& labels = "{}") {
  std::string addresses = ip.empty() ? "[]" : "[{type: InternalIP, address: \"" + ip + "\"}]";
  return actors_test::doc("apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", uid: u-" + name +
                          ", resourceVersion: \"" + rv + "\", labels: " + labels +
                          "}\nstatus: {addresses: " + addresses + "}\n");
}

Event event(const Value& obj, EventType t = EventType::modified) {
  return make_event(1, actors_test::kT0, t, obj);
}

// The API server's answers to create / update / delete, and the objects it holds.
struct Api {
  std::map<Identity, Value> objects;
  std::uint64_t rv = 100;
  std::vector<std::string> calls;        // "create EndpointSlice kube-system/kubelet-ipv4-0"
  std::map<std::string, int> fail_next;  // "create Endpoints" -> HTTP status, once

  CallAnswer serve(const Action& a) {
    Identity id{a.kind, a.ns, a.name};
    std::string call = std::string(action_name(a.type)) + " " + a.kind;
    calls.push_back(call + " " + a.ns + "/" + a.name);
    if (auto f = fail_next.find(call); f != fail_next.end()) {
      int status = f->second;
      fail_next.erase(f);
      return CallAnswer{status, k8s::classify(status), "{}", "injected"};
    }
    auto it = objects.find(id);
    if (a.type == ActionType::remove) {
      if (it == objects.end()) return CallAnswer{404, k8s::classify(404), "{}", "not found"};
      objects.erase(it);
      return CallAnswer{200, k8s::ErrorClass::ok, "{}", ""};
    }
    if (a.type == ActionType::create && it != objects.end())
      return CallAnswer{409, k8s::classify(409), "{}", "already exists"};
    if (a.type == ActionType::update &&
        (it == objects.end() || model::string_at(a.object, {"metadata", "resourceVersion"}) !=
                                    model::string_at(it->second, {"metadata", "resourceVersion"})))
      return CallAnswer{409, k8s::classify(409), "{}", "conflict"};
    Value stored = a.object;
    stored.find("metadata")->set("resourceVersion", std::to_string(++rv));
    objects[id] = stored;
    return CallAnswer{a.type == ActionType::create ? 201 : 200, k8s::ErrorClass::ok, model::to_json(stored), ""};
  }

  CallAnswer get(const Identity& id) {
    auto it = objects.find(id);
    if (it == objects.end()) return CallAnswer{404, k8s::classify(404), "{}", "not found"};
    return CallAnswer{200, k8s::ErrorClass::ok, model::to_json(it->second), ""};
  }
};

struct KubeletRun {
  std::vector<WriterEffect> other;  // everything but calls and re-reads, in order
  std::vector<std::string> logs;
  std::vector<Value> events;
};

// Performs every call and re-read until the machine has nothing in flight.
KubeletRun drive(KubeletState& st, Api& api, WriterEffects fx) {
  KubeletRun run;
  while (!fx.empty()) {
    WriterEffects next;
    for (const WriterEffect& e : fx) {
      WriterEffects more;
      if (e.type == FxType::call)
        more = on_kubelet_call_done(st, e.batch, api.serve(e.action));
      else if (e.type == FxType::reread)
        more = on_kubelet_reread(st, e.id, api.get(e.id));
      else if (e.type == FxType::log)
        run.logs.push_back(model::log_text(e.entry));
      else if (e.type == FxType::event)
        run.events.push_back(e.body);
      if (e.type != FxType::call && e.type != FxType::reread && e.type != FxType::log && e.type != FxType::wrote)
        run.other.push_back(e);
      next.insert(next.end(), more.begin(), more.end());
    }
    fx = std::move(next);
  }
  return run;
}

// True when one log line holds every one of the given parts.
bool logged(const KubeletRun& run, std::initializer_list<std::string_view> parts) {
  return std::any_of(run.logs.begin(), run.logs.end(), [&](const std::string& line) {
    return std::all_of(parts.begin(), parts.end(), [&](std::string_view p) { return line.find(p) != line.npos; });
  });
}

// The informers' echo of what the API holds now.
void echo(KubeletState& st, const Api& api) {
  for (const auto& [id, obj] : api.objects) CHECK(on_kubelet_event(st, event(obj)).empty());
}

KubeletSettings settings() {
  KubeletSettings s;
  s.service.ns = "kube-system";
  s.service.name = "kubelet";
  s.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
  return s;
}

std::vector<std::string> endpoint_ips(const Api& api) {
  std::vector<std::string> out;
  const Value& eps = api.objects.at({"Endpoints", "kube-system", "kubelet"});
  for (const Value& s : eps.find("subsets")->as_array())
    for (const Value& a : s.find("addresses")->as_array()) out.push_back(model::string_at(a, {"ip"}));
  return out;
}

// Two Nodes listed, synced, written and echoed back.
KubeletState synced_with_two_nodes(Api& api) {
  KubeletState st = make_kubelet(settings());
  for (const char* n : {"a", "b"})
    REQUIRE(on_kubelet_event(st, event(node(n, std::string("10.0.0.") + (n[0] == 'a' ? "1" : "2")), EventType::resync))
                .empty());
  drive(st, api, on_kubelet_synced(st));
  echo(st, api);
  api.calls.clear();
  return st;
}

}  // namespace

TEST_CASE("the kubelet machine writes nothing before the sync, then creates the three kinds in order",
          "[actors][kubelet]") {
  Api api;
  KubeletState st = make_kubelet(settings());
  CHECK(on_kubelet_event(st, event(node("a", "10.0.0.1"), EventType::resync)).empty());
  drive(st, api, on_kubelet_synced(st));
  CHECK(api.calls == std::vector<std::string>{"create Service kube-system/kubelet",
                                              "create Endpoints kube-system/kubelet",
                                              "create EndpointSlice kube-system/kubelet-ipv4-0"});
  CHECK(kubelet_stats(st).writes == 3);
  CHECK_FALSE(kubelet_stats(st).in_flight);
  // Every object carries the writer's config hash, so a restart skips them.
  for (const auto& [id, obj] : api.objects)
    CHECK_FALSE(model::string_at(obj, {"metadata", "annotations", kConfigHashAnnotation}).empty());
}

TEST_CASE("the echo of its own writes and Node heartbeats cause no write", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  std::uint64_t plans = kubelet_stats(st).plans;
  CHECK(on_kubelet_event(st, event(node("a", "10.0.0.1", "77"))).empty());  // only the resourceVersion moved
  CHECK(kubelet_stats(st).plans == plans);
  // A relabel is looked at, but without a node selector changes nothing.
  CHECK(on_kubelet_event(st, event(node("a", "10.0.0.1", "78", "{zone: z2}"))).empty());
  CHECK(kubelet_stats(st).plans == plans + 1);
  CHECK(api.calls.empty());
}

TEST_CASE("Node changes update the Endpoints and the slice", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  drive(st, api, on_kubelet_event(st, event(node("a", "10.0.0.9", "5"))));
  CHECK(api.calls == std::vector<std::string>{"update Endpoints kube-system/kubelet",
                                              "update EndpointSlice kube-system/kubelet-ipv4-0"});
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.2", "10.0.0.9"});
  echo(st, api);

  api.calls.clear();
  drive(st, api, on_kubelet_event(st, event(node("c", "10.0.0.3"), EventType::added)));
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.2", "10.0.0.3", "10.0.0.9"});
  echo(st, api);

  api.calls.clear();
  for (const char* n : {"a", "b", "c"}) drive(st, api, on_kubelet_event(st, event(node(n, ""), EventType::deleted)));
  CHECK(api.objects.at({"Endpoints", "kube-system", "kubelet"}).find("subsets")->size() == 0);
  CHECK_FALSE(api.objects.count({"EndpointSlice", "kube-system", "kubelet-ipv4-0"}));
  CHECK(api.calls.back() == "delete EndpointSlice kube-system/kubelet-ipv4-0");
  CHECK(api.objects.count({"Service", "kube-system", "kubelet"}));  // the Service stays
}

TEST_CASE("a Node without an address is skipped, reported once with an Event, and taken back", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  KubeletRun run = drive(st, api, on_kubelet_event(st, event(node("a", "", "6"))));
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.2"});
  REQUIRE(run.events.size() == 1);
  const Value& ev = run.events[0];
  CHECK(model::string_at(ev, {"involvedObject", "kind"}) == "Node");
  CHECK(model::string_at(ev, {"involvedObject", "name"}) == "a");
  CHECK(model::string_at(ev, {"involvedObject", "uid"}) == "u-a");
  CHECK(model::string_at(ev, {"type"}) == "Warning");
  CHECK(model::string_at(ev, {"reason"}) == "NodeAddressUnknown");
  CHECK(model::string_at(ev, {"metadata", "namespace"}) == "kube-system");
  CHECK(model::string_at(ev, {"message"}) ==
        "status.addresses: no InternalIP or ExternalIP address; the Node is "
        "left out of the kubelet Service");
  CHECK(logged(run, {"level=warn", "component=kubelet-service", "skipping a Node without a usable address",
                     "object=\"Node a\"", "field=status.addresses", "no InternalIP or ExternalIP address"}));
  CHECK(kubelet_stats(st).skipped == 1);
  echo(st, api);
  // Another Node's change: the same problem is not reported again.
  run = drive(st, api, on_kubelet_event(st, event(node("b", "10.0.0.4", "7"))));
  CHECK(run.events.empty());
  echo(st, api);
  run = drive(st, api, on_kubelet_event(st, event(node("a", "10.0.0.1", "8"))));
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.1", "10.0.0.4"});
  CHECK(logged(run, {"level=info", "msg=\"Node has an address again\"", "object=\"Node a\""}));
  CHECK(kubelet_stats(st).skipped == 0);
}

TEST_CASE("someone else's edit of the Endpoints is drift and is written back", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  Value tampered = api.objects.at({"Endpoints", "kube-system", "kubelet"});
  tampered.find("subsets")->as_array().at(0).find("addresses")->as_array().at(0).set("ip", "192.0.2.1");
  tampered.find("metadata")->set("resourceVersion", std::to_string(++api.rv));
  api.objects[{"Endpoints", "kube-system", "kubelet"}] = tampered;
  KubeletRun run = drive(st, api, on_kubelet_event(st, event(tampered)));
  CHECK(api.calls == std::vector<std::string>{"update Endpoints kube-system/kubelet"});
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.1", "10.0.0.2"});
  CHECK(logged(run, {"msg=updated", "object=\"Endpoints kube-system/kubelet\"",
                     "reason=\"drift: subsets[0].addresses[0].ip changed by someone else (want 10.0.0.1, have "
                     "192.0.2.1)\""}));
  echo(st, api);
  // A deleted object is created again.
  Value svc = api.objects.at({"Service", "kube-system", "kubelet"});
  api.objects.erase({"Service", "kube-system", "kubelet"});
  svc.find("metadata")->set("resourceVersion", std::to_string(++api.rv));
  api.calls.clear();
  drive(st, api, on_kubelet_event(st, event(svc, EventType::deleted)));
  CHECK(api.calls == std::vector<std::string>{"create Service kube-system/kubelet"});
}

TEST_CASE("a create that meets an object it did not see re-reads it and updates it", "[actors][kubelet]") {
  Api api;
  // prometheus-operator's Endpoints of the same name, not labelled as ours.
  api.objects[{"Endpoints", "kube-system", "kubelet"}] = actors_test::doc(R"(
apiVersion: v1
kind: Endpoints
metadata: {name: kubelet, namespace: kube-system, resourceVersion: "50",
           labels: {app.kubernetes.io/managed-by: prometheus-operator, team: x}}
subsets: [{addresses: [{ip: 10.9.9.9}], ports: [{name: https-metrics, port: 10250}]}]
)");
  KubeletState st = make_kubelet(settings());
  on_kubelet_event(st, event(node("a", "10.0.0.1"), EventType::resync));
  KubeletRun run = drive(st, api, on_kubelet_synced(st));
  CHECK(api.calls == std::vector<std::string>{
                         "create Service kube-system/kubelet", "create Endpoints kube-system/kubelet",
                         "update Endpoints kube-system/kubelet", "create EndpointSlice kube-system/kubelet-ipv4-0"});
  const Value& eps = api.objects.at({"Endpoints", "kube-system", "kubelet"});
  CHECK(model::string_at(eps, {"metadata", "labels", "app.kubernetes.io/managed-by"}) == "grafana-agent-operator");
  CHECK(model::string_at(eps, {"metadata", "labels", "team"}) == "x");  // others' labels stay
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.1"});
}

TEST_CASE("the kubelet machine's error classes: retry the call, retry the reconcile, terminal", "[actors][kubelet]") {
  Api api;
  KubeletState st = make_kubelet(settings());
  on_kubelet_event(st, event(node("a", "10.0.0.1"), EventType::resync));
  SECTION("503: a backoff, then the same write") {
    api.fail_next["create Service"] = 503;
    KubeletRun run = drive(st, api, on_kubelet_synced(st));
    REQUIRE(run.other.size() == 1);
    CHECK(run.other[0].type == FxType::retry);
    CHECK(kubelet_stats(st).retrying);
    CHECK(api.objects.empty());
    drive(st, api, on_kubelet_retry(st));
    CHECK(api.objects.size() == 3);
  }
  SECTION("409 on an update: re-read and replan") {
    drive(st, api, on_kubelet_synced(st));
    echo(st, api);
    Value& eps = api.objects.at({"Endpoints", "kube-system", "kubelet"});
    eps.find("metadata")->set("resourceVersion", std::to_string(++api.rv));  // a write it has not seen
    api.calls.clear();
    drive(st, api, on_kubelet_event(st, event(node("a", "10.0.0.5", "9"))));
    CHECK(api.calls == std::vector<std::string>{"update Endpoints kube-system/kubelet",
                                                "update Endpoints kube-system/kubelet",
                                                "update EndpointSlice kube-system/kubelet-ipv4-0"});
    CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.5"});
    CHECK(kubelet_stats(st).errors == 1);
  }
  SECTION("403: logged once, no retry loop") {
    api.fail_next["create Service"] = 403;
    KubeletRun run = drive(st, api, on_kubelet_synced(st));
    CHECK(run.other.empty());
    CHECK_FALSE(kubelet_stats(st).retrying);
    CHECK_FALSE(kubelet_stats(st).in_flight);
    CHECK(kubelet_stats(st).errors == 1);
    CHECK(logged(run, {"level=error", "write refused; not retrying until the Nodes or objects change",
                       "object=\"Service kube-system/kubelet\"", "action=create", "status=403", "error=injected",
                       "error_class=terminal"}));
    CHECK(api.objects.empty());
    // The next input tries again.
    drive(st, api, on_kubelet_event(st, event(node("b", "10.0.0.2"), EventType::added)));
    CHECK(api.objects.size() == 3);
  }
}

TEST_CASE("only the leader writes, and not past a stale Lease renew", "[actors][kubelet]") {
  Api api;
  KubeletSettings s = settings();
  s.leader = false;
  std::int64_t now = 0;
  s.fence = std::make_shared<LeaseFence>(std::chrono::milliseconds(10'000), [&now] { return now; });
  KubeletState st = make_kubelet(s);
  on_kubelet_event(st, event(node("a", "10.0.0.1"), EventType::resync));
  CHECK(drive(st, api, on_kubelet_synced(st)).logs.empty());
  CHECK(api.calls.empty());
  s.fence->renewed(0);
  drive(st, api, on_kubelet_leader(st, true));
  CHECK(api.objects.size() == 3);
  echo(st, api);
  now = 20'000;  // frozen past the renew deadline
  KubeletRun run = drive(st, api, on_kubelet_event(st, event(node("a", "10.0.0.7", "3"))));
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.1"});
  CHECK(kubelet_stats(st).fenced == 1);
  CHECK_FALSE(kubelet_stats(st).leader);
  s.fence->renewed(20'000);
  drive(st, api, on_kubelet_leader(st, true));  // the elector confirms on its next renew
  CHECK(endpoint_ips(api) == std::vector<std::string>{"10.0.0.7"});
}

TEST_CASE("slices of another controller for the same Service are left alone", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  Value foreign = actors_test::doc(R"(
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: kubelet-abcde, namespace: kube-system, resourceVersion: "3",
           labels: {kubernetes.io/service-name: kubelet, app.kubernetes.io/managed-by: prometheus-operator}}
addressType: IPv4
endpoints: []
)");
  CHECK(on_kubelet_event(st, event(foreign, EventType::added)).empty());
  for (const char* n : {"a", "b"}) drive(st, api, on_kubelet_event(st, event(node(n, ""), EventType::deleted)));
  CHECK(api.calls.back() == "delete EndpointSlice kube-system/kubelet-ipv4-0");
  for (const auto& c : api.calls) CHECK(c.find("kubelet-abcde") == std::string::npos);
}

TEST_CASE("an informer event older than its own write is not taken for the current object", "[actors][kubelet]") {
  Api api;
  KubeletState st = synced_with_two_nodes(api);
  Value before = api.objects.at({"Endpoints", "kube-system", "kubelet"});
  drive(st, api, on_kubelet_event(st, event(node("a", "10.0.0.9", "5"))));
  api.calls.clear();
  // The watch delivers the Endpoints as they were before the update only now.
  CHECK(on_kubelet_event(st, event(before)).empty());
  echo(st, api);
  CHECK(api.calls.empty());
}
