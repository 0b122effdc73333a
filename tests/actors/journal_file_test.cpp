#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <random>

#include "actors/core/journal_file.hpp"
#include "actors/core/journal_reader.hpp"
#include "actors_fixtures.hpp"
#include "journal_test_util.hpp"

using namespace actors::core;
namespace fs = std::filesystem;
using journal_test::LogCapture;
using journal_test::slurp;
using journal_test::TempDir;

namespace {

std::vector<std::string> lines_of(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(encode_event(e));
  return out;
}

std::vector<std::string> scenario_lines() {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  return lines_of(c.events());
}

FileJournalOptions options(const fs::path& file, FsyncPolicy p) {
  FileJournalOptions o;
  o.path = file.string();
  o.header = JournalHeader{1, "0.1.0", {{"secrets", "redacted"}}};
  o.fsync = p;
  return o;
}

}  // namespace

TEST_CASE("file journal appends readable lines under each fsync policy", "[actors][journal]") {
  TempDir dir;
  auto lines = scenario_lines();
  struct Case {
    FsyncPolicy policy;
    std::uint64_t fsyncs;  // the new file's header is always synced once
  };
  for (Case c :
       {Case{FsyncPolicy::never, 1}, Case{FsyncPolicy::on_flush, 3}, Case{FsyncPolicy::every_append, 1 + 10}}) {
    fs::path file = dir.path / ("j-" + std::to_string(static_cast<int>(c.policy)));
    {
      FileJournal j(options(file, c.policy));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        j.append(lines[i]);
        if (i == 4 || i == 9) j.flush();
      }
      REQUIRE(lines.size() == 10);
      CHECK(j.fsyncs() == c.fsyncs);
    }
    JournalContents read = read_journal(slurp(file));
    CHECK(read.events.size() == lines.size());
    CHECK(read.stats.last_seq == 10);
  }
}

TEST_CASE("reopening a journal drops a torn tail and continues its seq", "[actors][journal]") {
  TempDir dir;
  fs::path file = dir.path / "journal.jsonl";
  auto lines = scenario_lines();
  {
    FileJournal j(options(file, FsyncPolicy::on_flush));
    for (std::size_t i = 0; i < 6; ++i) j.append(lines[i]);
  }
  {  // a crash in the middle of line 7
    std::ofstream out(file, std::ios::app | std::ios::binary);
    out << lines[6].substr(0, lines[6].size() / 2);
  }
  CHECK(read_journal(slurp(file)).stats.torn_tail);
  FileJournal j(options(file, FsyncPolicy::on_flush));
  CHECK(j.last_seq() == 6);
  CHECK(j.open_note().find("torn") != std::string::npos);
  for (std::size_t i = 6; i < lines.size(); ++i) j.append(lines[i]);
  j.flush();
  JournalContents read = read_journal(slurp(file));
  CHECK_FALSE(read.stats.torn_tail);
  CHECK(read.events.size() == lines.size());
}

TEST_CASE("reopening with different flags rotates the old journal away", "[actors][journal]") {
  TempDir dir;
  fs::path file = dir.path / "journal.jsonl";
  auto lines = scenario_lines();
  {
    FileJournal j(options(file, FsyncPolicy::never));
    j.append(lines[0]);
  }
  FileJournalOptions o = options(file, FsyncPolicy::never);
  o.header.flags["secrets"] = "include";
  FileJournal j(o);
  CHECK(j.rotations() == 1);
  CHECK(j.last_seq() == 1);
  CHECK(read_journal(slurp(dir.path / "journal.jsonl.1")).events.size() == 1);
  CHECK(read_journal(slurp(file)).header.secrets_included());
}

TEST_CASE("cutting a torn tail is logged with its offset and size", "[actors][journal]") {
  TempDir dir;
  std::string file = dir.file("journal.jsonl");
  auto lines = scenario_lines();
  std::size_t valid = 0;
  {
    FileJournal j(options(file, FsyncPolicy::never));
    for (std::size_t i = 0; i < 4; ++i) j.append(lines[i]);
    valid = j.file_bytes();
  }
  std::string torn = lines[4].substr(0, 37);
  std::ofstream(file, std::ios::app | std::ios::binary) << torn;
  LogCapture log;
  FileJournalOptions o = options(file, FsyncPolicy::never);
  o.log = log.logger;
  FileJournal j(o);
  CHECK(j.last_seq() == 4);
  CHECK(fs::file_size(file) == valid);
  std::string text = log.text();
  INFO(text);
  CHECK(text.find("level=warn component=journal msg=\"cut a torn last line\"") != std::string::npos);
  CHECK(text.find("file=" + file) != std::string::npos);
  CHECK(text.find("offset=" + std::to_string(valid)) != std::string::npos);
  CHECK(text.find("bytes=37") != std::string::npos);
}

TEST_CASE("a corrupt journal is set aside out of the rotated set and logged", "[actors][journal]") {
  TempDir dir;
  std::string file = dir.file("journal.jsonl");
  auto lines = scenario_lines();  // the last one is the token Secret, value s3cret
  std::string text = encode_header(options(file, FsyncPolicy::never).header);
  for (std::size_t i = 0; i < 3; ++i) text += lines[i];
  text += "{\"kind\": not json at all\n";
  for (std::size_t i = 3; i < lines.size(); ++i) text += lines[i];
  journal_test::spit(file, text);
  LogCapture log;
  FileJournalOptions o = options(file, FsyncPolicy::never);
  o.log = log.logger;
  std::string aside;
  {
    FileJournal j(o);
    aside = j.set_aside_path();
    CHECK(j.last_seq() == 3);  // the valid prefix: the next process continues after it
    CHECK(j.rotations() == 0);
    CHECK(j.open_note().find("line 5") != std::string::npos);
  }
  REQUIRE_FALSE(aside.empty());
  CHECK(aside.rfind(file + ".corrupt-", 0) == 0);
  CHECK(slurp(aside) == text);  // kept whole for inspection
  CHECK(read_journal(slurp(file)).events.empty());
  CHECK(rotated_set(file) == std::vector<std::string>{file});
  std::string logged = log.text();
  INFO(logged);
  CHECK(logged.find("level=error component=journal msg=\"set aside a corrupt journal\"") != std::string::npos);
  CHECK(logged.find("file=" + file) != std::string::npos);
  CHECK(logged.find("moved_to=" + aside) != std::string::npos);
  CHECK(logged.find("reason=\"journal line 5: invalid JSON") != std::string::npos);
  CHECK(logged.find("s3cret") == std::string::npos);
}

TEST_CASE("a second writer is refused and told who holds the journal", "[actors][journal]") {
  TempDir dir;
  FileJournalOptions o = options(dir.file("journal.jsonl"), FsyncPolicy::never);
  {
    FileJournal first(o);
    first.append(scenario_lines()[0]);
    try {
      FileJournal second(o);
      FAIL("two writers opened one journal");
    } catch (const JournalLocked& e) {
      std::string what = e.what();
      CHECK(what.find(o.path) != std::string::npos);
      CHECK(what.find(o.path + ".lock") != std::string::npos);
      CHECK(what.find("process " + std::to_string(::getpid())) != std::string::npos);
      CHECK(e.holder_pid() == ::getpid());
    }
    CHECK(read_journal(slurp(o.path)).events.size() == 1);  // untouched by the refused writer
  }
  FileJournal again(o);  // released with the first
  CHECK(again.last_seq() == 1);
}

TEST_CASE("non-journal input is rejected after a bounded prefix", "[actors][journal]") {
  TempDir dir;
  constexpr off_t kGiB = 1ll << 30;
  // Sparse 1 GiB files: random bytes then zeros; a '{' and no newline;
  // a valid header followed by one endless line.
  auto make = [&](const std::string& name, const std::string& head) {
    std::string path = dir.file(name);
    journal_test::spit(path, head);
    REQUIRE(::truncate(path.c_str(), kGiB) == 0);
    return path;
  };
  std::mt19937 rng(13);
  std::string noise(1 << 20, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  std::string header = encode_header(JournalHeader{kJournalVersion, "0.1.0", {}});
  struct Case {
    std::string path, message;
  } cases[] = {{make("random.bin", noise), "journal line 1: "},
               {make("one-line.json", "{\"format\":\"agent-operator-journal\""), "not an agent-operator journal"},
               {make("long-line.jsonl", header + "{\"kind\":\""), "journal line 2: line longer than"}};
  for (const Case& c : cases) {
    INFO(c.path);
    auto t0 = std::chrono::steady_clock::now();
    JournalScanner scanner([](JournalRecord&&) {});
    CHECK_THROWS_WITH(scan_file(c.path, scanner), Catch::Contains(c.message));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  }
}
