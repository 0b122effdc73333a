#include <catch2/catch.hpp>

#include "actors/core/leader_label.hpp"

using namespace actors::core;

TEST_CASE("a standby clears its own leader label first, a new leader sets it and then sweeps the others",
          "[actors][leader][label]") {
  LeaderLabelState s;
  REQUIRE(label_next(s) == LabelCall::unlabel_own);  // a restarted container may carry its old label
  CHECK(label_next(s) == LabelCall::none);           // one call at a time
  label_on_answer(s, LabelCall::unlabel_own, LabelAnswer::ok);
  CHECK(label_next(s) == LabelCall::none);

  label_on_leader(s, true);
  REQUIRE(label_next(s) == LabelCall::label_own);
  label_on_answer(s, LabelCall::label_own, LabelAnswer::ok);
  REQUIRE(label_next(s) == LabelCall::list_labelled);
  label_on_answer(s, LabelCall::list_labelled, LabelAnswer::ok);
  CHECK(label_next(s) == LabelCall::none);
  label_on_leader(s, true);  // every renew repeats it
  CHECK(label_next(s) == LabelCall::none);

  label_on_leader(s, false);
  CHECK(label_next(s) == LabelCall::unlabel_own);
}

TEST_CASE("a failed leader label call is retried after the delay, a terminal one waits for a change of leadership",
          "[actors][leader][label]") {
  LeaderLabelState s;
  label_on_leader(s, true);
  REQUIRE(label_next(s) == LabelCall::label_own);
  label_on_answer(s, LabelCall::label_own, LabelAnswer::retry);
  CHECK(s.retry_scheduled);
  CHECK(label_next(s) == LabelCall::none);
  label_on_retry(s);
  REQUIRE(label_next(s) == LabelCall::label_own);
  label_on_answer(s, LabelCall::label_own, LabelAnswer::terminal);  // e.g. the Pod does not exist
  label_on_retry(s);
  CHECK(label_next(s) == LabelCall::none);
  label_on_leader(s, false);
  CHECK(label_next(s) == LabelCall::unlabel_own);
}

TEST_CASE("the leader label patch sets or removes only the key, and the sweep skips the own Pod",
          "[actors][leader][label]") {
  CHECK(label_patch("operator.agent.grafana.com/leader", true) ==
        R"({"metadata":{"labels":{"operator.agent.grafana.com/leader":"true"}}})");
  CHECK(label_patch("leader", false) == R"({"metadata":{"labels":{"leader":null}}})");
  const std::string list = R"({"kind":"PodList","items":[
    {"metadata":{"name":"a","labels":{"leader":"true"}}},
    {"metadata":{"name":"b","labels":{"app":"x"}}},
    {"metadata":{"name":"c","labels":{"leader":"true"}}},
    {"metadata":{"name":"d"}}]})";
  CHECK(labelled_others(list, "leader", "a") == std::vector<std::string>{"c"});
  CHECK(labelled_others(R"({"items":null})", "leader", "a").empty());
  CHECK_THROWS(labelled_others("{not json", "leader", "a"));
}
