// The programs of recent fuzz inputs, by their exact bytes (Note [Parsed
// inputs]).
//
//   ParseCache cache(fuzz_parse_limits());
//   const Program* p = cache.parse(text);  // parses once, null when it does not parse
//   const Program* q = cache.find(text);   // the same program, allocating nothing
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

// Note [Parsed inputs]
// libFuzzer runs each mutation once (LLVMFuzzerTestOneInput), then hands it
// to the mutator as the base of the next mutation (-mutate_depth, 5 by
// default), and hands each corpus input to the mutator and the cross-over
// again and again: without a cache a text is parsed at least twice. The
// mutator parses each text it emits once and keeps the program here; the
// target and the mutator look a text up before they parse it. Only
// parse_program's own results under one set of limits are kept, keyed by
// the whole text (a hash picks the entry, the bytes must match), so a hit is
// exactly what parsing again would give. find allocates nothing:
// LLVMFuzzerTestOneInput must free what it allocates (libFuzzer's leak check
// re-runs an input whose mallocs and frees differ), so only the mutator,
// which runs outside that window, inserts.
class ParseCache {
 public:
  /// Keeps at most `capacity` programs, dropping the oldest first.
  explicit ParseCache(const Limits& limits, size_t capacity = 8192);
  /// The program of `text`, null when it is not cached.
  const Program* find(std::string_view text) const;
  /// find, else parse_program under the limits and keep the program; null
  /// when `text` does not parse (not kept).
  const Program* parse(std::string_view text);
  size_t size() const { return entries_.size(); }
  const Limits& limits() const { return limits_; }

 private:
  struct Entry {
    std::string text;
    Program program;
  };
  Limits limits_;
  size_t capacity_;
  std::unordered_map<uint64_t, Entry> entries_;  ///< by hash of the text
  std::deque<uint64_t> order_;                   ///< hashes, oldest first
};

}  // namespace storcheck
