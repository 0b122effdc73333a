// Polls files for the target allocator: its config file (live reload) and
// the files of file_sd_configs. A mounted ConfigMap changes by swapping a
// symlink, which no single inotify watch on the file sees; reading the
// files on a timer sees every kind of update and costs one small read per
// file per interval.
// Contract: FileWatch is the pure-ish core (it reads files, nothing else):
// check() reads every file matching the patterns (glob(3); a pattern
// without wildcards is one path) and returns the snapshot when it differs
// from the last one returned (or the initial one given). The actor calls
// check() every `interval` (never when it is zero) and on reload_atom
// (SIGHUP), on its own detached thread, and hands changes to on_change;
// reload_atom with nothing changed calls on_unchanged.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/protocol.hpp"

namespace actors {

struct FileRead {
  std::string path, text, error;  // error: why the file could not be read ("" when read)
  friend bool operator==(const FileRead&, const FileRead&) = default;
};
using FileSnapshot = std::vector<FileRead>;  // sorted by path

// Reads one file whole; a missing or unreadable file gives FileRead::error.
FileRead read_file(const std::string& path);

class FileWatch {
 public:
  explicit FileWatch(std::vector<std::string> patterns, std::optional<FileSnapshot> initial = std::nullopt)
      : patterns_(std::move(patterns)), last_(std::move(initial)) {}
  // The matching files now, when they differ from the last snapshot.
  std::optional<FileSnapshot> check();
  // Every pattern's matches, sorted by path; a pattern that matches nothing
  // and has no wildcard is read anyway, so its error is reported.
  FileSnapshot read() const;

 private:
  std::vector<std::string> patterns_;
  std::optional<FileSnapshot> last_;
};

struct FileWatchConfig {
  std::vector<std::string> patterns;
  std::optional<FileSnapshot> initial;
  std::chrono::milliseconds interval{1000};
  std::function<void(const FileSnapshot&)> on_change;
  std::function<void()> on_unchanged;
};

file_watch_actor spawn_file_watch(caf::actor_system& sys, FileWatchConfig cfg);

}  // namespace actors
