// Fuzzes the journal reader (actors/core/journal.hpp): a journal's text fed
// to the line scanner (header, events, start/snapshot/synced markers, torn
// tails, seq and snapshot checks), as `agent-operator replay` and the
// journal's own open-time housekeeping read a file.
// Contract checked: reading throws only JournalError; every record read
// re-encodes to a line that decodes to the same record; the valid prefix
// the scanner reports (what the appender keeps when it cuts a file) scans
// again without error to the same last seq.
#include <cstdint>
#include <string>
#include <vector>

#include "actors/core/journal.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

using namespace actors::core;

void check_record(const JournalRecord& r) {
  if (r.marker) {
    std::string line = encode_marker(*r.marker);
    JournalRecord back = decode_record(std::string_view(line).substr(0, line.size() - 1), 2);
    if (!back.marker || !(*back.marker == *r.marker)) fuzz::fuzz_fail("marker does not round-trip: " + line);
    return;
  }
  std::string line = encode_event(r.event);
  Event back = decode_event(std::string_view(line).substr(0, line.size() - 1), 2);
  const Event& e = r.event;
  bool same_object = (!e.object && !back.object) || (e.object && back.object && *e.object == *back.object);
  if (back.seq != e.seq || back.time_ms != e.time_ms || back.kind != e.kind || back.type != e.type || !same_object)
    fuzz::fuzz_fail("event does not round-trip: " + line);
}

struct Scan {
  JournalReadStats stats;
  bool failed = false;
};

Scan scan(std::string_view text, bool check) {
  JournalScanner scanner([check](JournalRecord&& r) {
    if (check) check_record(r);
  });
  Scan out;
  try {
    scan_text(text, scanner);
  } catch (const JournalError&) {
    out.failed = true;
  }
  out.stats = scanner.stats();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  Scan whole = scan(text, true);
  if (whole.stats.valid_bytes > text.size()) fuzz::fuzz_fail("valid prefix longer than the input");
  if (whole.stats.valid_bytes > 0) {
    Scan prefix = scan(text.substr(0, whole.stats.valid_bytes), false);
    if (prefix.failed) fuzz::fuzz_fail("the valid prefix does not scan");
    if (prefix.stats.last_seq != whole.stats.last_seq) fuzz::fuzz_fail("the valid prefix ends at another seq");
  }
  try {
    JournalHeader header = decode_header(fuzz::take_line(text));
    (void)encode_header(header);
  } catch (const JournalError&) {
  }
  return 0;
}
