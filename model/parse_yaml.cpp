#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "model/parse.hpp"
#include "model/yaml_fast.hpp"

namespace model {
namespace {

std::size_t count_nodes(const Value& v) {
  std::size_t n = 1;
  if (v.is_array())
    for (const auto& i : v.as_array()) n += count_nodes(i);
  if (v.is_object())
    for (const auto& [k, i] : v.as_object()) n += count_nodes(i);
  return n;
}

Value resolve_tagged(const std::string& tag, const std::string& text) {
  if (tag == "?") return resolve_plain_scalar(text);
  if (tag == "tag:yaml.org,2002:null") return Value();
  if (tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float")
    return resolve_plain_scalar(text);
  return Value(text);  // "!" (quoted), !!str, !!binary and unknown tags stay strings
}

// yaml-cpp 0.7 decodes the escapes "\N" and "\_" (U+0085, U+00A0) to one
// Latin-1 byte instead of UTF-8, so the value holds a byte no emitter can
// write back. The input was checked to be UTF-8, so a continuation byte
// without its lead can only come from those two escapes.
std::string utf8_escapes(const std::string& s) {
  if (s.find_first_of("\x85\xa0") == std::string::npos) return s;
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (c < 0x80 || c >= 0xC0 || (c != 0x85 && c != 0xA0)) {
      out.append(s, i, n);  // a whole character (the input was valid there)
      i += n;
      continue;
    }
    out += '\xC2';
    out += static_cast<char>(c);
    ++i;
  }
  return out;
}

// Builds Values from parser events with an explicit stack, so nesting depth
// is bounded by the limit rather than by the C++ call stack.
class Builder : public YAML::EventHandler {
 public:
  Builder(const ParseLimits& limits, std::string source) : limits_(limits), source_(std::move(source)) {}

  std::optional<Value> root;
  int doc_line = 1;

  void OnDocumentStart(const YAML::Mark& mark) override {
    root.reset();
    doc_line = mark.line + 1;
    nodes_ = 0;
    anchors_.clear();  // anchors are scoped to their document
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { complete(Value(), anchor, mark, true, ""); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) fail(mark, "unknown alias");
    nodes_ += it->second.second;
    alias_nodes_ += it->second.second;
    check_nodes(mark);
    // The per-document cap alone would let many small documents each
    // expand to millions of nodes; alias expansion is capped per stream.
    if (alias_nodes_ > limits_.max_alias_nodes) fail(mark, "aliases expand to too many nodes (alias bomb?)");
    complete(it->second.first, 0, mark, false, "");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& raw) override {
    const std::string value = tag == "?" ? raw : utf8_escapes(raw);  // plain scalars have no escapes
    ++nodes_;
    check_nodes(mark);
    bool plain = tag == "?";
    if (awaiting_key()) {
      stack_.back().key = value;
      stack_.back().key_plain = plain;
      stack_.back().key_line = mark.line;
      if (anchor) anchors_[anchor] = {Value(value), 1};
      return;
    }
    complete(resolve_tagged(tag, value), anchor, mark, plain, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, Value::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, Value::object(), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    Value value;
    // Keys seen so far; true when the value came from a << merge and may
    // still be overridden by an explicit key.
    std::unordered_map<std::string, bool> keys;
    YAML::anchor_t anchor = 0;
    std::optional<std::string> key;
    bool key_plain = false;
    int key_line = 0;
    YAML::Mark mark;
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& msg) {
    throw ParseError(source_, mark.line >= 0 ? mark.line + 1 : 0, msg);
  }
  void check_nodes(const YAML::Mark& mark) {
    if (nodes_ > limits_.max_nodes) fail(mark, "document expands to too many nodes (alias bomb?)");
  }
  bool awaiting_key() const { return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key; }
  void open(const YAML::Mark& mark, Value v, YAML::anchor_t anchor) {
    if (awaiting_key()) fail(mark, "mapping keys must be scalars");
    if (stack_.size() >= limits_.max_depth)
      fail(mark, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    ++nodes_;
    check_nodes(mark);
    Frame f;
    f.value = std::move(v);
    f.anchor = anchor;
    f.mark = mark;
    stack_.push_back(std::move(f));
  }
  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    complete(std::move(f.value), f.anchor, f.mark, false, "");
  }
  void complete(Value v, YAML::anchor_t anchor, const YAML::Mark& mark, bool, const std::string&) {
    if (anchor) anchors_[anchor] = {v, count_nodes(v)};
    if (stack_.empty()) {
      root = std::move(v);
      return;
    }
    Frame& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push(std::move(v));
      return;
    }
    if (!top.key) {  // a null or aliased node used as a mapping key
      if (v.is_null()) v = Value("null");
      if (!v.is_string()) fail(mark, "mapping keys must be scalars");
      top.key = v.as_string();
      top.key_plain = false;
      return;
    }
    std::string key = std::move(*top.key);
    top.key.reset();
    if (key == "<<" && top.key_plain) return merge(top, v, mark);
    auto [it, fresh] = top.keys.emplace(key, false);
    if (!fresh) {
      if (!it->second) fail(mark, "duplicate mapping key \"" + key + "\"");
      it->second = false;  // an explicit key overrides a merged one
      top.value.set(key, std::move(v));
      return;
    }
    top.value.as_object().emplace_back(std::move(key), std::move(v));
  }
  // YAML merge keys: merged entries never replace keys already present, and
  // earlier maps in a merge list win over later ones.
  void merge(Frame& into, const Value& from, const YAML::Mark& mark) {
    if (from.is_object()) {
      for (const auto& [k, v] : from.as_object())
        if (into.keys.emplace(k, true).second) into.value.as_object().emplace_back(k, v);
    } else if (from.is_array()) {
      for (const auto& item : from.as_array()) merge(into, item, mark);
    } else {
      fail(mark, "merge key << needs a mapping or a list of mappings");
    }
  }

  const ParseLimits& limits_;
  std::string source_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::pair<Value, std::size_t>> anchors_;
  std::size_t nodes_ = 0;
  std::size_t alias_nodes_ = 0;
};

bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

ParseError::ParseError(std::string source, int line, std::string message)
    : std::runtime_error(source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message),
      source_(std::move(source)),
      line_(line),
      problem_(std::move(message)) {}

// Offset of the first byte that makes `s` something other than UTF-8 YAML
// text, or npos: a byte that does not start a valid UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included), or
// NUL. yaml-cpp passes invalid bytes through, but no YAML emitter can write
// them back (a "\xa6" escape is U+00A6, two bytes), so they would change
// silently on the way to agent.yml; Go's YAML decoder rejects them too. A
// NUL (which YAML does not allow) among the first bytes makes yaml-cpp
// guess UTF-16 or UTF-32 and decode the text into garbage.
std::size_t non_utf8_yaml_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    // Eight bytes at a time while they are ASCII without NUL, which is
    // nearly all of a manifest.
    constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    if (s.size() - i >= 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, 8);
      if (((w | ((w - kOnes) & ~w)) & kHigh) == 0) {  // no high bit and no zero byte
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0) return i;
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    const std::uint32_t min = n == 3 ? 0x10000 : n == 2 ? 0x800 : 0x80;
    if (c < 0xC0 || c >= 0xF8 || s.size() - i <= n) return i;
    std::uint32_t cp = c & (0x3F >> n);
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

namespace {
// Occurrences of "---" and "..." (an upper bound on document markers).
std::size_t count_markers(std::string_view text) {
  std::size_t n = 0;
  for (std::string_view marker : {"---", "..."}) {
    for (auto pos = text.find(marker); pos != std::string_view::npos; pos = text.find(marker, pos + 3)) ++n;
  }
  return n;
}
}  // namespace

std::vector<Document> parse_documents(std::string_view text, std::string_view source, const ParseLimits& limits) {
  if (text.size() > limits.max_bytes) throw ParseError(std::string(source), 0, "input larger than the size limit");
  if (std::size_t bad = non_utf8_yaml_at(text); bad != std::string_view::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    throw ParseError(std::string(source), static_cast<int>(line),
                     "not UTF-8 text (byte offset " + std::to_string(bad) + ")");
  }
  std::vector<Document> docs;
  if (looks_like_json(text)) {
    try {
      Value v = parse_json(text, source, limits);
      if (!v.is_null()) docs.push_back(Document{std::move(v), 1});
      return docs;
    } catch (const ParseError&) {
      // Not strict JSON; YAML reads flow style too and reports a line number.
    }
  }
  if (auto fast = read_yaml_fast(text, limits)) return std::move(*fast);
  return read_yaml_cpp(text, source, limits);
}

std::vector<Document> read_yaml_cpp(std::string_view text, std::string_view source, const ParseLimits& limits) {
  std::vector<Document> docs;
  std::istringstream in{std::string(text)};
  Builder builder(limits, std::string(source));
  try {
    YAML::Parser parser(in);
    // yaml-cpp 0.7 reports an endless stream of empty documents when a flow
    // indicator such as ',' stands outside a flow collection (upstream
    // issue 1040). Every document after the first starts after a "---" or
    // "..." marker, so more documents than markers + 1 means no progress.
    const std::size_t max_documents = count_markers(text) + 1;
    for (std::size_t handled = 0; parser.HandleNextDocument(builder);) {
      if (++handled > max_documents)
        throw ParseError(std::string(source), builder.doc_line,
                         "unexpected flow indicator (such as ',') outside a flow collection");
      if (builder.root && !builder.root->is_null())
        docs.push_back(Document{std::move(*builder.root), builder.doc_line});
    }
  } catch (const YAML::Exception& e) {
    throw ParseError(std::string(source), e.mark.line >= 0 ? e.mark.line + 1 : 0, e.msg);
  }
  return docs;
}

}  // namespace model
