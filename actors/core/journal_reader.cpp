#include "actors/core/journal_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "actors/core/journal_file.hpp"

namespace actors::core {
namespace {

constexpr std::size_t kChunkBytes = 1u << 20;

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + path);
  }
  ~Fd() {
    if (fd_ > 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

// `pending` holds the start of the line being read; once it exceeds the
// cap for its line the scanner gets it (unterminated) and rejects it.
void scan_file(const std::string& path, JournalScanner& scanner) {
  Fd fd(path);
  std::string pending, chunk(kChunkBytes, '\0');
  std::size_t offset = 0, line_no = 1;  // offset: where `pending` starts in the file
  while (true) {
    ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::system_error(errno, std::generic_category(), "cannot read " + path);
    if (n == 0) break;
    std::string_view data(chunk.data(), static_cast<std::size_t>(n));
    while (!data.empty()) {
      std::size_t nl = data.find('\n');
      std::size_t cap = line_no == 1 ? kMaxJournalHeaderBytes : kMaxJournalLineBytes;
      if (nl == std::string_view::npos) {
        pending.append(data.substr(0, cap + 1 - std::min(cap + 1, pending.size())));
        if (pending.size() > cap) scanner.feed(pending, false, offset + pending.size());  // throws
        break;
      }
      std::string_view line = data.substr(0, nl);
      if (!pending.empty()) {
        pending.append(line.substr(0, cap + 1 - std::min(cap + 1, pending.size())));
        line = pending;
      }
      std::size_t end = offset + line.size() + 1;
      if (!scanner.feed(line, true, end)) return scanner.finish();
      pending.clear();
      offset = end;
      ++line_no;
      data.remove_prefix(nl + 1);
    }
  }
  if (!pending.empty()) scanner.feed(pending, false, offset + pending.size());
  scanner.finish();
}

std::vector<std::string> rotated_set(const std::string& path) {
  std::vector<std::string> out;
  for (int i = 1; journal_path_exists(path + "." + std::to_string(i)); ++i)
    out.insert(out.begin(), path + "." + std::to_string(i));
  if (journal_path_exists(path) || path == "-") out.push_back(path);
  return out;
}

std::uint64_t last_seq_of(const std::string& path) {
  JournalScanner scanner([](JournalRecord&&) {});
  try {
    scan_file(path, scanner);
  } catch (const std::exception&) {
    // The valid prefix still tells how far seq went.
  }
  return scanner.stats().last_seq;
}

}  // namespace actors::core
