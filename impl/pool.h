// A per-thread cache of freed small blocks for the reference's per-tensor
// objects (TensorImpl, Storage, version counters, data blocks with their
// bytes, the fake converters' memo nodes): see Note [Small-object pool] in impl/pool.cpp.
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

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace storcheck {

#if defined(__SANITIZE_ADDRESS__) || defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
#define STORCHECK_NO_POOL 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define STORCHECK_NO_POOL 1
#endif
#endif

#ifdef STORCHECK_NO_POOL

inline void* pool_allocate(size_t bytes) { return ::operator new(bytes); }
inline void pool_deallocate(void* p, size_t) noexcept { ::operator delete(p); }

#else

namespace pool_detail {

inline constexpr size_t kGrain = 64;
inline constexpr size_t kClasses = 64;  // up to kGrain * kClasses = 4 KiB
/// Bytes one class may hold, so a thread's cache stays under 64 * 256 KiB.
inline constexpr size_t kClassBytes = 256 << 10;

/// The class of `bytes` (class c holds blocks of (c + 1) * kGrain bytes),
/// or kClasses or more when it is too big for the pool.
constexpr size_t class_of(size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kGrain; }

/// Blocks class c may hold: kClassBytes of them, at least 64.
constexpr uint32_t class_cap(size_t c) {
  const size_t n = kClassBytes / ((c + 1) * kGrain);
  return static_cast<uint32_t>(n < 64 ? 64 : n);
}

template <size_t... C>
constexpr std::array<uint32_t, kClasses> caps(std::index_sequence<C...>) {
  return {class_cap(C)...};
}
/// class_cap of every class: a table, so a run-time class costs no division.
inline constexpr std::array<uint32_t, kClasses> kCap = caps(std::make_index_sequence<kClasses>());

struct FreeBlock {
  FreeBlock* next;
};

/// A thread's cache. Trivially destructible and zero-initialized, so the
/// inline fast paths below reach it without a TLS wrapper call; its blocks
/// are freed at thread exit by a thread_local reaper in pool.cpp, which the
/// slow paths register (`live`).
struct Cache {
  FreeBlock* head[kClasses];
  uint32_t count[kClasses];
  bool live;  ///< the reaper is registered and has not run: frees may join the lists
};
inline thread_local Cache t_cache;

void* allocate_slow(size_t bytes);
void deallocate_slow(void* p, size_t bytes) noexcept;

}  // namespace pool_detail

/// A block of at least `bytes` bytes (max_align_t aligned); never null.
/// Inline: a tensor costs several, and the calls were a tenth of the
/// reference's execution (issue 8).
inline void* pool_allocate(size_t bytes) {
  using namespace pool_detail;
  const size_t c = class_of(bytes);
  Cache& cache = t_cache;
  if (c < kClasses) {
    if (FreeBlock* b = cache.head[c]) {  // Case 2) of Note [Small-object pool]
      cache.head[c] = b->next;
      --cache.count[c];
      return b;
    }
  }
  return allocate_slow(bytes);
}

/// Gives back a block pool_allocate(bytes) returned, with the same `bytes`.
inline void pool_deallocate(void* p, size_t bytes) noexcept {
  using namespace pool_detail;
  const size_t c = class_of(bytes);
  Cache& cache = t_cache;
  if (p && c < kClasses && cache.live && cache.count[c] < kCap[c]) {  // Case 2)
    auto* b = static_cast<FreeBlock*>(p);
    b->next = cache.head[c];
    cache.head[c] = b;
    ++cache.count[c];
    return;
  }
  deallocate_slow(p, bytes);
}

#endif

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

// Note [Single-threaded counts]
// The reference's tensors, storages and version counters are held by
// shared_ptrs whose counts a view, an operand or a program variable changes
// several times per step. std::shared_ptr counts atomically whenever the
// process may have threads, and with LibTorch's thread pools linked in it
// always may: every copy and release was a `lock` instruction (perf put
// about 6% of the reference's execution samples on them; the measured gain
// was 1-6%: README.md, Measured figures). These objects belong to the
// backend that made them, and a backend to one thread (each gate job makes
// its own; BlockRef's counts in impl/storage.h are not atomic either), so
// Rc and WeakRc are shared_ptr and weak_ptr with libstdc++'s
// single-threaded lock policy, whose counts are plain increments. Elsewhere
// (another standard library) they are std::shared_ptr and std::weak_ptr.
// (A SparseTensor stays a std::shared_ptr: few steps copy one.) Two threads
// must never hold Rcs to one object at once (a data race on its counts, as
// on a BlockRef's); a thread may pass its last one to another, and the pool
// takes the block back on any thread.
#if defined(__GLIBCXX__)
template <class T>
using Rc = std::__shared_ptr<T, __gnu_cxx::_S_single>;
template <class T>
using WeakRc = std::__weak_ptr<T, __gnu_cxx::_S_single>;
#else
template <class T>
using Rc = std::shared_ptr<T>;
template <class T>
using WeakRc = std::weak_ptr<T>;
#endif

/// std::make_shared through the pool, as an Rc: the object and its control
/// block in one pooled block.
template <class T, class... Args>
Rc<T> make_pooled(Args&&... args) {
#if defined(__GLIBCXX__)
  return std::__allocate_shared<T, __gnu_cxx::_S_single>(PoolAllocator<T>(),
                                                         std::forward<Args>(args)...);
#else
  return std::allocate_shared<T>(PoolAllocator<T>(), std::forward<Args>(args)...);
#endif
}

}  // namespace storcheck
