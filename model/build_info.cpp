#include "model/build_info.hpp"

namespace model {

std::string version_line(std::string_view binary, const BuildInfo& info) {
  std::string out(binary);
  out += " version " + info.version + " (revision " + info.revision + ")";
  return out;
}

std::string build_info_metric_name(std::string_view binary) {
  std::string out;
  for (char c : binary) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += word ? c : '_';
  }
  return out + "_build_info";
}

bool version_requested(int argc, const char* const* argv, bool has_subcommands) {
  if (has_subcommands && argc >= 2 && std::string_view(argv[1]) == "version") return true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--version" || arg == "-version") return true;
  }
  return false;
}

}  // namespace model
