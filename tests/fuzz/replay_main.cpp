// The regular (non-libFuzzer) driver of the fuzz targets: runs
// LLVMFuzzerTestOneInput once on every file named on the command line, or
// on every regular file under a named directory (sorted, so runs repeat).
// Contract: exit 0 when every input ran (a target reports bugs by
// crashing or aborting, as under libFuzzer); exit 1 when a path is
// unreadable or a directory holds no input, so an emptied corpus fails
// the ctest instead of passing vacuously.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const fs::path& arg) {
  std::vector<fs::path> out;
  if (!fs::is_directory(arg)) {
    out.push_back(arg);
    return out;
  }
  for (const auto& e : fs::recursive_directory_iterator(arg))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool run_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly `size` bytes, so ASan builds catch reads past the end.
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(data.data(), data.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t ran = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    auto files = inputs_of(argv[i]);
    if (files.empty()) {
      std::fprintf(stderr, "replay: no inputs in %s\n", argv[i]);
      ok = false;
    }
    for (const auto& f : files) {
      ok = run_file(f) && ok;
      ++ran;
    }
  }
  std::printf("replay: ran %zu inputs\n", ran);
  return ok && ran > 0 ? 0 : 1;
}
