#include "golden_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace testutil {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string reference_path(const std::string& relative) {
  return std::string(AO_REFERENCE_DIR) + "/" + relative;
}
std::string source_path(const std::string& relative) {
  return std::string(AO_SOURCE_DIR) + "/" + relative;
}
std::string mutate(std::string s, std::mt19937& rng, std::span<const std::string> tokens) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int i = 0; i < edits && !s.empty(); ++i) {
    const std::size_t pos = rng() % s.size();
    switch (rng() % 4) {
      case 0:
        s[pos] = static_cast<char>(rng() % 256);
        break;
      case 1:
        s.insert(pos, tokens[rng() % tokens.size()]);
        break;
      case 2:
        s.erase(pos, 1 + rng() % 16);
        break;
      default:
        s = s.substr(0, pos);
        break;
    }
  }
  return s;
}

std::vector<std::string> yaml_fuzz_tokens(std::vector<std::string> extra) {
  std::vector<std::string> tokens = {":",
                                     "-",
                                     "[",
                                     "]",
                                     "{",
                                     "}",
                                     "'",
                                     "\"",
                                     "\n",
                                     "  ",
                                     "&a",
                                     "*a",
                                     "!!int",
                                     "---",
                                     "#",
                                     "|",
                                     ">",
                                     "\t",
                                     std::string(1, '\0'),
                                     "\xff",
                                     "~",
                                     "null",
                                     "1e999",
                                     ","};
  tokens.insert(tokens.end(), extra.begin(), extra.end());
  return tokens;
}

namespace {

model::Value other_type(std::mt19937& rng) {
  switch (rng() % 6) {
    case 0:
      return model::Value("x");
    case 1:
      return model::Value(static_cast<std::int64_t>(rng() % 1000) - 500);
    case 2:
      return model::Value(true);
    case 3:
      return model::Value::arr({"a", 1});
    case 4:
      return model::Value::obj({{"k", "v"}});
    default:
      return model::Value();
  }
}

}  // namespace

model::Value confuse(const model::Value& v, std::mt19937& rng, const Confusion& how, int depth) {
  if ((depth > 0 || !how.keep_root) && (rng() % how.one_in == 0 || depth > 12)) return other_type(rng);
  model::Value out = v;
  if (out.is_object()) {
    for (auto& [k, child] : out.as_object()) {
      const bool keep = std::find(how.keep_keys.begin(), how.keep_keys.end(), k) != how.keep_keys.end();
      if (!keep) child = confuse(child, rng, how, depth + 1);
    }
  }
  if (out.is_array())
    for (auto& child : out.as_array()) child = confuse(child, rng, how, depth + 1);
  return out;
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

void check_golden(const std::string& suite, const std::string& name, const std::string& actual) {
  std::filesystem::path path = source_path("tests/golden/" + suite + "/" + name);
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  INFO("golden file " << path.string() << " (regenerate with UPDATE_GOLDEN=1)");
  REQUIRE(std::filesystem::exists(path));
  std::string expected = read_text(path.string());
  CHECK(expected == actual);
}

std::vector<std::string> inventory_problems(const std::string& text) {
  model::Inventory inv = inventory_from_yaml(text);
  std::vector<std::string> out;
  for (const auto& p : inv.problems()) out.push_back(p.str());
  std::sort(out.begin(), out.end());
  return out;
}

model::Inventory inventory_from_yaml(const std::string& text) {
  model::Inventory inv;
  for (auto& doc : model::parse_documents(text, "test")) inv.add(doc.value);
  return inv;
}

ReferenceCase load_reference_case(const std::string& name) {
  std::string text = read_text(reference_path("golden/agent-operator/" + name + ".case"));
  ReferenceCase rc;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line) && line.rfind("#", 0) == 0) {
    if (line.rfind("# entry: ", 0) == 0) rc.entry = line.substr(9);
    if (line.rfind("# secret store: ", 0) == 0) {
      model::Value store = model::parse_json(line.substr(16));
      for (const auto& [key, value] : store.as_object()) {
        // "/secrets/<ns>/<name>/<key>" becomes a Secret with that key.
        auto p1 = key.view().find('/', 9), p2 = key.view().find('/', p1 + 1);
        std::string ns = key.str().substr(9, p1 - 9), sname = key.str().substr(p1 + 1, p2 - p1 - 1),
                    k = key.str().substr(p2 + 1);
        model::Value secret =
            model::Value::obj({{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", model::Value::obj({{"name", sname}, {"namespace", ns}})},
                               {"data", model::Value::obj({{k, model::base64_encode(value.as_string())}})}});
        auto existing = rc.inventory.secrets.find({ns, sname});
        if (existing != rc.inventory.secrets.end()) {
          model::Secret edited = *existing->second.decoded;
          edited.data[k] = value.as_string();
          existing->second.decoded = std::make_shared<const model::Secret>(std::move(edited));
        } else {
          rc.inventory.add(secret);
        }
      }
    }
  }
  auto in_pos = text.find("---INPUT---");
  auto out_pos = text.find("---OUTPUT---");
  REQUIRE(in_pos != std::string::npos);
  REQUIRE(out_pos != std::string::npos);
  std::string input = text.substr(in_pos + 11, out_pos - in_pos - 11);
  for (auto& doc : model::parse_documents(input, name)) rc.inventory.add(doc.value);
  auto out_docs = model::parse_documents(text.substr(out_pos + 12), name + " output");
  REQUIRE(out_docs.size() == 1);
  rc.expected = out_docs[0].value;
  return rc;
}

std::string describe_difference(const model::Value& expected, const model::Value& actual, const std::string& path) {
  if (expected == actual) return "";
  if (expected.is_object() && actual.is_object()) {
    std::string out;
    for (const auto& [k, v] : expected.as_object()) {
      const model::Value* a = actual.find(k);
      if (!a)
        out += path + "." + k + ": missing\n";
      else
        out += describe_difference(v, *a, path + "." + k);
    }
    for (const auto& [k, v] : actual.as_object())
      if (!expected.find(k)) out += path + "." + k + ": unexpected " + model::to_json(v) + "\n";
    return out;
  }
  if (expected.is_array() && actual.is_array() && expected.size() == actual.size()) {
    std::string out;
    for (std::size_t i = 0; i < expected.size(); ++i)
      out += describe_difference(expected.as_array()[i], actual.as_array()[i], path + "[" + std::to_string(i) + "]");
    return out;
  }
  return path + ": expected " + model::to_json(expected) + "\n" + std::string(path.size(), ' ') + "  actual   " +
         model::to_json(actual) + "\n";
}

void check_same(const model::Value& expected, const model::Value& actual) {
  INFO(describe_difference(expected, actual));
  CHECK(expected == actual);
}

std::string subset_mismatch(const model::Value& expected, const model::Value& actual, const std::string& path) {
  if (expected.is_object()) {
    if (!actual.is_object()) return path + ": expected an object, got " + model::to_json(actual);
    for (const auto& [k, v] : expected.as_object()) {
      const model::Value* a = actual.find(k);
      if (!a) return path + "." + k + ": missing";
      if (auto m = subset_mismatch(v, *a, path + "." + k); !m.empty()) return m;
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size())
      return path + ": expected " + std::to_string(expected.size()) + " items, got " + model::to_json(actual);
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (auto m = subset_mismatch(expected.as_array()[i], actual.as_array()[i], path + "[" + std::to_string(i) + "]");
          !m.empty())
        return m;
    return "";
  }
  if (expected != actual) return path + ": expected " + model::to_json(expected) + ", got " + model::to_json(actual);
  return "";
}

model::Value yaml(const std::string& text) {
  auto docs = model::parse_documents(text, "test");
  REQUIRE(docs.size() == 1);
  return docs[0].value;
}

const model::Value& at(const model::Value& v, const std::string& path) {
  const model::Value* cur = &v;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      std::size_t idx = std::stoul(path.substr(i + 1, close - i - 1));
      if (!cur->is_array() || idx >= cur->size()) throw std::runtime_error("no item in " + path);
      cur = &cur->as_array()[idx];
      i = close + 1;
    } else {
      std::size_t end = path.find_first_of(".[", i);
      cur = cur->find(path.substr(i, end - i));
      if (!cur) throw std::runtime_error("no member in " + path);
      i = end == std::string::npos ? path.size() : end;
    }
  }
  return *cur;
}

std::vector<std::string> names(const model::Value& list) {
  std::vector<std::string> out;
  for (const model::Value& v : list.as_array()) out.push_back(at(v, "name").as_string());
  return out;
}

}  // namespace testutil
