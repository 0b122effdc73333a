// FileWatch and its timer actor.
#include "actors/allocation/file_watch.hpp"

#include <glob.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace actors {

namespace {

bool has_wildcard(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> matches(const std::string& pattern) {
  if (!has_wildcard(pattern)) return {pattern};
  glob_t g{};
  std::vector<std::string> out;
  if (::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  return out;
}

}  // namespace

FileRead read_file(const std::string& path) {
  FileRead out{path, "", ""};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.error = std::string("cannot read: ") + std::strerror(errno);
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) out.error = "read failed";
  out.text = std::move(text).str();
  return out;
}

FileSnapshot FileWatch::read() const {
  std::vector<std::string> paths;
  for (const auto& p : patterns_)
    for (auto& m : matches(p)) paths.push_back(std::move(m));
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  FileSnapshot out;
  for (const auto& p : paths) out.push_back(read_file(p));
  return out;
}

std::optional<FileSnapshot> FileWatch::check() {
  FileSnapshot now = read();
  if (last_ && *last_ == now) return std::nullopt;
  last_ = now;
  return now;
}

namespace {

struct WatchState {
  FileWatchConfig cfg;
  std::optional<FileWatch> watch;
};

void check(file_watch_actor::stateful_pointer<WatchState> self, bool forced) {
  auto& st = self->state;
  if (auto changed = st.watch->check())
    st.cfg.on_change(*changed);
  else if (forced && st.cfg.on_unchanged)
    st.cfg.on_unchanged();
}

file_watch_actor::behavior_type watch_behavior(file_watch_actor::stateful_pointer<WatchState> self,
                                               FileWatchConfig cfg) {
  auto& st = self->state;
  st.watch.emplace(cfg.patterns, std::move(cfg.initial));
  st.cfg = std::move(cfg);
  if (st.cfg.interval.count() > 0) self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        check(self, false);
        self->delayed_send(self, self->state.cfg.interval, tick_atom::value);
      },
      [=](reload_atom) { check(self, true); },
  };
}

}  // namespace

file_watch_actor spawn_file_watch(caf::actor_system& sys, FileWatchConfig cfg) {
  return sys.spawn<caf::detached>(watch_behavior, std::move(cfg));
}

}  // namespace actors
