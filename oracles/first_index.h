// FirstIndex: maps a pointer to the first (smallest) variable index seen
// with it, for the alias, identity and data-address classes that observe()
// computes (observation.h). Linear in the variables, where comparing every
// pair of variables was quadratic (issue 8: 256-step programs).
//
// Invariant: between two reset() calls, find_or_insert(key, v) returns the
// v of the first call with that key. reset() is O(1) (a generation stamp),
// except when the table must grow.
//
//   FirstIndex first;
//   first.reset(vars.size());
//   for (v ...) obs[v].alias_class = first.find_or_insert(storage_of(v), v);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace storcheck {

class FirstIndex {
 public:
  /// Forgets every key; room for `n` keys.
  void reset(size_t n) {
    size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (want > slots_.size()) {
      slots_.assign(want, Slot{});
      generation_ = 0;
    }
    if (++generation_ == 0) {  // wrapped: stale stamps could match again
      for (Slot& s : slots_) s.generation = 0;
      generation_ = 1;
    }
  }
  /// The value stored for `key`, storing `value` first when `key` is new.
  int32_t find_or_insert(const void* key, int32_t value) {
    const size_t mask = slots_.size() - 1;
    uint64_t h = reinterpret_cast<uintptr_t>(key) * 0x9E3779B97F4A7C15ull;
    for (size_t i = static_cast<size_t>(h >> 32) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = Slot{key, value, generation_};
        return value;
      }
      if (s.key == key) return s.value;
    }
  }

 private:
  struct Slot {
    const void* key = nullptr;
    int32_t value = 0;
    uint32_t generation = 0;
  };
  std::vector<Slot> slots_;
  uint32_t generation_ = 0;
};

}  // namespace storcheck
