// PodLogs pipeline stages: every CRD stage type decoded into agent form
// (the C6 table plus the stages C6 does not cover), nested match.stages, and
// the exact error paths of invalid stages.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/logs/stages.hpp"

using testutil::yaml;

namespace {

struct Decoded {
  std::optional<model::PipelineStage> stage;
  model::FieldErrors errors;
};

Decoded decode(const std::string& text, const std::string& path = "spec.pipelineStages[0]") {
  model::Value v = yaml(text);
  Decoded d;
  model::Reader r(&v, path, &d.errors);
  d.stage = model::decode_pipeline_stage(r);
  return d;
}

std::string errors_text(const model::FieldErrors& errors) {
  std::string out;
  for (const auto& e : errors) out += e.path + ": " + e.message + "\n";
  return out;
}

void check_stage(const std::string& input, const std::string& expected) {
  INFO("stage " << input);
  Decoded d = decode(input);
  INFO(errors_text(d.errors));
  REQUIRE(d.errors.empty());
  REQUIRE(d.stage);
  model::Value want = yaml(expected);
  INFO(testutil::describe_difference(want, d.stage->to_value()));
  CHECK(d.stage->to_value() == want);
}

// The single error of an invalid stage; the stage must be dropped.
model::FieldError single_error(const std::string& input) {
  INFO("stage " << input);
  Decoded d = decode(input);
  INFO(errors_text(d.errors));
  CHECK_FALSE(d.stage);
  REQUIRE(d.errors.size() == 1);
  return d.errors[0];
}

// A stage with a single error: at spec.pipelineStages[0].<path> (the stage
// itself when path is ""), its message containing each of message_parts.
struct ErrorCase {
  std::string input, path;
  std::vector<std::string> message_parts;
};

void check_single_errors(const std::vector<ErrorCase>& cases) {
  for (const auto& [input, path, message_parts] : cases) {
    INFO("stage " << input);
    auto e = single_error(input);
    CHECK(e.path == "spec.pipelineStages[0]" + (path.empty() ? "" : "." + path));
    for (const auto& part : message_parts) CHECK_THAT(e.message, Catch::Contains(part));
  }
}

}  // namespace

TEST_CASE("C6: upstream stage table renders the agent form", "[logs]") {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"docker: {}", "docker: {}"},
      {"cri: {}", "cri: {}"},
      {R"(regex: {source: time, expression: '^(?P<year>\d+)'})",
       R"(regex: {source: time, expression: '^(?P<year>\d+)'})"},
      {R"(json: {expressions: {user: ""}, source: extra})", R"(json: {expressions: {user: ""}, source: extra})"},
      {"labelAllow: [foo, bar]", "labelallow: [foo, bar]"},
      {"limit: {rate: 10, burst: 20}", "limit: {rate: 10, burst: 20, drop: false}"},
      {R"(match: {pipelineName: app2, selector: '{app="pokey"}', action: keep, dropCounterReason: no_pokey,
                  stages: "- json:\n    expressions:\n      msg: msg"})",
       R"(match: {pipeline_name: app2, selector: '{app="pokey"}', action: keep, drop_counter_reason: no_pokey,
                  stages: [{json: {expressions: {msg: msg}}}]})"},
      {R"(metrics:
            logs_line_total: {type: counter, description: total number of log lines, prefix: my_promtail_custom_,
                              maxIdleDuration: 24h, matchAll: true, action: inc}
            http_response_time_seconds: {type: histogram, source: response_time, action: inc,
                                         buckets: ["0.001", "0.0025", "0.050"]})",
       R"(metrics:
            logs_line_total: {type: Counter, description: total number of log lines, prefix: my_promtail_custom_,
                              max_idle_duration: 24h, config: {match_all: true, action: inc}}
            http_response_time_seconds: {type: Histogram, source: response_time,
                                         config: {action: inc, buckets: [0.001, 0.0025, 0.050]}})"},
      {"multiline: {firstLine: first, maxWaitTime: 5m, maxLines: 5}",
       "multiline: {firstline: first, max_wait_time: 5m, max_lines: 5}"},
      {"timestamp: {source: time, format: RFC3339Nano, fallbackFormats: [UnixNs], location: America/New_York, "
       "actionOnFailure: fudge}",
       "timestamp: {source: time, format: RFC3339Nano, fallback_formats: [UnixNs], location: America/New_York, "
       "action_on_failure: fudge}"},
      {"tenant: {label: lbl, source: src, value: val}", "tenant: {label: lbl, source: src, value: val}"},
      {"replace: {expression: 'password (\\S+)', replace: '****', source: msg}",
       "replace: {expression: 'password (\\S+)', replace: '****', source: msg}"},
      {"pack: {labels: [foo, bar], ingestTimestamp: true}", "pack: {labels: [foo, bar], ingest_timestamp: true}"},
  };
  for (const auto& [input, expected] : rows) check_stage(input, expected);
}

TEST_CASE("stages C6 does not cover", "[logs]") {
  check_stage("labelDrop: [pod, instance]", "labeldrop: [pod, instance]");
  check_stage("labels: {status: '', level: lvl, app: null}", "labels: {status: '', level: lvl, app: ''}");
  check_stage("drop: {source: level, value: debug, dropCounterReason: noisy}",
              "drop: {source: level, value: debug, drop_counter_reason: noisy}");
  check_stage("drop: {expression: '.*healthz.*', olderThan: 24h, longerThan: 8KB}",
              "drop: {expression: '.*healthz.*', older_than: 24h, longer_than: 8KB}");
  check_stage("output: {source: msg}", "output: {source: msg}");
  check_stage("template: {source: level, template: '{{ ToUpper .Value }}'}",
              "template: {source: level, template: '{{ ToUpper .Value }}'}");
  check_stage("limit: {rate: 5, burst: 10, drop: true}", "limit: {rate: 5, burst: 10, drop: true}");
  check_stage("metrics: {bytes: {type: Gauge, action: Add, value: x, source: size}}",
              "metrics: {bytes: {type: Gauge, source: size, config: {action: Add, value: x}}}");
  check_stage(
      "metrics: {bytes_total: {type: COUNTER, action: add, matchAll: true, countEntryBytes: true}}",
      "metrics: {bytes_total: {type: Counter, config: {action: add, match_all: true, count_entry_bytes: true}}}");
  check_stage("match: {selector: '{app=\"x\"}', action: drop}", "match: {selector: '{app=\"x\"}', action: drop}");
  check_stage("tenant: {source: org}", "tenant: {source: org}");
}

TEST_CASE("optional fields left empty are omitted", "[logs]") {
  check_stage("regex: {expression: '(?P<a>.)', source: ''}", "regex: {expression: '(?P<a>.)'}");
  check_stage("multiline: {firstLine: '^x', maxLines: 0}", "multiline: {firstline: '^x'}");
  check_stage("limit: {}", "limit: {drop: false}");
  check_stage("timestamp: {source: t, format: Unix, fallbackFormats: []}", "timestamp: {source: t, format: Unix}");
}

TEST_CASE("pack keeps an explicit ingestTimestamp false", "[logs]") {
  // Promtail defaults ingest_timestamp to true; upstream drops `false`.
  check_stage("pack: {labels: [a], ingestTimestamp: false}", "pack: {labels: [a], ingest_timestamp: false}");
  check_stage("pack: {labels: [a]}", "pack: {labels: [a]}");
}

TEST_CASE("nested match.stages decode recursively", "[logs]") {
  check_stage(R"(match:
  selector: '{app="a"}'
  stages: |
    - regex: {expression: '(?P<level>\w+)'}
    - labelAllow: [level]
    - match:
        selector: '{level="debug"}'
        stages: "- drop: {source: level, value: debug}"
    - metrics: {hits: {type: counter, action: inc}})",
              R"(match:
  selector: '{app="a"}'
  stages:
  - regex: {expression: '(?P<level>\w+)'}
  - labelallow: [level]
  - match:
      selector: '{level="debug"}'
      stages: [{drop: {source: level, value: debug}}]
  - metrics: {hits: {type: Counter, config: {action: inc}}})");
}

TEST_CASE("stage structure errors carry exact paths", "[logs]") {
  check_single_errors({
      {"foo: {}", "foo", {"unknown pipeline stage \"foo\""}},
      {"cri: {}\ndocker: {}", "", {"exactly one pipeline stage", "cri, docker"}},
      {"cri: null", "", {"no pipeline stage set"}},
      {"labelDrop: {a: b}", "labelDrop", {"expected array"}},
  });
}

TEST_CASE("match.stages errors carry exact paths", "[logs]") {
  auto e = single_error("match: {selector: '{a=\"b\"}', stages: \"- json: [unclosed\"}");
  CHECK(e.path == "spec.pipelineStages[0].match.stages");
  CHECK_THAT(e.message, Catch::StartsWith("invalid YAML"));

  check_single_errors({
      {"match: {selector: '{a=\"b\"}', stages: \"json: {}\"}", "match.stages", {"YAML list"}},
      {"match: {selector: '{a=\"b\"}', stages: \"- json:\\n    expressions: [msg]\"}",
       "match.stages[0].json.expressions",
       {"expected object"}},
      {"match: {selector: '{a=\"b\"}', stages: \"- cri: {}\\n- bogus: {}\"}", "match.stages[1].bogus", {}},
      {"match: {selector: '{a=\"b\"}', stages: \"- 42\"}", "match.stages[0]", {}},
  });
}

TEST_CASE("deeply nested match.stages are bounded", "[logs]") {
  std::string stages = "- cri: {}\n";
  for (int i = 0; i < 20; ++i) {
    std::string indented;
    for (std::size_t pos = 0; pos < stages.size();) {
      std::size_t end = stages.find('\n', pos);
      indented += "      " + stages.substr(pos, end - pos + 1);
      pos = end + 1;
    }
    stages = "- match:\n    selector: x\n    stages: |\n" + indented;
  }
  model::Value v = yaml(stages).as_array()[0];
  model::FieldErrors errors;
  CHECK_FALSE(model::decode_pipeline_stage(model::Reader(&v, "s", &errors)));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].message, Catch::Contains("nest deeper"));
  CHECK_THAT(errors[0].path, Catch::StartsWith("s.match.stages[0].match.stages[0].match"));
}

TEST_CASE("stage field types and values are validated", "[logs]") {
  const std::vector<std::tuple<std::string, std::string, std::string>> rows = {
      {"limit: {rate: ten}", "limit.rate", "expected integer"},
      {"limit: {drop: 'yes'}", "limit.drop", "expected boolean"},
      {"regex: {source: x}", "regex.expression", "is required"},
      {"regex: {expression: '(unclosed'}", "regex.expression", "invalid regular expression"},
      {"multiline: {firstLine: '['}", "multiline.firstLine", "invalid regular expression"},
      {"match: {selector: 'x', action: maybe}", "match.action", "unsupported value \"maybe\""},
      {"match: {action: drop}", "match.selector", "is required"},
      {"match: {selector: 'x'}", "match.stages", "at least one stage"},
      {"match: {selector: 'x', action: drop, stages: '- cri: {}'}", "match.stages", "must be empty"},
      {"metrics: {m: {type: summary, action: inc}}", "metrics.m.type", "unsupported value \"summary\""},
      {"metrics: {m: {type: counter}}", "metrics.m.action", "is required"},
      {"metrics: {m: {type: counter, action: set}}", "metrics.m.action", "unsupported value \"set\""},
      {"metrics: {m: {type: histogram, action: inc, buckets: ['1', abc]}}", "metrics.m.buckets[1]", "not a number"},
      {"metrics: {m: {type: counter, action: inc, matchAll: true, value: x}}", "metrics.m.matchAll", ""},
      {"metrics: {m: 5}", "metrics.m", "expected object"},
      {"metrics: {'bad-name': {type: counter, action: inc}}", "metrics.bad-name", "invalid metric name"},
      {"timestamp: {source: t, format: Unix, actionOnFailure: retry}", "timestamp.actionOnFailure", ""},
      {"timestamp: {source: t}", "timestamp.format", "is required"},
      {"json: {source: x}", "json.expressions", "at least one expression"},
      {"json: {expressions: {a: 1}}", "json.expressions.a", "expected string"},
      {"labels: {'bad-label': x}", "labels.bad-label", "invalid label name"},
      {"labelAllow: []", "labelAllow", "at least one label"},
      {"labelAllow: [a, 3]", "labelAllow[1]", "expected string"},
      {"pack: {ingestTimestamp: true}", "pack.labels", "is required"},
      {"template: {source: x}", "template.template", "is required"},
      {"output: {}", "output.source", "is required"},
      {"tenant: {}", "tenant", "one of label, source or value"},
      {"drop: {}", "drop", "at least one of"},
      {"drop: {source: a, expression: b, value: c}", "drop.value", "mutually exclusive"},
      {"cri: []", "cri", "expected object"},
  };
  for (const auto& [input, path, message] : rows) {
    auto e = single_error(input);
    CHECK(e.path == "spec.pipelineStages[0]." + path);
    CHECK_THAT(e.message, Catch::Contains(message));
  }
}
