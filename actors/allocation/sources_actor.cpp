// The sources actor: reflectors, http_sd pollers and file_sd readers for the allocator.
#include "actors/allocation/sources_actor.hpp"

#include <httplib.h>

#include <algorithm>
#include <map>
#include <memory>

#include "actors/allocation/file_watch.hpp"
#include "k8s/client/reflector.hpp"

namespace actors {

namespace {

using allocation::runtime::FileSdSource;
using allocation::runtime::HttpSdSource;
using allocation::runtime::Input;
using allocation::runtime::InputType;
using allocation::runtime::WatchSource;

// "scheme://host[:port]" and the rest ("/path?query", "/" when empty).
std::pair<std::string, std::string> split_url(const std::string& url) {
  const auto host_start = url.find("://") + 3;
  const auto path_start = url.find_first_of("/?", host_start);
  if (path_start == std::string::npos) return {url, "/"};
  std::string path = url.substr(path_start);
  if (path.front() == '?') path = "/" + path;
  return {url.substr(0, path_start), path};
}

struct PollerState {
  HttpSdSource source;
  allocation_journal_actor journal;
};

http_sd_poller_actor::behavior_type poller(http_sd_poller_actor::stateful_pointer<PollerState> self,
                                           HttpSdSource source, allocation_journal_actor journal) {
  self->state.source = std::move(source);
  self->state.journal = journal;
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        auto in = std::make_shared<Input>();
        in->type = InputType::http_sd;
        try {
          in->http_sd = fetch_http_sd(self->state.source);
        } catch (const std::exception& e) {  // the poller must outlive any one failure
          in->http_sd.source = self->state.source.id;
          in->http_sd.error = e.what();
        }
        self->send(self->state.journal, input_atom::value, InputPtr(std::move(in)));
        self->delayed_send(self, self->state.source.config.refresh_interval, tick_atom::value);
      },
  };
}

struct Watch {
  WatchSource source;
  std::unique_ptr<k8s::Reflector> reflector;
};

struct SourcesState {
  SourcesConfig cfg;
  std::map<std::string, Watch> watches;
  std::map<std::string, http_sd_poller_actor> pollers;   // by source id
  std::map<std::string, file_watch_actor> file_readers;  // by source id
  ~SourcesState() {
    for (auto& [id, w] : watches) w.reflector->stop();
    for (auto& [id, p] : pollers) caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
    for (auto& [id, r] : file_readers) caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  }
};

using Sources = sources_actor::stateful_pointer<SourcesState>;

void log(Sources self, model::LogEntry e) {
  self->state.cfg.log(e);
}

std::unique_ptr<k8s::Reflector> start_watch(Sources self, const WatchSource& w) {
  const k8s::Resource* resource = k8s::resource_for_kind(w.kind);
  if (!resource) {
    log(self,
        model::log_error("discovery", "cannot watch an unknown kind").with("field", w.field).with("kind", w.kind));
    return nullptr;
  }
  k8s::ReflectorOptions options;
  options.ns = w.ns;
  options.label_selector = w.label_selector;
  options.field_selector = w.field_selector;
  auto sink = [journal = self->state.cfg.journal, id = w.id](k8s::ObjectEvent e) {
    auto in = std::make_shared<Input>();
    in->type = InputType::watch;
    in->watch = {id, e.type, std::move(e.object)};
    caf::anon_send(journal, input_atom::value, InputPtr(std::move(in)));
  };
  auto on_error = [logger = self->state.cfg.log, field = w.field, kind = w.kind](const k8s::Result& r) {
    logger(model::log_warn("discovery", "list or watch failed; retrying")
               .with("field", field)
               .with("kind", kind)
               .with("status", r.status)
               .with("error", r.error));
  };
  auto reflector = std::make_unique<k8s::Reflector>(*self->state.cfg.client, *resource, options, std::move(sink),
                                                    nullptr, std::move(on_error));
  reflector->start();
  return reflector;
}

void update_watches(Sources self, const std::vector<WatchSource>& wanted) {
  auto& watches = self->state.watches;
  for (auto it = watches.begin(); it != watches.end();) {
    auto same = std::find(wanted.begin(), wanted.end(), it->second.source);
    if (same != wanted.end()) {
      ++it;
      continue;
    }
    it->second.reflector->stop();  // no event arrives after this
    it = watches.erase(it);
  }
  for (const auto& w : wanted) {
    if (watches.count(w.id)) continue;
    if (!self->state.cfg.client) {
      log(self, model::log_warn("discovery", "no cluster connection; not watching")
                    .with("field", w.field)
                    .with("kind", w.kind));
      continue;
    }
    if (auto r = start_watch(self, w)) watches.emplace(w.id, Watch{w, std::move(r)});
  }
}

// Stops the running actors whose id is no longer wanted and starts one per
// new id. runtime::State gives a source a new id whenever its entry
// changes (URL, files, interval), so an id still wanted needs no restart.
template <class Handle, class Source, class Start>
void sync_by_id(std::map<std::string, Handle>& running, const std::vector<Source>& wanted, Start start) {
  for (auto it = running.begin(); it != running.end();) {
    if (std::any_of(wanted.begin(), wanted.end(), [&](const Source& s) { return s.id == it->first; })) {
      ++it;
      continue;
    }
    caf::anon_send_exit(it->second, caf::exit_reason::user_shutdown);
    it = running.erase(it);
  }
  for (const auto& s : wanted)
    if (!running.count(s.id)) running.emplace(s.id, start(s));
}

// Prometheus watches the files with inotify and rereads them every
// refresh_interval; reading them every few seconds (at most every
// refresh_interval) sees the same changes, symlink swaps included.
constexpr std::chrono::milliseconds kFileSdRead{5000};

file_watch_actor start_file_reader(Sources self, const FileSdSource& s) {
  FileWatchConfig fw;
  fw.patterns = s.config.files;
  fw.interval = std::min(s.config.refresh_interval, kFileSdRead);
  fw.on_change = [journal = self->state.cfg.journal, id = s.id](const FileSnapshot& files) {
    auto in = std::make_shared<Input>();
    in->type = InputType::file_sd;
    in->file_sd.source = id;
    for (const auto& f : files) in->file_sd.files.push_back({f.path, f.text, f.error});
    caf::anon_send(journal, input_atom::value, InputPtr(std::move(in)));
  };
  return spawn_file_watch(self->home_system(), std::move(fw));
}

sources_actor::behavior_type sources_behavior(Sources self, SourcesConfig cfg) {
  self->state.cfg = std::move(cfg);
  return {
      [=](sources_atom, const WatchSourcesPtr& watches, const HttpSdSourcesPtr& http_sd,
          const FileSdSourcesPtr& file_sd) {
        update_watches(self, *watches);
        sync_by_id(self->state.pollers, *http_sd, [self](const HttpSdSource& s) {
          return self->home_system().spawn<caf::detached>(poller, s, self->state.cfg.journal);
        });
        sync_by_id(self->state.file_readers, *file_sd,
                   [self](const FileSdSource& s) { return start_file_reader(self, s); });
      },
  };
}

}  // namespace

sources_actor spawn_sources(caf::actor_system& sys, SourcesConfig cfg) {
  return sys.spawn<caf::detached>(sources_behavior, std::move(cfg));
}

allocation::runtime::HttpSdInput fetch_http_sd(const HttpSdSource& source) {
  const auto& config = source.config;
  allocation::runtime::HttpSdInput out;
  out.source = source.id;
  const auto [origin, path] = split_url(config.url);
  httplib::Client client(origin);
  client.set_url_encode(false);  // the configured URL is sent as written
  const auto timeout =
      std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(config.refresh_interval).count());
  client.set_connection_timeout(std::min<std::int64_t>(timeout, 10), 0);
  client.set_read_timeout(std::min<std::int64_t>(timeout, 10), 0);  // bounds how long a stop waits
  const httplib::Headers headers = {
      {"Accept", "application/json"},
      {"User-Agent", "agent-operator-target-allocator"},
      {"X-Prometheus-Refresh-Interval-Seconds", std::to_string(config.refresh_interval.count() / 1000)}};
  auto res = client.Get(path.c_str(), headers);
  if (!res) {
    out.error = httplib::to_string(res.error());
    return out;
  }
  out.status = res->status;
  out.content_type = res->get_header_value("Content-Type");
  out.body = std::move(res->body);
  return out;
}

void send_wanted_sources(const sources_actor& sources, const allocation::runtime::State& st) {
  caf::anon_send(sources, sources_atom::value,
                 std::make_shared<const std::vector<allocation::runtime::WatchSource>>(st.watches()),
                 std::make_shared<const std::vector<allocation::runtime::HttpSdSource>>(st.http_sd()),
                 std::make_shared<const std::vector<allocation::runtime::FileSdSource>>(st.file_sd()));
}

}  // namespace actors
