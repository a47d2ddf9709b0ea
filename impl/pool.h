// A per-thread cache of freed small blocks for the reference's per-tensor
// objects (TensorImpl, Storage, version counters, data blocks and their
// bytes): see Note [Small-object pool] in impl/pool.cpp.
//
// Invariant: a block handed out for `bytes` is given back with the same
// `bytes`; it may be given back on any thread (it joins that thread's
// cache). Blocks are plain `::operator new` allocations, so everything the
// caches hold is freed when their thread exits, and a build without the
// pool (sanitizers, fuzzing engines: STORCHECK_NO_POOL) behaves the same
// with every block going straight to `::operator new`/`delete`.
//
//   auto t = make_pooled<TensorImpl>();          // control block and object: one block
//   uint8_t* p = static_cast<uint8_t*>(pool_allocate(64));
//   pool_deallocate(p, 64);                        // cached for the next 64-byte request
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace storcheck {

/// A block of at least `bytes` bytes (max_align_t aligned); never null.
void* pool_allocate(size_t bytes);
/// Gives back a block pool_allocate(bytes) returned, with the same `bytes`.
void pool_deallocate(void* p, size_t bytes) noexcept;

/// Blocks the calling thread's cache holds now, over all size classes (tests).
int64_t pool_cached_blocks();

/// A standard allocator over the pool, for std::allocate_shared.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding, as allocators do
  T* allocate(size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { pool_deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const PoolAllocator<U>&) const {
    return false;
  }
};

/// std::make_shared through the pool: the object and its control block in
/// one pooled block.
template <class T, class... Args>
std::shared_ptr<T> make_pooled(Args&&... args) {
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace storcheck
