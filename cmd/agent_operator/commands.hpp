// The subcommands of agent-operator besides `render` (main.cpp). Each takes
// the arguments after its name and returns the exit code; bad flags throw
// std::invalid_argument (main prints usage and exits 2).
#pragma once

namespace cli {

int run(int argc, char** argv);
int demo(int argc, char** argv);
int replay(int argc, char** argv);

}  // namespace cli
