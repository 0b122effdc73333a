// The target allocator's inputs, as its journal records them: everything
// that changes what it serves arrives as one Input, is stamped with a seq
// and a time by the journal, and is then folded by runtime::State.
// Contract: encoding is pure and byte-deterministic (compact JSON, sorted
// keys, one line with its '\n'); decode_input() throws InputError naming
// the 1-based line and the field. A journal is a header line
// {"format":"target-allocator-journal","version":1} and one Input per line.
// Types:
//  - config: the config file's text, its path, and the command-line values
//    that change its meaning (the Prometheus CR watcher flag, the collector
//    namespace, whether a cluster connection exists); the first configures
//    the allocator, later ones are live reloads;
//  - watch: one watch event (the id of the watch that saw it, the change,
//    the object; Secret data is redacted by the shell that records it);
//  - http_sd: one poll of an http_sd_configs URL (status, Content-Type and
//    body as received, or the transport error);
//  - file_sd: one read of a file_sd_configs entry's files (each matched
//    file's path and text, or why it could not be read), taken when they
//    changed;
//  - reallocate: apply what changed since the last one (the live runtime
//    asks for one after a burst of inputs, or when a grace period ends).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/discovery/kubernetes_index.hpp"
#include "model/value.hpp"

namespace allocation::runtime {

inline constexpr const char* kJournalFormat = "target-allocator-journal";
inline constexpr int kJournalVersion = 1;

enum class InputType { config, watch, http_sd, reallocate, file_sd };

struct Config;

struct ConfigInput {
  std::string text, path;
  bool prometheus_cr_watcher = false;  // --enable-prometheus-cr-watcher
  std::string collector_namespace;     // resolved from flag, config and environment
  // load_config(text, path) when the caller already parsed it (the live
  // runtime validates the file before starting); never journaled, so a
  // replay parses the text.
  std::shared_ptr<const Config> parsed;
  // Whether the process has a cluster connection: a reload that needs the
  // Kubernetes API without one is rejected (journaled only when false).
  bool kubernetes = true;
};

struct WatchInput {
  std::string watch;  // a WatchSource id
  discovery::Change change = discovery::Change::added;
  discovery::ObjectPtr object;
};

struct HttpSdInput {
  std::string source;  // an HttpSdSource id
  int status = 0;      // 0: transport error
  std::string content_type, body, error;
};

struct FileSdFile {
  std::string path, text, error;
};

struct FileSdInput {
  std::string source;  // a FileSdSource id
  std::vector<FileSdFile> files;
};

struct Input {
  std::uint64_t seq = 0;
  std::int64_t time_ms = 0;  // Unix epoch milliseconds
  InputType type = InputType::reallocate;
  ConfigInput config;
  WatchInput watch;
  HttpSdInput http_sd;
  FileSdInput file_sd;
};

using InputPtr = std::shared_ptr<const Input>;

class InputError : public std::runtime_error {
 public:
  InputError(std::size_t line, const std::string& message)
      : std::runtime_error("line " + std::to_string(line) + ": " + message), line_(line) {}
  std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

const char* input_type_name(InputType t);

std::string encode_header();
std::string encode_input(const Input& in);
// Throws InputError when `line` is not this journal's header.
void decode_header(std::string_view line);
Input decode_input(std::string_view line, std::size_t line_no);

// One line of summary for logs and --explain ("seq 12 watch collectors
// MODIFIED default/col-1"); never includes object contents or bodies.
std::string describe(const Input& in);

}  // namespace allocation::runtime
