#include "input.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "model/parse.hpp"

namespace fs = std::filesystem;

namespace cli {

std::vector<std::string> expand_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (p == "-" || !fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      auto ext = it->path().extension().string();
      if (it->is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
        found.push_back(it->path().string());
    }
    if (ec) throw std::runtime_error(p + ": " + ec.message());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string read_file(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  // Block reads: a character iterator costs several instructions a byte,
  // and render inputs are megabytes.
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) text.append(buf, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return text;
}

void load_paths(const std::vector<std::string>& paths, model::Inventory& inv) {
  for (const auto& path : expand_paths(paths)) {
    std::string text = read_file(path);
    std::string source = path == "-" ? "<stdin>" : path;
    for (auto& doc : model::parse_documents(text, source))
      inv.add(std::move(doc.value), source + ":" + std::to_string(doc.line));
  }
}

}  // namespace cli
