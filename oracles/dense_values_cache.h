// A per-variable cache of a sparse variable's observed values (its
// to_dense() bytes, Note [Observing a sparse variable]), keyed by
// everything those values are a function of.
//
// Note [Sparse values by their inputs]
// A sparse variable's values are the bytes of its to_dense(), or none when a
// part is undersized, an index is out of range or the dense form is beyond
// one tensor's limit. All of that is a function of the tensor's layout,
// sizes, dtypes, dims, blocksize and of each part's geometry, storage size
// and storage bytes. Observing it again after every in-place step (and
// after every step while a sparse variable lives: rule 3 of Note
// [Incremental observation], oracles/runner.cpp) densified it each time,
// a tenth of fake_fuzzer's time under ASan (issue 6). So each backend
// writes those inputs as a key, byte for byte, and densifies only when the
// key differs from the one of the variable's last densification. The key is
// the content, not addresses or version counters (which a backend under
// test may fail to bump), so a hit gives exactly the bytes a recomputation
// would: nothing is assumed about what a step can change.
//
//   DenseValuesCache cache;            // one per backend, reset at begin()
//   ValuesKey key;
//   key.pod(layout); key.bytes(storage_data, storage_nbytes);  ...
//   if (!cache.lookup(k, key, &var_obs)) {
//     ... densify into var_obs.values ...
//     cache.store(k, key, var_obs);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "oracles/observation.h"

namespace storcheck {

/// The inputs of one densification, written one after another.
class ValuesKey {
 public:
  void clear() { buf_.clear(); }
  template <typename T>
  void pod(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>, "a key field is written as its bytes");
    bytes(&x, sizeof x);
  }
  /// `n` bytes at `p`, preceded by their count (so two fields never run together).
  void counted(const void* p, size_t n) {
    pod(n);
    bytes(p, n);
  }
  void bytes(const void* p, size_t n) {
    if (n == 0) return;
    const size_t at = buf_.size();
    buf_.resize(at + n);
    std::memcpy(buf_.data() + at, p, n);
  }
  const std::vector<uint8_t>& data() const { return buf_; }
  void swap(ValuesKey& o) { buf_.swap(o.buf_); }

 private:
  std::vector<uint8_t> buf_;
};

class DenseValuesCache {
 public:
  /// Forgets every variable (a new program), freeing what it held.
  void reset(size_t vars) {
    entries_.clear();
    entries_.shrink_to_fit();
    entries_.resize(vars);
  }
  /// reset(vars) for a cache that stored nothing since the last reset:
  /// every entry is empty, so only the length changes.
  void resize_unused(size_t vars) { entries_.resize(vars); }
  /// Variable k's last densification had this key: copies its values (and
  /// whether they were known) into `v` and returns true.
  bool lookup(size_t k, const ValuesKey& key, VarObs* v) const {
    if (k >= entries_.size()) return false;
    const Entry& e = entries_[k];
    if (!e.valid || e.key.data() != key.data()) return false;
    v->values_known = e.known;
    v->values = e.values;
    return true;
  }
  /// Remembers `v`'s values as variable k's densification under `key`
  /// (which is taken: `key` is left with the previous key's buffer).
  void store(size_t k, ValuesKey& key, const VarObs& v) {
    if (k >= entries_.size()) return;
    Entry& e = entries_[k];
    e.key.swap(key);
    e.known = v.values_known;
    e.values = v.values;
    e.valid = true;
  }

 private:
  struct Entry {
    bool valid = false;
    bool known = false;
    ValuesKey key;
    std::vector<uint8_t> values;
  };
  std::vector<Entry> entries_;
};

}  // namespace storcheck
