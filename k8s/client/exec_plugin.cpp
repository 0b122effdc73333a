// Running an exec credential plugin, and the credential cache around it.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "k8s/client/exec_credential.hpp"

extern char** environ;

namespace k8s {
namespace {

using Steady = std::chrono::steady_clock;

std::string describe(const ExecConfig& c) {
  return "users[" + c.user + "].user.exec (command \"" + c.command + "\")";
}

// The child's environment: ours, then the exec entries (which win), then
// KUBERNETES_EXEC_INFO, all built before fork so the child only calls exec.
std::vector<std::string> child_env(const ExecConfig& c) {
  std::vector<std::string> env;
  auto overridden = [&](const std::string& entry) {
    std::string name = entry.substr(0, entry.find('='));
    if (name == "KUBERNETES_EXEC_INFO") return true;
    for (const auto& [k, v] : c.env)
      if (k == name) return true;
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) env.emplace_back(*e);
  for (const auto& [k, v] : c.env) env.push_back(k + "=" + v);
  env.push_back("KUBERNETES_EXEC_INFO=" + exec_info(c));
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reads the child's stdout until EOF or the deadline; false on timeout.
bool read_until(int fd, Steady::time_point deadline, std::string& out) {
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? false : true;
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    if (out.size() + static_cast<std::size_t>(got) > (1u << 20)) return true;  // a credential is never 1 MiB
    out.append(buf, static_cast<std::size_t>(got));
  }
}

int reap(pid_t pid, bool kill_first) {
  if (kill_first) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

pid_t spawn(const ExecConfig& c, int out_fd, int in_fd) {
  std::vector<std::string> argv_s{c.command};
  argv_s.insert(argv_s.end(), c.args.begin(), c.args.end());
  std::vector<std::string> env_s = child_env(c);
  std::vector<char*> argv = pointers(argv_s), envp = pointers(env_s);
  pid_t pid = ::fork();
  if (pid == 0) {
    // The binaries block SIGTERM and friends for sigwait; the plugin must not inherit that.
    sigset_t none;
    ::sigemptyset(&none);
    ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
    ::dup2(in_fd, 0);
    ::dup2(out_fd, 1);
    // execvpe searches PATH as client-go's exec.LookPath does.
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

ExecCredential run_exec_plugin(const ExecConfig& c) {
  const std::string what = describe(c);
  if (c.interactive_mode == "Always")
    throw ExecError(what + ": interactiveMode Always needs a terminal, and the operator has none");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ExecError(what + ": pipe: " + std::strerror(errno));
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = spawn(c, fds[1], null_fd);
  ::close(fds[1]);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    ::close(fds[0]);
    throw ExecError(what + ": fork: " + std::strerror(errno));
  }
  std::string out;
  bool finished = read_until(fds[0], Steady::now() + c.timeout, out);
  ::close(fds[0]);
  int status = reap(pid, !finished);
  if (!finished) throw ExecError(what + ": no answer within " + std::to_string(c.timeout.count()) + " ms; killed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw ExecError(what + ": exited with status 127 (is the command installed and on PATH?)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw ExecError(what + ": " +
                    (WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                       : "killed by signal " + std::to_string(WTERMSIG(status))));
  return parse_exec_credential(out, c.api_version, what);
}

}  // namespace k8s
