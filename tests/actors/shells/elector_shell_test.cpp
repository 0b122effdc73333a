// The leader elector actor under CAF's deterministic test coordinator: the
// retry period, the lease expiry and the renew deadline run on the test
// clock, which also drives the fence and the Lease's wall times.
#define CAF_SUITE elector_shell
#include "actors/elector_actor.hpp"
#include "shell_fixture.hpp"

using namespace actors;
using testutil::ScriptedTransport;

namespace {

const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/ops/leases";

std::string lease(const std::string& holder, const std::string& renew_time) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"ao","namespace":"ops",)"
         R"("resourceVersion":"7"},"spec":{"holderIdentity":")" +
         holder + R"(","leaseDurationSeconds":15,"renewTime":")" + renew_time + R"("}})";
}

struct fixture : shells::api_fixture {
  caf::scoped_actor writer{sys};
  elector_actor elector;
  std::vector<bool> changes;

  std::int64_t mono_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(sched.clock().now().time_since_epoch()).count();
  }
  // with_writer = false: the target allocator's elector (on_change only).
  void start(bool with_writer = true) {
    ElectorConfig ec;
    ec.leader.identity = "me";
    ec.leader.ns = "ops";
    ec.leader.name = "ao";
    ec.client = &client;
    if (with_writer) ec.writer = caf::actor_cast<writer_actor>(writer);
    ec.on_change = [this](bool leading) { changes.push_back(leading); };
    ec.fence = std::make_shared<core::LeaseFence>(ec.leader.renew_deadline, [this] { return mono_ms(); });
    ec.wall_ms = [this] { return 1714564800000 + mono_ms(); };
    elector = spawn_elector(sys, ec);
    consume_messages();
  }
  ~fixture() override {
    caf::anon_send_exit(elector, caf::exit_reason::user_shutdown);
    consume_messages();
  }
  // One retry period later: the next round runs to its end.
  void next_round() {
    advance_time(std::chrono::seconds(2));
    consume_messages();
  }
  void expect_leader(bool leading) {
    expect((leader_atom, bool), from(elector).to(writer).with(leader_atom::value, leading));
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(elector_shell_tests, fixture)

CAF_TEST(a missing Lease is created and the writer told to lead) {
  start();
  expect_leader(true);
  CAF_CHECK_EQUAL(api->lines(), (std::vector<std::string>{"GET " + kLeases + "/ao", "POST " + kLeases}));
  CAF_CHECK_EQUAL(changes, std::vector<bool>{true});
}

CAF_TEST(an elector without a writer reports leadership through on_change only) {
  start(false);
  CAF_CHECK_EQUAL(changes, std::vector<bool>{true});
  api->script("GET", "/leases/ao", ScriptedTransport::ok(lease("other", "2024-05-01T12:00:00.000000Z")), 100);
  next_round();  // another live holder: step down at once
  CAF_CHECK_EQUAL(changes, (std::vector<bool>{true, false}));
  // No leader_atom reached the writer, in either direction.
  CAF_CHECK(writer->mailbox().empty());
}

CAF_TEST(a live holder is waited out until its lease expires) {
  api->script("GET", "/leases/ao", ScriptedTransport::ok(lease("other", "2024-05-01T12:00:00.000000Z")), 100);
  start();
  int rounds = 0;
  while (api->count("PUT") == 0 && rounds < 20) {
    next_round();
    ++rounds;
  }
  // 15 s of lease at 2 s per round: the takeover is the eighth round.
  CAF_CHECK_EQUAL(rounds, 8);
  expect_leader(true);
  CAF_CHECK(api->sent.back().body.find(R"("holderIdentity":"me")") != std::string::npos);
}

CAF_TEST(a leader that cannot renew steps down within the renew deadline) {
  start();
  expect_leader(true);
  api->script("GET", "/leases/ao", ScriptedTransport::ok(lease("me", "2024-05-01T12:00:00.000000Z")), 100);
  api->script("PUT", "/leases/ao", ScriptedTransport::status(500), 100);
  for (int i = 0; i < 4; ++i) next_round();  // 8 s: still within the 10 s deadline
  CAF_CHECK_EQUAL(changes, std::vector<bool>{true});
  next_round();
  next_round();
  CAF_CHECK_EQUAL(changes, (std::vector<bool>{true, false}));
  expect_leader(false);
}

CAF_TEST(a release steps down before the Lease is handed back) {
  start();
  expect_leader(true);
  auto h = self->request(elector, caf::infinite, release_atom::value);
  consume_messages();
  bool released = false;
  h.receive([&](bool ok) { released = ok; }, [](caf::error&) { CAF_FAIL("no release reply"); });
  CAF_CHECK(released);
  expect_leader(false);
  CAF_CHECK_EQUAL(api->sent.back().method, "PUT");
  CAF_CHECK(api->sent.back().body.find(R"("holderIdentity":"me")") == std::string::npos);
  next_round();
  CAF_CHECK_EQUAL(api->count("GET"), 1u);  // no rounds after the release
}

CAF_TEST_FIXTURE_SCOPE_END()
