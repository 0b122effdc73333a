// Reading journal files from disk in bounded memory: a file is read in
// 1 MiB chunks and fed line by line to a JournalScanner, so a 1 GB file of
// random bytes or one huge line is rejected after at most the header cap
// (64 KiB) or the line cap (16 MiB) instead of being loaded whole.
// Rotation naming: FileJournal renames path -> path.1 -> path.2 ..., so
// path.N is the oldest and path the newest file of a rotated set.
// Contract: scan_file throws std::system_error (unreadable file, naming
// it) or JournalError (from the scanner, whose stats() then describe the
// valid prefix); "-" reads standard input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/core/journal.hpp"

namespace actors::core {

void scan_file(const std::string& path, JournalScanner& scanner);

// The rotated set of `path`, oldest first: path.N ... path.1, path, where
// N is the highest contiguous suffix that exists. Only existing files.
std::vector<std::string> rotated_set(const std::string& path);

// The highest seq a journal file assigns (its valid prefix when it is
// corrupt); 0 when it cannot be read.
std::uint64_t last_seq_of(const std::string& path);

}  // namespace actors::core
