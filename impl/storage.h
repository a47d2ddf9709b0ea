// Storage: an identity, a byte size, a data pointer, a resizable flag (S1).
//
// Invariant: `data() == nullptr` iff `nbytes() == 0`; the bytes of a grown
// storage beyond its old size are zero (R6: unspecified in PyTorch; the
// reference zero-fills and every backend defines them as zero).
//
//   AllocBudget budget{1 << 20, 16 << 20};
//   auto s = Storage::allocate(&budget, 48, "zeros");   // Result<shared_ptr>
//   s.value()->resize(64);                                // keeps 48 bytes
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "impl/error.h"

namespace storcheck {

/// The allocation limits of one run, and what it has allocated so far.
/// Every allocation is charged before it happens; the total never decreases.
struct AllocBudget {
  int64_t max_tensor_bytes = 1 << 20;
  int64_t max_total_bytes = 16 << 20;
  int64_t used = 0;
  /// kResourceLimit naming `op` when `bytes` would break a limit.
  Status charge(int64_t bytes, std::string_view op);
};

class Storage {
 public:
  Storage(int64_t id, int64_t nbytes);
  /// A zero-filled storage of `nbytes`, charged to `budget`.
  static Result<std::shared_ptr<Storage>> allocate(AllocBudget* budget, int64_t nbytes,
                                                   std::string_view op);

  int64_t id() const { return id_; }
  int64_t nbytes() const { return nbytes_; }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  bool resizable() const { return resizable_; }
  void set_resizable(bool r) { resizable_ = r; }
  /// Changes the byte size in place, keeping min(old, new) bytes and zeroing
  /// the rest (R6). The caller has checked `resizable()` and the budget.
  void resize(int64_t nbytes);

 private:
  int64_t id_;
  int64_t nbytes_;
  std::unique_ptr<uint8_t[]> data_;
  bool resizable_ = true;
};

}  // namespace storcheck
