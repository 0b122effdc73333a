// The allocation journal and the allocation actor.
#include "actors/allocation/allocation_actor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>

#include "allocation/responses.hpp"
#include "allocation/runtime/state.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

using allocation::runtime::Input;
using allocation::runtime::InputType;

std::int64_t system_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

InputPtr reallocate_input() {
  auto in = std::make_shared<Input>();
  in->type = InputType::reallocate;
  return in;
}

// --- journal -----------------------------------------------------------------

struct JournalState {
  AllocationJournalConfig cfg;
  int fd = -1;
  std::uint64_t seq = 0;
  ~JournalState() {
    if (fd >= 0) ::close(fd);
  }
};

void write_line(int fd, const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "writing the allocator journal");
    done += static_cast<std::size_t>(n);
  }
}

// The config file with its credentials (basic_auth passwords, bearer
// tokens, ...) as "<secret>", re-emitted as JSON (which the YAML reader
// takes). The file was validated before it was journaled.
std::string masked_config(const std::string& text, const std::string& path) {
  try {
    auto docs = model::parse_documents(text, path);
    if (docs.size() != 1) return "";
    allocation::mask_secret_fields(docs[0].value);
    return model::to_json(docs[0].value);
  } catch (const std::exception&) {
    return "";  // never the raw text: it may hold credentials
  }
}

// What the file gets: the config's credentials masked, Secret data and
// every ConfigMap's data redacted (a monitor may take credentials from a
// ConfigMap). The live fold still sees the values; no assignment depends
// on them, so a replay reaches the same assignment.
std::string recorded_line(const JournalState& st, const Input& in) {
  if (in.type == InputType::config) {
    Input copy = in;
    copy.config.text = masked_config(in.config.text, in.config.path);
    return encode_input(copy);
  }
  if (in.type != InputType::watch || !in.watch.object || !st.cfg.redaction) return encode_input(in);
  const std::string kind = model::string_at(*in.watch.object, {"kind"});
  if (!st.cfg.redaction->redacts(kind, core::object_key(*in.watch.object))) return encode_input(in);
  Input copy = in;
  copy.watch.object = std::make_shared<const model::Value>(core::redact(kind, *in.watch.object, *st.cfg.redaction));
  return encode_input(copy);
}

using Journal = allocation_journal_actor::stateful_pointer<JournalState>;

allocation_journal_actor::behavior_type journal_behavior(Journal self, AllocationJournalConfig cfg, int fd) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.fd = fd;
  if (!st.cfg.wall_ms) st.cfg.wall_ms = system_ms;
  return {
      [=](input_atom, const InputPtr& in) {
        auto& st = self->state;
        auto stamped = std::make_shared<Input>(*in);
        stamped->seq = ++st.seq;
        stamped->time_ms = st.cfg.wall_ms();
        if (st.fd >= 0) {
          try {
            write_line(st.fd, recorded_line(st, *stamped));
          } catch (const std::system_error& e) {
            // Serving goes on; a journal with a gap would replay wrongly, so it stops here.
            st.cfg.log(model::log_error("journal", "the journal stopped; allocation goes on unrecorded")
                           .with("file", st.cfg.path)
                           .with("seq", stamped->seq)
                           .with("error", e.what()));
            ::close(st.fd);
            st.fd = -1;
          }
        }
        self->send(st.cfg.target, input_atom::value, InputPtr(std::move(stamped)));
      },
      [=](stats_atom) -> std::uint64_t { return self->state.seq; },
  };
}

// --- allocation actor ----------------------------------------------------------

struct AllocState {
  AllocationHooks hooks;
  allocation::runtime::State state;
  std::uint64_t seq = 0;
  bool requested = false;  // a reallocate request is in flight
  std::optional<allocation::TimePoint> wake;
  std::string batch_first;  // describe() of the first input since the last reallocate
  std::size_t batch_inputs = 0;
};

// What the reallocate `in` followed, for hooks.publish.
std::string reallocate_cause(AllocState& st, const Input& in) {
  if (st.batch_inputs == 0) return allocation::runtime::describe(in);
  std::string out = st.batch_first;
  if (st.batch_inputs > 1) out += " and " + std::to_string(st.batch_inputs - 1) + " more inputs";
  return out;
}

using Alloc = allocation_actor::stateful_pointer<AllocState>;

void request(Alloc self, std::optional<std::chrono::milliseconds> after = std::nullopt) {
  auto journal = caf::actor_cast<allocation_journal_actor>(self->current_sender());
  if (!journal) return;
  if (after)
    self->delayed_send(journal, *after, input_atom::value, reallocate_input());
  else
    self->send(journal, input_atom::value, reallocate_input());
}

void perform(Alloc self, const Input& in, const allocation::runtime::Effects& fx) {
  auto& st = self->state;
  auto& h = st.hooks;
  for (const auto& e : fx.logs) h.log(e);
  for (const auto& name : fx.discovery)
    if (h.discovery_event) h.discovery_event(name);
  if (fx.config != allocation::runtime::Effects::ConfigResult::none && h.config)
    h.config(fx.config == allocation::runtime::Effects::ConfigResult::applied, in.time_ms);
  if (fx.sources_changed && h.sources) h.sources(st.state);
  if (h.allocated && fx.collectors_set)
    h.allocated("SetCollectors", st.state.allocator().strategy_name(), fx.collectors_seconds);
  if (h.allocated && fx.targets_set)
    h.allocated("SetTargets", st.state.allocator().strategy_name(), fx.targets_seconds);
  if (fx.reallocated && h.publish) h.publish(st.state, in.seq, reallocate_cause(st, in));
  if (in.type != InputType::reallocate && st.batch_inputs++ == 0) st.batch_first = allocation::runtime::describe(in);
  if (in.type == InputType::reallocate) {
    st.batch_inputs = 0;
    st.requested = false;
    st.wake.reset();  // re-armed below while a grace period is still pending
  }
  if (fx.pending && !st.requested) {
    st.requested = true;
    request(self);
  }
  // A grace period ends: one timer per distinct deadline.
  if (fx.wake && fx.wake != st.wake) {
    st.wake = fx.wake;
    auto now = st.state.now();
    auto d = std::chrono::duration_cast<std::chrono::milliseconds>(*fx.wake - now) + std::chrono::milliseconds(1);
    request(self, std::max(d, std::chrono::milliseconds(1)));
  }
}

allocation_actor::behavior_type alloc_behavior(Alloc self, AllocationHooks hooks) {
  self->state.hooks = std::move(hooks);
  self->state.state.set_stopwatch(
      [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); });
  return {
      [=](input_atom, const InputPtr& in) {
        auto& st = self->state;
        st.seq = in->seq;
        allocation::runtime::Effects fx;
        try {
          fx = st.state.apply(*in);
        } catch (const std::exception& e) {
          if (!st.hooks.fatal) throw;
          // The state may be half-updated: serving it on would freeze or
          // corrupt the assignment, so the process ends and restarts.
          st.hooks.fatal(model::log_error("allocation", "allocation failed; exiting")
                             .with("input", allocation::runtime::describe(*in))
                             .with("error", e.what()));
          return;
        }
        perform(self, *in, fx);
      },
      [=](assignment_atom) -> caf::result<std::uint64_t, AssignmentPtr> {
        auto& st = self->state;
        auto out = std::make_shared<allocation::runtime::Assignment>();
        if (st.state.configured()) *out = allocation::runtime::assignment_of(st.state.allocator());
        return {st.seq, AssignmentPtr(std::move(out))};
      },
  };
}

}  // namespace

allocation_journal_actor spawn_allocation_journal(caf::actor_system& sys, AllocationJournalConfig cfg) {
  int fd = -1;
  if (!cfg.path.empty()) {
    // The previous run's journal (after a crash, the one worth keeping) becomes path.1.
    if (::access(cfg.path.c_str(), F_OK) == 0 && ::rename(cfg.path.c_str(), (cfg.path + ".1").c_str()) != 0)
      throw std::system_error(errno, std::generic_category(), "keeping " + cfg.path + " as " + cfg.path + ".1");
    fd = ::open(cfg.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "opening " + cfg.path);
    try {
      write_line(fd, allocation::runtime::encode_header());
    } catch (...) {
      ::close(fd);
      throw;
    }
  }
  return sys.spawn<caf::detached>(journal_behavior, std::move(cfg), fd);
}

allocation_actor spawn_allocation_actor(caf::actor_system& sys, AllocationHooks hooks) {
  return sys.spawn(alloc_behavior, std::move(hooks));
}

AllocationPipeline spawn_allocation_pipeline(caf::actor_system& sys, AllocationHooks hooks,
                                             AllocationJournalConfig journal) {
  AllocationPipeline p;
  p.allocator = spawn_allocation_actor(sys, std::move(hooks));
  journal.target = p.allocator;
  p.journal = spawn_allocation_journal(sys, std::move(journal));
  return p;
}

AllocationJournalConfig redacting_journal(std::string path, model::Log log) {
  AllocationJournalConfig journal;
  journal.path = std::move(path);
  journal.redaction = std::make_shared<core::RedactionPolicy>();
  journal.redaction->all_config_maps = true;
  journal.log = std::move(log);
  return journal;
}

}  // namespace actors
