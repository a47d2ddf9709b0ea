// Storage: an identity, a byte size, a data pointer, a resizable flag and a
// copy-on-write state (S1, group C).
//
// Invariant: `read_data() == nullptr` iff `nbytes() == 0` or the storage is
// on the meta device (a byte size and no data: meta and fake tensors, F2). A storage points
// at a DataBlock; only COW storages share one (C2: the sharers of a block are
// exactly the COW storages pointing at it, so the block's use count is the
// reference count). Reads never materialize (C3); `mutable_data()`
// materializes once (C4) — see Note [COW materialization]. Bytes of a grown
// storage beyond its old size are zero (R6: unspecified in PyTorch; every
// backend defines them as zero).
//
//   AllocBudget budget{1 << 20, 16 << 20};
//   auto s = Storage::allocate(&budget, 48, "zeros").value();
//   auto c = s->lazy_clone();          // both COW, one block (C1, C2)
//   c->mutable_data()[0] = 1;          // c copies; s keeps the old bytes (C4)
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "impl/error.h"
#include "impl/pool.h"

namespace storcheck {

/// The allocation limits of one run, and what it has allocated so far.
/// Every allocation is charged before it happens; the total never decreases.
struct AllocBudget {
  int64_t max_tensor_bytes = 1 << 20;
  int64_t max_total_bytes = 16 << 20;
  int64_t used = 0;
  /// kResourceLimit naming `op` when `bytes` would break a limit.
  Status charge(int64_t bytes, const char* op) {  ///< op: a C string, measured only on failure
    if (bytes > max_tensor_bytes || bytes > max_total_bytes - used) return refuse(bytes, op);
    used += bytes;
    return {};
  }

 private:
  /// charge's error (out of line: every fresh tensor charges; issue 8).
  Status refuse(int64_t bytes, const char* op) const;
};

/// The device a storage's bytes stand on (issue 11). The reference keeps
/// every storage's bytes in host memory: the device is the tag LibTorch
/// reports and its rules read (ops keep their input's device; cuda/cpu copy
/// onto the other one, R3). Meta storages carry the device their fake
/// tensors stand for (F1).
enum class DeviceType : uint8_t { kCpu, kCuda };

/// Bytes that one or more storages point at: the number of storages
/// pointing at it (the COW sharers, C2) and the bytes after it, in one
/// pooled allocation (impl/pool.h). Issue 8: a shared_ptr's control block
/// and a separate allocation for the bytes cost two more per fresh tensor.
struct alignas(16) DataBlock {
  int64_t refs;  ///< the BlockRefs to it
  size_t size;   ///< bytes after the header
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(this + 1); }
};

/// A counted reference to a DataBlock, as a shared_ptr without the control
/// block. The count is not atomic: a block belongs to the storages of one
/// backend, and a backend to one thread (every gate job makes its own).
class BlockRef {
 public:
  BlockRef() = default;
  /// A block of `nbytes` > 0 with one reference; the bytes are not initialized.
  static BlockRef allocate(int64_t nbytes);
  BlockRef(const BlockRef& o) noexcept : b_(o.b_) {
    if (b_) ++b_->refs;
  }
  BlockRef(BlockRef&& o) noexcept : b_(o.b_) { o.b_ = nullptr; }
  BlockRef& operator=(BlockRef o) noexcept {
    DataBlock* t = b_;
    b_ = o.b_;
    o.b_ = t;
    return *this;
  }
  ~BlockRef() {
    if (b_ && --b_->refs == 0) release(b_);
  }
  explicit operator bool() const { return b_ != nullptr; }
  uint8_t* bytes() const { return b_->bytes(); }
  /// The references to the block (0 for none), as shared_ptr::use_count.
  long use_count() const { return b_ ? static_cast<long>(b_->refs) : 0; }

 private:
  static void release(DataBlock* b) noexcept;
  DataBlock* b_ = nullptr;
};

class Storage {
 public:
  /// A zero-filled storage of `nbytes`. A storage's identity is its
  /// address (observations compare Storage pointers): no id is kept.
  explicit Storage(int64_t nbytes);
  /// A zero-filled storage of `nbytes`, charged to `budget`.
  static Result<Rc<Storage>> allocate(AllocBudget* budget, int64_t nbytes, const char* op);

  /// A storage on the meta device: `nbytes` and no data; allocates and
  /// charges nothing (F2, F8).
  static Rc<Storage> make_meta(int64_t nbytes);

  /// On the meta device: no data, reads and writes touch nothing.
  bool is_meta() const { return meta_; }
  int64_t nbytes() const { return nbytes_; }
  /// The bytes, for reading: never materializes (C3).
  const uint8_t* read_data() const { return block_ ? block_.bytes() : nullptr; }
  /// The bytes, for writing: materializes a COW storage first (C3, C4).
  /// Inline: elementwise loops call it per element.
  uint8_t* mutable_data() {
    if (cow_) materialize();
    return block_ ? block_.bytes() : nullptr;
  }
  bool resizable() const { return resizable_; }
  void set_resizable(bool r) { resizable_ = r; }
  DeviceType device() const { return device_; }
  void set_device(DeviceType d) { device_ = d; }
  /// Changes the byte size in place, keeping min(old, new) bytes and zeroing
  /// the rest (R6); a meta storage only changes its size. A COW storage copies into a fresh block and leaves the
  /// COW group without materializing the old block (C8). The caller has
  /// checked `resizable()` and the budget.
  void resize(int64_t nbytes);

  // --- Copy-on-write (group C) ---
  bool is_cow() const { return cow_; }
  /// Sharers of this storage's block (1 when not COW).
  long cow_refs() const { return block_ ? block_.use_count() : 0; }
  /// Data of a foreign owner (from_blob): cannot be lazy-cloned (C7).
  bool foreign() const { return foreign_; }
  void set_foreign(bool f) { foreign_ = f; }
  /// C1/C2: a new storage object sharing this one's block; both become COW.
  Rc<Storage> lazy_clone();

 private:
  /// mutable_data() of a COW storage: copies the block when others share it
  /// (C4), and the storage stops being COW.
  void materialize();

  int64_t nbytes_;
  BlockRef block_;  ///< null when nbytes_ == 0
  bool resizable_ = true;
  bool cow_ = false;
  bool foreign_ = false;
  bool meta_ = false;
  DeviceType device_ = DeviceType::kCpu;
};

namespace detail {
inline thread_local int64_t t_cow_copies = 0;  ///< see cow_copies()
}  // namespace detail

/// Materializations that copied bytes on this thread so far (C4: only when
/// other sharers are alive). Properties compare it before and after a step;
/// the reference backend around every step (inline: issue 8).
inline int64_t cow_copies() { return detail::t_cow_copies; }

}  // namespace storcheck
