// The allocation actor under CAF's deterministic test coordinator, with a
// scoped actor standing in for the journal: a burst of inputs yields one
// reallocate request, the reallocation is published once, and the actor
// answers with the assignment at the seq it applied.
#define CAF_SUITE allocation_shell
#include "actors/allocation/allocation_actor.hpp"
#include "model/log_format.hpp"
#include "shell_fixture.hpp"

using namespace actors;
using allocation::runtime::Input;
using allocation::runtime::InputType;

namespace {

InputPtr stamped(std::uint64_t seq, Input in) {
  in.seq = seq;
  in.time_ms = 1714564800000 + static_cast<std::int64_t>(seq);
  return std::make_shared<const Input>(std::move(in));
}

Input config(const std::string& text) {
  Input in;
  in.type = InputType::config;
  in.config = {text, "ta.yaml", false, "ops"};
  return in;
}

Input collector(const std::string& name) {
  Input in;
  in.type = InputType::watch;
  in.watch = {"collectors", allocation::discovery::Change::added,
              std::make_shared<const model::Value>(shells::yaml(
                  "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
                  ", namespace: ops, labels: {app: col}}\nstatus: {conditions: [{type: Ready, status: 'True'}]}"))};
  return in;
}

struct fixture : test_coordinator_fixture<> {
  caf::scoped_actor journal{sys};
  allocation_actor alloc;
  int published = 0, source_changes = 0;
  std::vector<std::string> logs;
  std::vector<bool> configs;        // the config hook's results
  std::vector<std::string> causes;  // "SEQ: cause" of each publish

  fixture() {
    AllocationHooks h;
    h.publish = [this](const allocation::runtime::State&, std::uint64_t seq, const std::string& cause) {
      ++published;
      causes.push_back(std::to_string(seq) + ": " + cause);
    };
    h.sources = [this](const allocation::runtime::State&) { ++source_changes; };
    h.log = [this](const model::LogEntry& e) { logs.push_back(model::log_text(e)); };
    h.config = [this](bool applied, std::int64_t) { configs.push_back(applied); };
    alloc = spawn_allocation_actor(sys, h);
    run();
  }
  ~fixture() override {
    caf::anon_send_exit(alloc, caf::exit_reason::user_shutdown);
    run();
  }
  void from_journal(const InputPtr& in) {
    inject((input_atom, InputPtr), from(journal).to(alloc).with(input_atom::value, in));
  }
  void expect_reallocate_request() {
    expect((input_atom, InputPtr), from(alloc).to(journal).with(input_atom::value, _));
  }
};

const std::string kConfig =
    "collector_selector: {matchlabels: {app: col}}\n"
    "config: {scrape_configs: [{job_name: web, static_configs: [{targets: ['a:1', 'b:1', 'c:1']}]}]}\n";

}  // namespace

CAF_TEST_FIXTURE_SCOPE(allocation_shell_tests, fixture)

CAF_TEST(a burst of inputs asks the journal for one reallocation) {
  from_journal(stamped(1, config(kConfig)));
  CAF_CHECK_EQUAL(source_changes, 1);
  expect_reallocate_request();
  from_journal(stamped(2, collector("col-0")));
  from_journal(stamped(3, collector("col-1")));
  from_journal(stamped(4, collector("col-2")));
  CAF_CHECK(journal->mailbox().empty());  // the first request is still in flight
  CAF_CHECK_EQUAL(published, 0);
  from_journal(stamped(5, Input{}));  // the reallocate the journal recorded
  CAF_CHECK_EQUAL(published, 1);
  CAF_CHECK(journal->mailbox().empty());  // nothing pending after it
  from_journal(stamped(6, collector("col-3")));
  expect_reallocate_request();
  from_journal(stamped(7, Input{}));
  // Each publish names its reallocate and the inputs it followed.
  CAF_CHECK_EQUAL(causes, (std::vector<std::string>{"5: seq 1 config ta.yaml and 3 more inputs",
                                                    "7: seq 6 watch collectors ADDED ops/col-3"}));
}

CAF_TEST(the assignment is answered with the seq it reflects) {
  from_journal(stamped(1, config(kConfig)));
  expect_reallocate_request();
  from_journal(stamped(2, collector("col-0")));
  from_journal(stamped(3, Input{}));
  auto answer = self->request(alloc, caf::infinite, assignment_atom::value);
  run();
  std::uint64_t seq = 0;
  allocation::runtime::Assignment got;
  answer.receive(
      [&](std::uint64_t s, const AssignmentPtr& a) {
        seq = s;
        got = *a;
      },
      [](caf::error&) { CAF_FAIL("no assignment"); });
  CAF_CHECK_EQUAL(seq, 3u);
  CAF_CHECK_EQUAL(got.size(), 1u);
  CAF_CHECK_EQUAL(got["col-0"], (std::vector<std::string>{"web/a:1", "web/b:1", "web/c:1"}));
}

CAF_TEST(reloads are reported through the config hook and a rejected one keeps the running config) {
  from_journal(stamped(1, config(kConfig)));
  expect_reallocate_request();
  from_journal(stamped(2, config("collectors: [x")));
  CAF_REQUIRE_EQUAL(logs.size(), 2u);  // the first config loaded, the second rejected
  CAF_CHECK(logs[0].rfind("level=info component=config msg=loaded file=ta.yaml generation=1 ", 0) == 0);
  CAF_CHECK(logs[1].rfind("level=error component=config msg=\"reload rejected; the previous config keeps serving\" "
                          "file=ta.yaml error=",
                          0) == 0);
  from_journal(stamped(3, config("collectors: [x]")));
  CAF_REQUIRE_EQUAL(configs.size(), 3u);
  CAF_CHECK(configs[0]);
  CAF_CHECK(!configs[1]);
  CAF_CHECK(configs[2]);
  from_journal(stamped(4, Input{}));
  CAF_CHECK_EQUAL(published, 1);
}

CAF_TEST_FIXTURE_SCOPE_END()
