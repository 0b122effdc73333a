// Input <-> journal line.
#include "allocation/runtime/input.hpp"

#include "allocation/discovery/meta.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace allocation::runtime {

namespace {

using model::Value;

const char* kTypes[] = {"config", "watch", "http_sd", "reallocate", "file_sd"};

std::optional<InputType> parse_type(std::string_view s) {
  for (int i = 0; i < 5; ++i)
    if (s == kTypes[i]) return static_cast<InputType>(i);
  return std::nullopt;
}

// Field readers for one decoded line; errors name the line and the field.
struct Reader {
  const Value& doc;
  std::size_t line;

  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw InputError(line, std::string(field) + ": " + std::string(problem));
  }
  const Value* get(std::string_view key) const { return doc.find(key); }
  std::string str(std::string_view key, bool required = true) const {
    const Value* v = get(key);
    if (!v) {
      if (required) fail(key, "missing");
      return "";
    }
    if (!v->is_string()) fail(key, "must be a string");
    return v->as_string();
  }
  std::int64_t num(std::string_view key) const {
    const Value* v = get(key);
    if (!v || !v->is_int()) fail(key, "must be an integer");
    return v->as_int();
  }
  bool flag(std::string_view key) const {
    const Value* v = get(key);
    if (!v) return false;
    if (!v->is_bool()) fail(key, "must be a boolean");
    return v->as_bool();
  }
};

void decode_files(const Reader& r, FileSdInput& out) {
  out.source = r.str("source");
  const Value* files = r.get("files");
  if (!files || !files->is_array()) r.fail("files", "must be a list");
  for (std::size_t i = 0; i < files->as_array().size(); ++i) {
    const Value& f = files->as_array()[i];
    if (!f.is_object()) r.fail("files[" + std::to_string(i) + "]", "must be an object");
    const Reader fr{f, r.line};
    out.files.push_back({fr.str("path"), fr.str("text", false), fr.str("error", false)});
  }
}

void decode_body(const Reader& r, Input& in) {
  switch (in.type) {
    case InputType::config:
      in.config.text = r.str("text");
      in.config.path = r.str("path");
      in.config.prometheus_cr_watcher = r.flag("prometheus_cr_watcher");
      in.config.collector_namespace = r.str("collector_namespace", false);
      in.config.kubernetes = !r.get("kubernetes") || r.flag("kubernetes");
      return;
    case InputType::watch: {
      in.watch.watch = r.str("watch");
      auto change = model::parse_change(r.str("change"));
      if (!change) r.fail("change", "must be ADDED, MODIFIED or DELETED");
      in.watch.change = *change;
      const Value* object = r.get("object");
      if (!object || !object->is_object()) r.fail("object", "must be an object");
      in.watch.object = std::make_shared<const Value>(*object);
      return;
    }
    case InputType::http_sd:
      in.http_sd.source = r.str("source");
      in.http_sd.status = static_cast<int>(r.num("status"));
      in.http_sd.content_type = r.str("content_type", false);
      in.http_sd.body = r.str("body", false);
      in.http_sd.error = r.str("error", false);
      return;
    case InputType::file_sd:
      decode_files(r, in.file_sd);
      return;
    case InputType::reallocate:
      return;
  }
}

}  // namespace

const char* input_type_name(InputType t) {
  return kTypes[static_cast<int>(t)];
}

std::string encode_header() {
  return model::to_json(Value::obj({{"format", kJournalFormat}, {"version", kJournalVersion}})) + "\n";
}

std::string encode_input(const Input& in) {
  Value doc = Value::obj(
      {{"seq", static_cast<std::int64_t>(in.seq)}, {"time", in.time_ms}, {"type", input_type_name(in.type)}});
  switch (in.type) {
    case InputType::config:
      doc.set("text", in.config.text);
      doc.set("path", in.config.path);
      doc.set("prometheus_cr_watcher", in.config.prometheus_cr_watcher);
      doc.set("collector_namespace", in.config.collector_namespace);
      if (!in.config.kubernetes) doc.set("kubernetes", false);
      break;
    case InputType::watch:
      doc.set("watch", in.watch.watch);
      doc.set("change", model::change_name(in.watch.change));
      doc.set("object", in.watch.object ? *in.watch.object : Value::object());
      break;
    case InputType::http_sd:
      doc.set("source", in.http_sd.source);
      doc.set("status", in.http_sd.status);
      doc.set("content_type", in.http_sd.content_type);
      doc.set("body", in.http_sd.body);
      doc.set("error", in.http_sd.error);
      break;
    case InputType::file_sd: {
      doc.set("source", in.file_sd.source);
      Value files = Value::array();
      for (const auto& f : in.file_sd.files)
        files.push(Value::obj({{"path", f.path}, {"text", f.text}, {"error", f.error}}));
      doc.set("files", std::move(files));
      break;
    }
    case InputType::reallocate:
      break;
  }
  return model::to_json(doc) + "\n";
}

void decode_header(std::string_view line) {
  Value doc;
  try {
    doc = model::parse_json(line, "journal header");
  } catch (const std::exception& e) {
    throw InputError(1, std::string("not a target-allocator journal: ") + e.what());
  }
  const Value* format = doc.is_object() ? doc.find("format") : nullptr;
  if (!format || !format->is_string() || format->as_string() != kJournalFormat)
    throw InputError(1, std::string("format: want \"") + kJournalFormat + "\"");
  const Value* version = doc.find("version");
  if (!version || !version->is_int() || version->as_int() != kJournalVersion)
    throw InputError(1, "version: want " + std::to_string(kJournalVersion));
}

Input decode_input(std::string_view line, std::size_t line_no) {
  Value doc;
  try {
    doc = model::parse_json(line, "journal line " + std::to_string(line_no));
  } catch (const std::exception& e) {
    throw InputError(line_no, e.what());
  }
  if (!doc.is_object()) throw InputError(line_no, "must be a JSON object");
  const Reader r{doc, line_no};
  Input in;
  in.seq = static_cast<std::uint64_t>(r.num("seq"));
  in.time_ms = r.num("time");
  auto type = parse_type(r.str("type"));
  if (!type) r.fail("type", "must be config, watch, http_sd, file_sd or reallocate");
  in.type = *type;
  decode_body(r, in);
  return in;
}

std::string describe(const Input& in) {
  std::string out = "seq " + std::to_string(in.seq) + " " + input_type_name(in.type);
  switch (in.type) {
    case InputType::config:
      return out + " " + in.config.path;
    case InputType::watch:
      return out + " " + in.watch.watch + " " + model::change_name(in.watch.change) + " " +
             (in.watch.object ? model::namespaced_name(*in.watch.object) : std::string("?"));
    case InputType::http_sd:
      return out + " " + in.http_sd.source +
             (in.http_sd.error.empty() ? " status " + std::to_string(in.http_sd.status) : " failed");
    case InputType::file_sd:
      return out + " " + in.file_sd.source + " " + std::to_string(in.file_sd.files.size()) + " files";
    case InputType::reallocate:
      break;
  }
  return out;
}

}  // namespace allocation::runtime
