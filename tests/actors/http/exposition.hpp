// A small reader of the Prometheus text format for tests: samples by metric
// name and label set, independent of label order and number formatting.
// Contract: handles the subset prometheus-cpp emits (escaped label values,
// no timestamps); a line it cannot read fails the parse with its text.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace testutil {

using LabelSet = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  LabelSet labels;
  double value = 0;
};

struct Exposition {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;  // # TYPE lines

  std::optional<double> value(const std::string& name, const LabelSet& labels = {}) const {
    for (const Sample& s : samples)
      if (s.name == name && s.labels == labels) return s.value;
    return std::nullopt;
  }
  std::size_t count(const std::string& name) const {
    std::size_t n = 0;
    for (const Sample& s : samples) n += s.name == name;
    return n;
  }
};

inline LabelSet parse_labels(const std::string& text, std::size_t& i) {
  LabelSet out;
  ++i;  // '{'
  while (i < text.size() && text[i] != '}') {
    std::size_t eq = text.find('=', i);
    std::string key = text.substr(i, eq - i);
    i = eq + 2;  // skip ="
    std::string value;
    for (; text[i] != '"'; ++i) {
      if (text[i] == '\\') {
        ++i;
        value += text[i] == 'n' ? '\n' : text[i];
      } else {
        value += text[i];
      }
    }
    out[key] = value;
    ++i;  // closing quote
    if (text[i] == ',') ++i;
  }
  ++i;  // '}'
  return out;
}

inline Exposition parse_exposition(const std::string& text) {
  Exposition out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::size_t sp = line.find(' ', 7);
      out.types[line.substr(7, sp - 7)] = line.substr(sp + 1);
      continue;
    }
    if (line[0] == '#') continue;
    Sample s;
    std::size_t i = line.find_first_of("{ ");
    if (i == std::string::npos) throw std::runtime_error("unreadable sample: " + line);
    s.name = line.substr(0, i);
    if (line[i] == '{') s.labels = parse_labels(line, i);
    s.value = std::stod(line.substr(i + 1));
    out.samples.push_back(std::move(s));
  }
  return out;
}

}  // namespace testutil
