// Random YAML for the differential test of the fast YAML reader
// (yaml_fast_test.cpp): small streams built from the constructs manifests
// use, written with random surface syntax (indentation, quoting, comments,
// spacing, block and flow styles), many of them slightly wrong on purpose,
// and line-level mutations of real manifests.
// Contract: deterministic for a given std::mt19937 state; the text is
// UTF-8 except where a mutation inserts bytes.
#pragma once

#include <random>
#include <string>

namespace testutil {

// A stream of one to three documents.
std::string random_yaml(std::mt19937& rng);

// `text` with 1 to 4 line edits: a line dropped, duplicated or swapped
// with its neighbour, re-indented by a little, cut short, or given a token
// (an indicator, a quote, a comment, a tab, a CR...) at a random column.
std::string mutate_lines(const std::string& text, std::mt19937& rng);

// A window of 1 to 80 whole lines of `text`, mostly from a line that
// starts at the left margin.
std::string line_window(const std::string& text, std::mt19937& rng);

}  // namespace testutil
