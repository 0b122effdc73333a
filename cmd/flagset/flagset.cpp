#include "flagset.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace cli {

namespace {

// "--name=value" -> {"name", "value", true}; "-" and "--" alone are no flags.
struct Split {
  std::string name, value;
  bool has_value = false;
};

bool looks_like_flag(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && arg != "--";
}

Split split(const std::string& arg) {
  Split s;
  std::string body = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
  if (auto eq = body.find('='); eq != std::string::npos) {
    s.value = body.substr(eq + 1);
    s.has_value = true;
    body.resize(eq);
  }
  s.name = body;
  return s;
}

const Flag* find(const Command& c, const std::string& name) {
  for (const Flag& f : c.flags)
    for (const std::string& n : f.names)
      if (n == name) return &f;
  return nullptr;
}

void apply(const Flag& f, const std::string& given, const std::string& value) {
  try {
    f.set(value);
  } catch (const UsageError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    // A message that names a flag already ("-kubelet-service: ...", from a
    // parser shared with other callers) gets the spelling the user typed.
    std::string what = e.what();
    if (what.rfind("-", 0) == 0 && what.find(": ") != std::string::npos) what = what.substr(what.find(": ") + 2);
    throw UsageError(given + ": " + what);
  } catch (const std::out_of_range&) {
    throw UsageError(given + ": \"" + value + "\" is out of range");
  }
}

std::string dashes(const std::string& name) {
  // Upstream's Go flags are shown as Go shows them (one dash, with a dot
  // or as upstream spells them); ours with two.
  return (name.size() == 1 || name.find('.') != std::string::npos ? "-" : "--") + name;
}

}  // namespace

bool is_help(const std::string& arg) {
  return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help";
}

Parsed parse(const Command& c, const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "-h" || a == "--help" || a == "-help") return Parsed::help;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!looks_like_flag(arg)) {
      if (!c.positional) throw UsageError("unexpected argument \"" + arg + "\"");
      apply(Flag{{}, "", "", "", c.positional}, "\"" + arg + "\"", arg);
      continue;
    }
    Split s = split(arg);
    const Flag* f = find(c, s.name);
    if (!f) throw UsageError("unknown flag \"" + arg + "\"");
    const std::string given = arg.substr(0, arg.find('='));
    if (f->value_name.empty()) {
      if (s.has_value && s.value != "true" && s.value != "false") throw UsageError(given + ": want true or false");
      apply(*f, given, s.has_value ? s.value : "true");
      continue;
    }
    if (!s.has_value) {
      if (i + 1 >= args.size()) throw UsageError(given + " needs a value (" + f->value_name + ")");
      s.value = args[++i];
    }
    apply(*f, given, s.value);
    while (f->multi && i + 1 < args.size() && !looks_like_flag(args[i + 1])) apply(*f, given, args[++i]);
  }
  return Parsed::ok;
}

Parsed parse(const Command& c, int argc, char** argv) {
  return parse(c, std::vector<std::string>(argv, argv + argc));
}

std::string help_text(const Command& c) {
  std::ostringstream out;
  out << "usage: " << c.usage << "\n";
  if (!c.description.empty()) out << "\n" << c.description << (c.description.back() == '\n' ? "" : "\n");
  if (!c.flags.empty()) out << "\nflags:\n";
  for (const Flag& f : c.flags) {
    out << "  ";
    for (std::size_t i = 0; i < f.names.size(); ++i) out << (i ? ", " : "") << dashes(f.names[i]);
    if (!f.value_name.empty()) out << " " << f.value_name << (f.multi ? "..." : "");
    out << "\n      " << f.help;
    out << " (default " << (f.default_text.empty() ? "none" : f.default_text) << ")";
    out << "\n";
  }
  if (!c.footer.empty()) out << "\n" << c.footer << (c.footer.back() == '\n' ? "" : "\n");
  return out.str();
}

bool parse_bool(const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw std::invalid_argument("want true or false, got \"" + value + "\"");
}

long long parse_int(const std::string& value, long long min, long long max) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || n < min || n > max)
    throw std::invalid_argument("want an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                                ", got \"" + value + "\"");
  return n;
}

unsigned long long parse_size(const std::string& value) {
  char* end = nullptr;
  errno = 0;
  double n = std::strtod(value.c_str(), &end);
  std::string unit = end ? end : "";
  static const std::pair<const char*, double> units[] = {{"", 1},        {"B", 1},          {"k", 1e3},
                                                         {"K", 1e3},     {"M", 1e6},        {"G", 1e9},
                                                         {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
  for (const auto& [name, factor] : units)
    if (unit == name && end != value.c_str() && errno != ERANGE && n >= 0 && n * factor < 1.8e19)
      return static_cast<unsigned long long>(n * factor);
  throw std::invalid_argument("want a size in bytes (e.g. 64Mi, 500k, 1048576), got \"" + value + "\"");
}

}  // namespace cli
