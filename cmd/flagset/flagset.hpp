// One declarative flag table per command, shared by the programs in cmd/:
// each Flag names its spellings (the first is the one help shows, the rest
// are aliases), its value, its default and its help text, and a handler that
// stores the value. The same table drives parsing and `--help`, so a flag
// cannot exist without a description and a default.
// Contract: parse() accepts "-name", "--name", "-name=value" and
// "--name=value" for every spelling (upstream's Go programs take one or two
// dashes alike); a value flag also takes the next argument; a switch takes
// "=true"/"=false" or nothing. A `multi` flag also takes the arguments after
// its value up to the next flag (`-f a.yaml b.yaml`). -h, --help and -help
// anywhere return Parsed::help. Every problem throws UsageError naming the
// flag; a handler reports a bad value by throwing std::invalid_argument,
// which parse() rethrows as UsageError prefixed with the flag as given.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cli {

// A usage error: the program prints it with a pointer to --help and exits 2.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Flag {
  std::vector<std::string> names;  // without dashes; names[0] is shown first
  std::string value_name;          // "" = a switch (no value, or =true/=false)
  std::string default_text;        // shown as "(default ...)"; "" shows "none"
  std::string help;
  // Gets the value ("true"/"false" for a switch); throws
  // std::invalid_argument with what is wrong (the flag is prefixed).
  std::function<void(const std::string& value)> set;
  bool multi = false;  // also takes the following non-flag arguments
};

struct Command {
  std::string usage;        // "agent-operator render -f PATH... [flags]"
  std::string description;  // a paragraph or two, printed under the usage
  std::vector<Flag> flags;
  // Non-flag arguments; empty = none accepted (a usage error).
  std::function<void(const std::string& arg)> positional;
  std::string footer;  // exit codes, notes
};

enum class Parsed { ok, help };

// Reads argv[0..argc) (the arguments after the program or subcommand name).
Parsed parse(const Command& command, int argc, char** argv);
Parsed parse(const Command& command, const std::vector<std::string>& args);
// The help text: usage, description, one entry per flag (every spelling,
// value, default, help), footer.
std::string help_text(const Command& command);
// True for -h, --help, -help and "help".
bool is_help(const std::string& arg);

// Handlers for common value kinds; each throws std::invalid_argument.
bool parse_bool(const std::string& value);
long long parse_int(const std::string& value, long long min, long long max);
// "64Mi", "1Gi", "500k", "1048576" (bytes; k/M/G are decimal, Ki/Mi/Gi binary).
unsigned long long parse_size(const std::string& value);

}  // namespace cli
