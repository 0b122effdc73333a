// The subcommands of agent-operator (main.cpp dispatches). Each takes the
// arguments after its name and returns the exit code; "--help" among them
// prints the subcommand's help (its flag table) and returns 0; bad flags
// throw cli::UsageError naming the flag (main prints it and exits 2).
#pragma once

namespace cli {

int render(int argc, char** argv);
int run(int argc, char** argv);
int demo(int argc, char** argv);
int replay(int argc, char** argv);

// The exit codes of run and demo, for their help text.
inline constexpr const char* kOperatorExitCodes =
    "exit codes: 0 after SIGINT/SIGTERM or --for, 1 when the informers do not sync by --sync-timeout, the journal\n"
    "is held by another process or an HTTP address cannot be served, 2 for bad flags or an unusable kubeconfig.\n"
    "--version and -version print the version and exit 0.";

}  // namespace cli
