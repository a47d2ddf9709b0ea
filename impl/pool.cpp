#include "impl/pool.h"

#include <array>
#include <new>
#include <utility>

// Note [Small-object pool]
// Each tensor the reference makes costs up to five small allocations: the
// TensorImpl with its shared_ptr control block, the Storage, the version
// counter, the DataBlock and its bytes; a view costs one. A 16-step program
// makes and frees dozens, and a program's end frees them all at once, more
// than glibc's per-thread cache keeps per size (7), so most frees and the
// next program's allocations went through malloc's slow paths: a quarter of
// the reference's instructions (callgrind, `programs/16steps/reference/
// execution`). The pool keeps freed blocks per size class (multiples of 64
// bytes up to 4 KiB) in a per-thread free list and hands them out again.
// Case 1) a size over 4 KiB, or a full class: ::operator new / delete.
// Case 2) otherwise the calling thread's list; a block freed on another
//         thread than the one that took it joins the freeing thread's list
//         (blocks are individual ::operator new allocations, so any thread
//         may own them).
// Case 3) after the thread's cache is destroyed (thread exit; at process
//         exit, objects with static storage are destroyed after the main
//         thread's thread_locals): straight to ::operator new / delete.
// Sanitizer and fuzzing builds (STORCHECK_NO_POOL) skip the pool: ASan then
// sees every use after free, and libFuzzer's per-input malloc/free balance
// holds.

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

void* pool_allocate(size_t bytes) { return ::operator new(bytes); }
void pool_deallocate(void* p, size_t) noexcept { ::operator delete(p); }
int64_t pool_cached_blocks() { return 0; }

#else

namespace {

constexpr size_t kGrain = 64;
constexpr size_t kClasses = 64;  // up to kGrain * kClasses = 4 KiB
/// Bytes one class may hold, so a thread's cache stays under 64 * 256 KiB.
constexpr size_t kClassBytes = 256 << 10;

struct FreeBlock {
  FreeBlock* next;
};

struct Cache {
  FreeBlock* head[kClasses] = {};
  uint32_t count[kClasses] = {};
  ~Cache();
};

thread_local bool t_cache_dead = false;  // Case 3)
thread_local Cache t_cache;

Cache::~Cache() {
  t_cache_dead = true;
  for (size_t c = 0; c < kClasses; ++c) {
    while (FreeBlock* b = head[c]) {
      head[c] = b->next;
      ::operator delete(b);
    }
    count[c] = 0;
  }
}

/// The class of `bytes` (class c holds blocks of (c + 1) * kGrain bytes),
/// or kClasses when it is too big for the pool.
size_t class_of(size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kGrain; }

/// Blocks class c may hold: kClassBytes of them, at least 64.
constexpr uint32_t class_cap(size_t c) {
  const size_t n = kClassBytes / ((c + 1) * kGrain);
  return static_cast<uint32_t>(n < 64 ? 64 : n);
}

template <size_t... C>
constexpr std::array<uint32_t, kClasses> caps(std::index_sequence<C...>) {
  return {class_cap(C)...};
}
constexpr std::array<uint32_t, kClasses> kCap = caps(std::make_index_sequence<kClasses>());

}  // namespace

void* pool_allocate(size_t bytes) {
  const size_t c = class_of(bytes);
  if (c >= kClasses) return ::operator new(bytes);  // Case 1)
  // Every block of a class has the class's size, even one taken after this
  // thread's cache died: another thread's cache may hold it later.
  if (t_cache_dead) return ::operator new((c + 1) * kGrain);  // Case 3)
  Cache& cache = t_cache;
  if (FreeBlock* b = cache.head[c]) {  // Case 2)
    cache.head[c] = b->next;
    --cache.count[c];
    return b;
  }
  return ::operator new((c + 1) * kGrain);  // sized to its class, so any request of it fits
}

void pool_deallocate(void* p, size_t bytes) noexcept {
  if (!p) return;
  const size_t c = class_of(bytes);
  if (c >= kClasses || t_cache_dead) {  // Case 1), 3)
    ::operator delete(p);
    return;
  }
  Cache& cache = t_cache;
  if (cache.count[c] >= kCap[c]) {  // Case 1): a full class
    ::operator delete(p);
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);
  b->next = cache.head[c];
  cache.head[c] = b;
  ++cache.count[c];
}

int64_t pool_cached_blocks() {
  if (t_cache_dead) return 0;
  int64_t n = 0;
  for (uint32_t k : t_cache.count) n += k;
  return n;
}

#endif

}  // namespace storcheck
