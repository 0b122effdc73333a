// Relabeling tables from Prometheus's documented semantics
// (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config).
#include <catch2/catch.hpp>

#include "allocation/md5.hpp"
#include "allocation/relabel.hpp"
#include "model/parse.hpp"

using namespace allocation;

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::vector<RelabelConfig> rules(const std::string& yaml, NameValidation scheme = NameValidation::legacy) {
  auto docs = model::parse_documents(yaml, "test");
  return parse_relabel_configs(docs.at(0).value, "relabel_configs", scheme);
}

std::optional<Labels> relabel(const std::string& yaml,
                              std::initializer_list<std::pair<std::string_view, std::string_view>> in) {
  Relabeler r(rules(yaml));
  return r.apply(LabelSet(in));
}

std::string error_of(const std::string& yaml, NameValidation scheme = NameValidation::legacy) {
  try {
    Relabeler r(rules(yaml, scheme));
  } catch (const RelabelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("md5 matches RFC 1321 and hashmod uses the digest's last 8 bytes", "[allocation][relabel]") {
  auto hex = [](std::string_view s) {
    std::string out;
    for (auto b : md5(s)) out += "0123456789abcdef"[b >> 4], out += "0123456789abcdef"[b & 15];
    return out;
  };
  CHECK(hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b");
  std::string eighty;
  for (int i = 0; i < 8; ++i) eighty += "1234567890";
  CHECK(hex(eighty) == "57edf4a22be3c955ac49da2e2107b67a");
  CHECK(hashmod_value("foo", 1000) == 696);  // the first 8 bytes would give 404
  CHECK(hashmod_value("a;b", 7) == 2);
  CHECK(hashmod_value("10.0.0.1:9100", 10) == 5);
  CHECK(hashmod_value(std::string(100, 'x'), 12345) == 11824);  // two-block message
}

TEST_CASE("replace: defaults captures templates and deletion", "[allocation][relabel]") {
  struct Case {
    const char* name;
    const char* yaml;
    Labels expected;
  };
  const Case cases[] = {
      {"defaults copy the source value", "- {source_labels: [a], target_label: b}", {{"a", "foo"}, {"b", "foo"}}},
      {"captures with ${1}",
       "- {source_labels: [a], regex: 'f(.*)', target_label: d, replacement: 'ch${1}-ch${1}'}",
       {{"a", "foo"}, {"b", "bar"}, {"d", "choo-choo"}}},
      {"sources joined by the separator",
       "- {source_labels: [a, b], regex: 'f(.*);(.*)r', target_label: a, replacement: 'b${1}${2}m'}",
       {{"a", "boobam"}, {"b", "bar"}}},
      {"no match changes nothing",
       "- {source_labels: [a], regex: 'x(.*)', target_label: a, replacement: z}",
       {{"a", "foo"}, {"b", "bar"}}},
      {"anchored: a substring match is no match",
       "- {source_labels: [a], regex: 'oo', target_label: c}",
       {{"a", "foo"}, {"b", "bar"}}},
      {"an empty result deletes the target label",
       "- {source_labels: [a], regex: '(f).*', target_label: b, replacement: '$2'}",
       {{"a", "foo"}}},
      {"$1x names group '1x', which is empty",
       "- {source_labels: [a], regex: '(.*)', target_label: b, replacement: '$1x'}",
       {{"a", "foo"}}},
      {"${1}x and $$",
       "- {source_labels: [a], regex: '(.*)', target_label: c, replacement: '${1}x$$'}",
       {{"a", "foo"}, {"b", "bar"}, {"c", "foox$"}}},
      {"named groups",
       "- {source_labels: [a], regex: '(?P<first>f)(?P<rest>.*)', target_label: c, replacement: '${rest}-$first'}",
       {{"a", "foo"}, {"b", "bar"}, {"c", "oo-f"}}},
      {"templated target label",
       "- {source_labels: [b], regex: '(b)(.*)', target_label: 'x_${2}', replacement: '$1'}",
       {{"a", "foo"}, {"b", "bar"}, {"x_ar", "b"}}},
      {"a templated target that expands to an invalid name is skipped",
       "- {source_labels: [a, b], separator: '-', regex: '(.*)', target_label: '${1}', replacement: v}",
       {{"a", "foo"}, {"b", "bar"}}},
      {"a missing source is the empty string",
       "- {source_labels: [nope], target_label: c, replacement: static}",
       {{"a", "foo"}, {"b", "bar"}, {"c", "static"}}},
      {"later rules see earlier results",
       "- {source_labels: [a], target_label: c}\n- {source_labels: [c], regex: 'f(o+)', target_label: d}",
       {{"a", "foo"}, {"b", "bar"}, {"c", "foo"}, {"d", "oo"}}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto got = relabel(c.yaml, {{"a", "foo"}, {"b", "bar"}});
    REQUIRE(got);
    CHECK(*got == c.expected);
  }
}

TEST_CASE("label names are UTF-8 by default, legacy on request", "[allocation][relabel]") {
  CHECK(valid_label_name("service.name", NameValidation::utf8));
  CHECK(valid_label_name("служба", NameValidation::utf8));
  CHECK_FALSE(valid_label_name("service.name", NameValidation::legacy));
  CHECK_FALSE(valid_label_name("", NameValidation::utf8));
  CHECK_FALSE(valid_label_name("bad\xff", NameValidation::utf8));
  CHECK_FALSE(valid_utf8("\xc0\x80"));          // overlong
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // surrogate
  CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK(valid_utf8("\xf0\x9f\x98\x80"));
  // A templated target is checked after expansion, under the rule's scheme.
  auto utf8 =
      rules("- {source_labels: [a], regex: '(.*)', target_label: '${1}-x', replacement: v}", NameValidation::utf8);
  CHECK(*Relabeler(utf8).apply(LabelSet{{"a", "foo.bar"}}) == Labels{{"a", "foo.bar"}, {"foo.bar-x", "v"}});
  auto legacy = rules("- {source_labels: [a], regex: '(.*)', target_label: '${1}_x', replacement: v}");
  CHECK(*Relabeler(legacy).apply(LabelSet{{"a", "foo.bar"}}) == Labels{{"a", "foo.bar"}});
}

TEST_CASE("keep drop keepequal and dropequal decide on the joined value", "[allocation][relabel]") {
  struct Case {
    const char* yaml;
    bool kept;
  };
  const Case cases[] = {
      {"- {source_labels: [a], regex: 'f.*', action: keep}", true},
      {"- {source_labels: [a], regex: 'b.*', action: keep}", false},
      {"- {source_labels: [a], regex: 'o+', action: keep}", false},  // anchored
      {"- {source_labels: [a], regex: 'f.*', action: drop}", false},
      {"- {source_labels: [a, b], regex: 'foo;bar', action: keep}", true},
      {"- {source_labels: [a, b], separator: '', regex: 'foobar', action: Keep}", true},  // action is case-insensitive
      {"- {source_labels: [nope], regex: '', action: keep}", true},                       // missing = ""
      {"- {source_labels: [a], target_label: c, action: keepequal}", true},
      {"- {source_labels: [a], target_label: b, action: keepequal}", false},
      {"- {source_labels: [a], target_label: c, action: dropequal}", false},
      {"- {source_labels: [a], target_label: b, action: dropequal}", true},
      {"- {source_labels: [a], regex: '(?i)FOO', action: keep}", true},
      {"- {source_labels: [n], regex: '.*', action: keep}", false},  // '.' does not match a newline
      {"- {source_labels: [n], regex: '(?s).*', action: keep}", true},
  };
  for (const auto& c : cases) {
    INFO(c.yaml);
    CHECK(relabel(c.yaml, {{"a", "foo"}, {"b", "bar"}, {"c", "foo"}, {"n", "x\ny"}}).has_value() == c.kept);
  }
}

TEST_CASE("hashmod lowercase and uppercase write the target label", "[allocation][relabel]") {
  auto got = relabel(
      "- {source_labels: [a], modulus: 1000, target_label: h, action: hashmod}\n"
      "- {source_labels: [m], target_label: lo, action: lowercase}\n"
      "- {source_labels: [m], target_label: up, action: uppercase}",
      {{"a", "foo"}, {"m", "MiXed-1"}});
  REQUIRE(got);
  CHECK(*got == Labels{{"a", "foo"}, {"h", "696"}, {"lo", "mixed-1"}, {"m", "MiXed-1"}, {"up", "MIXED-1"}});
}

TEST_CASE("labelmap labeldrop and labelkeep act on label names", "[allocation][relabel]") {
  const std::initializer_list<std::pair<std::string_view, std::string_view>> in = {
      {"__meta_kubernetes_pod_label_app", "web"}, {"__meta_kubernetes_pod_label_tier", "fe"}, {"job", "j"}};
  auto mapped = relabel("- {regex: '__meta_kubernetes_pod_label_(.+)', action: labelmap}", in);
  REQUIRE(mapped);
  CHECK(*mapped == Labels{{"__meta_kubernetes_pod_label_app", "web"},
                          {"__meta_kubernetes_pod_label_tier", "fe"},
                          {"app", "web"},
                          {"job", "j"},
                          {"tier", "fe"}});
  auto dropped = relabel("- {regex: '__meta_.*', action: labeldrop}", in);
  REQUIRE(dropped);
  CHECK(*dropped == Labels{{"job", "j"}});
  auto kept = relabel("- {regex: '.*_app|job', action: labelkeep}", in);
  REQUIRE(kept);
  CHECK(*kept == Labels{{"__meta_kubernetes_pod_label_app", "web"}, {"job", "j"}});
}

TEST_CASE("a rule reads what earlier rules wrote, whichever action wrote it", "[allocation][relabel]") {
  // Rules read names without searching the changes when no earlier rule
  // can have written them; each write below must still be seen.
  const std::initializer_list<std::pair<std::string_view, std::string_view>> in = {
      {"__meta_x", "mapped"}, {"a", "v"}, {"b", "base"}, {"c", "C"}, {"d", "same"}};
  auto got = relabel(R"(
- {regex: '__meta_(x)', action: labelmap}
- {source_labels: [x], target_label: from_map}
- {source_labels: [a], target_label: 't_${1}'}
- {source_labels: [t_v], target_label: from_template}
- {regex: 'b', action: labeldrop}
- {source_labels: [b], regex: '(.*)', target_label: b_after_drop, replacement: 'was<$1>'}
)",
                     in);
  REQUIRE(got);
  CHECK(*got == Labels{{"__meta_x", "mapped"},
                       {"a", "v"},
                       {"b_after_drop", "was<>"},
                       {"c", "C"},
                       {"d", "same"},
                       {"from_map", "mapped"},
                       {"from_template", "v"},
                       {"t_v", "v"},
                       {"x", "mapped"}});
  // Only fixed targets: each rule knows exactly which names came before.
  got = relabel(R"(
- {source_labels: [c], target_label: c_low, action: lowercase}
- {source_labels: [c_low], target_label: d}
- {source_labels: [d], target_label: d_copy}
- {source_labels: [d_copy], target_label: c_low, action: keepequal}
- {source_labels: [a], target_label: h, modulus: 1, action: hashmod}
- {source_labels: [h], target_label: h_copy}
- {source_labels: [h_copy], regex: '', target_label: c, replacement: 'h was empty'}
)",
                in);
  REQUIRE(got);
  CHECK(*got == Labels{{"__meta_x", "mapped"},
                       {"a", "v"},
                       {"b", "base"},
                       {"c", "C"},
                       {"c_low", "c"},
                       {"d", "c"},
                       {"d_copy", "c"},
                       {"h", "0"},
                       {"h_copy", "0"}});
}

TEST_CASE("labelmap: when two names map to one the later name in text order wins", "[allocation][relabel]") {
  // Intern in reverse text order so that internal (id) order differs.
  Name::intern("zz_lm_collide");
  Name::intern("aa_lm_collide");
  auto got = relabel("- {regex: '(aa|zz)_lm_collide', replacement: same, action: labelmap}",
                     {{"aa_lm_collide", "from-aa"}, {"zz_lm_collide", "from-zz"}});
  REQUIRE(got);
  CHECK(*got == Labels{{"aa_lm_collide", "from-aa"}, {"same", "from-zz"}, {"zz_lm_collide", "from-zz"}});
}

TEST_CASE("invalid relabel configs are rejected with the field named", "[allocation][relabel]") {
  struct Case {
    const char* yaml;
    const char* error;
  };
  const Case cases[] = {
      {"- {source_labels: [a], target_label: t, action: hashmod}",
       "relabel_configs[0].modulus: relabel configuration for hashmod requires non-zero modulus"},
      {"- {source_labels: [a]}",
       "relabel_configs[0].target_label: relabel configuration for replace action requires "
       "'target_label' value"},
      {"- {source_labels: [a], target_label: 1abc}",
       "relabel_configs[0].target_label: \"1abc\" is invalid 'target_label' for replace action"},
      {"- {source_labels: [a], target_label: '${1}-$'}",
       "relabel_configs[0].target_label: \"${1}-$\" is invalid 'target_label' for replace action"},
      {"- {source_labels: [a], target_label: t, replacement: x, action: lowercase}",
       "relabel_configs[0].replacement: 'replacement' can not be set for lowercase action"},
      {"- {source_labels: [a], regex: x, action: labeldrop}",
       "relabel_configs[0].action: labeldrop action requires only 'regex', and no other fields"},
      {"- {source_labels: [a], target_label: b, regex: x, action: keepequal}",
       "relabel_configs[0].action: keepequal action requires only 'source_labels' and 'target_label', and no other "
       "fields"},
      {"- {action: labelmap, replacement: 'a-b'}",
       "relabel_configs[0].replacement: \"a-b\" is invalid 'replacement' for labelmap action"},
      {"- {action: keep}\n- {action: explode}", "relabel_configs[1].action: unknown relabel action \"explode\""},
      {"- {source_labels: [a-b], action: keep}", "relabel_configs[0].source_labels: \"a-b\" is not a valid label name"},
      {"- {action: keep, regexp: x}", "relabel_configs[0].regexp: unknown field"},
      {"- {action: keep, modulus: -1}", "relabel_configs[0].modulus: expected a non-negative integer"},
  };
  for (const auto& c : cases) {
    INFO(c.yaml);
    CHECK(error_of(c.yaml) == c.error);
  }
  // Prometheus 3's default accepts any UTF-8 name, templates included.
  for (const char* yaml :
       {"- {source_labels: [a], target_label: 1abc}", "- {source_labels: [a], target_label: '${1}-$'}",
        "- {action: labelmap, replacement: 'a-b'}", "- {source_labels: [a-b], action: keep}",
        "- {source_labels: [a], target_label: 'служба.name'}"}) {
    INFO(yaml);
    CHECK(error_of(yaml, NameValidation::utf8).empty());
  }
  CHECK_THAT(error_of("- {source_labels: [a], regex: '(unclosed', action: keep}"),
             Catch::StartsWith("relabel_configs[0].regex: invalid regular expression \"(unclosed\""));
}

TEST_CASE("a target's labels win over its group's", "[allocation][relabel]") {
  LabelSet group{{"env", "group"}, {"zone", "z1"}};
  LabelSet own{{"env", "target"}, {"__address__", "h:1"}};
  LabelBuilder b;
  b.reset(&group, &own);
  CHECK(b.get(Name::intern("env")) == "target");
  CHECK(b.get(Name::intern("zone")) == "z1");
  b.set(Name::intern("zone"), "");
  CHECK(b.get(Name::intern("zone")).empty());
  CHECK(b.sorted() == Labels{{"__address__", "h:1"}, {"env", "target"}});
}
