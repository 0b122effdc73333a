// Chaos soak (issue 17): two `agent-operator run` replicas under the
// operator's ServiceAccount against simcluster --authorization rbac, a
// seeded random edit script, and a seeded fault schedule (watch drops, 410
// Gone, 5xx, 429, latency, kill -9 and restart, SIGSTOP of the leader past
// its lease). Then the faults stop, the soak waits for quiescence and
// checks: owned objects equal a fault-free run of the same script (one
// replica, fresh cluster); the final leader's journal replays to them; no
// lost update; no write by a replica without a live Lease (simcluster's
// audit log); no RSS or fd growth between the halves of a long-lived
// replica process; a restart of both with nothing changed writes nothing.
// Usage: chaos_soak [--duration SECONDS] [--seed N] [--edit-interval-ms MS] [--keep]
// Exit 0 when every check passes, 1 naming each failed check, 2 on bad flags.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "actors/core/convergence.hpp"
#include "soak_audit.hpp"
#include "soak_checks.hpp"
#include "soak_faults.hpp"
#include "soak_run.hpp"

namespace {

using namespace soak;
using namespace std::chrono_literals;

const char* kLeaseName = "agent-operator-leader";

double secs(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Flags {
  int duration_s = 120;
  std::uint64_t seed = 1;
  int edit_ms = 250;
  bool keep = false;
};

// The fault-free run: the script's setup and first `edits` edits on a
// fresh cluster with one replica.
std::map<std::string, std::string> reference_run(const std::string& dir, const Flags& f, std::size_t edits) {
  std::filesystem::create_directories(dir);
  SimProcess sim(dir, {"reference"});
  Replica r("reference", sim.replica_kubeconfig("reference"), dir, replica_flags());
  r.start();
  if (!wait_leader(sim, 60s)) throw std::runtime_error("the reference replica never led");
  EditScript script(f.seed);
  for (const Edit& e : script.setup()) apply(sim, e);
  for (std::size_t i = 0; i < edits; ++i) apply(sim, script.next());
  if (!wait_quiescent(
          sim, [&] { return converged(sim); }, 5s, 180s))
    throw std::runtime_error("the fault-free reference run did not converge");
  return actors::core::comparable_content(owned_objects(sim));
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    auto value = [&] {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
      return std::string(argv[++i]);
    };
    if (!std::strcmp(argv[i], "--duration"))
      f.duration_s = std::stoi(value());
    else if (!std::strcmp(argv[i], "--seed"))
      f.seed = std::stoull(value());
    else if (!std::strcmp(argv[i], "--edit-interval-ms"))
      f.edit_ms = std::stoi(value());
    else if (!std::strcmp(argv[i], "--keep"))
      f.keep = true;
    else
      throw std::invalid_argument(std::string("unknown flag ") + argv[i]);
  }
  return f;
}

}  // namespace

namespace {

struct Check {
  std::string name;
  std::vector<std::string> problems;
  std::string detail;  // what was measured, for the summary
};

std::size_t count_lines(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(text) != std::string::npos;
  return n;
}

// The process that lived through both halves of the fault phase: alive at
// its end and started before its middle (the schedule spares the oldest
// process from kill -9 in the second half).
const ProcessRecord* long_lived(const PhaseRecord& rec, const std::vector<Replica*>& replicas) {
  const ProcessRecord* best = nullptr;
  auto mid = rec.start + (rec.end - rec.start) / 2;
  for (Replica* r : replicas) {
    auto it = rec.processes.find(r->pid());
    if (it != rec.processes.end() && it->second.started <= mid && (!best || it->second.started < best->started))
      best = &it->second;
  }
  return best;
}

Check check_growth(const PhaseRecord& rec, const std::vector<Replica*>& replicas) {
  Check c{"no RSS or fd growth between the halves", {}, ""};
  const ProcessRecord* p = long_lived(rec, replicas);
  if (!p) {
    c.problems.push_back("no replica process lived through both halves");
    return c;
  }
  Growth g = compare_halves(p->samples, 10s);
  c.problems = g.problems;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s, %zu samples over %.0f s: RSS %ld -> %ld MiB, fds %ld -> %ld", p->replica.c_str(),
                p->samples.size(), secs(p->samples.back().at - p->samples.front().at), g.rss_first_kib / 1024,
                g.rss_second_kib / 1024, g.fds_first, g.fds_second);
  c.detail = buf;
  return c;
}

// Both replicas stopped and started again with nothing changed; their
// writes (Lease aside) once both have synced and had time to act.
Check check_restart(SimProcess& sim, std::vector<Replica*>& replicas) {
  Check c{"a restart with nothing changed makes zero writes", {}, ""};
  std::int64_t since = now_us();
  std::vector<std::size_t> synced;
  // Both at once: stopping one first hands the other the Lease, and what a
  // replica writes as it takes over is not a restart's doing.
  for (Replica* r : replicas) r->request_stop();
  for (Replica* r : replicas) {
    if (int code = r->terminate(); code != 0)
      c.problems.push_back(r->name() + " exited " + std::to_string(code) + " on SIGTERM");
    synced.push_back(count_lines(r->log(), "informers synced"));
  }
  for (Replica* r : replicas) r->start();
  auto deadline = Clock::now() + 60s;
  auto all_synced = [&] {
    for (std::size_t i = 0; i < replicas.size(); ++i)
      if (count_lines(replicas[i]->log(), "informers synced") <= synced[i]) return false;
    return true;
  };
  while (!all_synced() && Clock::now() < deadline) std::this_thread::sleep_for(200ms);
  if (!all_synced() || !wait_leader(sim, 30s)) c.problems.push_back("the restarted replicas did not sync and lead");
  std::this_thread::sleep_for(10s);  // debounce, renders and any writes they would make
  for (const auto& w : replica_writes_since(read_audit(sim.audit_log()), since)) c.problems.push_back(w.describe());
  return c;
}

void print_faults(const Flags& f, const PhaseRecord& rec, std::size_t setup) {
  std::printf("chaos soak: seed %llu, %.0f s of faults, %zu edits after %zu setup edits, 2 replicas\n",
              static_cast<unsigned long long>(f.seed), secs(rec.end - rec.start), rec.edits, setup);
  std::printf("faults injected:");
  for (std::size_t i = 0; i < kFaultKinds; ++i)
    std::printf("%s %s %d", i ? "," : "", fault_name(static_cast<Fault>(i)), rec.faults.injected[i]);
  std::printf(" (%d Lease takeovers during pauses)\n", rec.faults.takeovers);
}

void print_writes(SimProcess& sim) {
  std::map<std::string, int> ok, refused;
  for (const auto& w : read_audit(sim.audit_log()))
    if (!w.replica.empty()) (w.ok() ? ok : refused)[w.replica + (w.is_lease() ? " Lease" : "")]++;
  std::printf("replica writes (ok / refused, injected faults included):");
  for (const auto& [who, n] : ok) std::printf(" %s %d/%d;", who.c_str(), n, refused[who]);
  std::printf("\n");
}

int report(const std::vector<Check>& checks) {
  int failed = 0;
  for (const Check& c : checks) {
    bool ok = c.problems.empty();
    failed += !ok;
    std::printf("[%s] %s%s\n", ok ? "PASS" : "FAIL", c.name.c_str(),
                c.detail.empty() ? "" : (" (" + c.detail + ")").c_str());
    for (std::size_t i = 0; i < c.problems.size() && i < 12; ++i) std::printf("    %s\n", c.problems[i].c_str());
    if (c.problems.size() > 12) std::printf("    ... %zu more\n", c.problems.size() - 12);
  }
  std::printf(failed ? "chaos soak FAILED: %d check(s)\n" : "chaos soak passed\n", failed);
  return failed ? 1 : 0;
}

// The checks of the soak's cluster once it is quiet, the restart and the
// reference aside; returns the owned objects' content.
std::map<std::string, std::string> check_end_state(SimProcess& sim, const EditScript& script, const std::string& dir,
                                                   std::vector<Check>& checks) {
  print_writes(sim);
  auto owned = owned_objects(sim);
  checks.push_back({"zero lost updates", lost_updates(sim, script),
                    std::to_string(script.expected().size()) + " scripted objects, " + std::to_string(owned.size()) +
                        " owned objects"});
  auto audit = read_audit(sim.audit_log());
  checks.push_back({"zero writes by a replica without a live Lease", writes_without_lease(audit, kLeaseName),
                    std::to_string(audit.size()) + " audited writes"});
  std::string leader = lease_holder(sim);
  checks.push_back({"the final leader's journal replays to the owned objects",
                    replay_differs(dir + "/" + leader + ".journal.jsonl", owned), leader});
  return actors::core::comparable_content(owned);
}

void run_soak(const Flags& f, const std::string& dir, std::vector<Check>& checks) {
  SimProcess sim(dir + "/soak", {"replica-a", "replica-b"});
  Replica a("replica-a", sim.replica_kubeconfig("replica-a"), dir + "/soak", replica_flags());
  Replica b("replica-b", sim.replica_kubeconfig("replica-b"), dir + "/soak", replica_flags());
  std::vector<Replica*> replicas{&a, &b};
  a.start();
  b.start();
  if (!wait_leader(sim, 60s)) throw std::runtime_error("no replica took the Lease");
  EditScript script(f.seed);
  std::size_t setup = 0;
  for (const Edit& e : script.setup()) apply(sim, e), ++setup;
  PhaseRecord rec = run_fault_phase(sim, replicas, script,
                                    {std::chrono::seconds(f.duration_s), std::chrono::milliseconds(f.edit_ms), f.seed});
  print_faults(f, rec, setup);
  if (!rec.edit_errors.empty()) checks.push_back({"every scripted edit applied", rec.edit_errors, ""});
  auto quiet_from = Clock::now();
  bool quiet = wait_quiescent(
      sim, [&] { return converged(sim); }, 5s, 120s);
  checks.push_back({"quiescence after the faults stop",
                    quiet ? std::vector<std::string>{} : std::vector<std::string>{"not within 120 s"},
                    std::to_string(static_cast<int>(secs(Clock::now() - quiet_from))) + " s"});
  auto content = check_end_state(sim, script, dir + "/soak", checks);
  checks.push_back(check_growth(rec, replicas));
  checks.push_back(check_restart(sim, replicas));
  for (Replica* r : replicas) r->terminate();
  auto reference = reference_run(dir + "/reference", f, rec.edits);
  checks.push_back({"owned objects equal the fault-free run", compare_content(content, reference),
                    std::to_string(reference.size()) + " objects"});
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  try {
    f = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "chaos_soak: %s\nusage: chaos_soak [--duration SECONDS] [--seed N] "
                 "[--edit-interval-ms MS] [--keep]\n",
                 e.what());
    return 2;
  }
  std::string dir = "/tmp/chaos-soak-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/soak");
  std::vector<Check> checks;
  try {
    run_soak(f, dir, checks);
  } catch (const std::exception& e) {
    checks.push_back({"the soak ran to the end", {e.what()}, ""});
  }
  int code = report(checks);
  if (!f.keep && code == 0) std::filesystem::remove_all(dir);
  if (code != 0 || f.keep) std::printf("files: %s\n", dir.c_str());
  return code;
}
