#include "impl/pool.h"

#include <array>
#include <new>
#include <utility>

// Note [Small-object pool]
// Each tensor the reference makes costs up to four small allocations: the
// TensorImpl with its shared_ptr control block, the Storage, the version
// counter, and the DataBlock with its bytes (five until the DataBlock took
// its bytes in, impl/storage.h); a view costs one. A 16-step program
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
// The fast paths (a cached block of a class taken or given back) are inline
// in pool.h over a trivially destructible thread_local, so they reach it
// without a TLS wrapper call; the slow paths here register a thread_local
// reaper that frees the cache at thread exit and marks the cache dead
// (issue 8: out of line, the two calls were a tenth of the reference's
// execution).
// Sanitizer and fuzzing builds (STORCHECK_NO_POOL) skip the pool: ASan then
// sees every use after free, and libFuzzer's per-input malloc/free balance
// holds.

namespace storcheck {

#ifdef STORCHECK_NO_POOL

int64_t pool_cached_blocks() { return 0; }

#else

namespace pool_detail {
namespace {

thread_local bool t_cache_dead = false;  // Case 3)

/// Frees the thread's cached blocks when the thread exits (Case 3) after).
struct Reaper {
  Reaper() { t_cache.live = true; }
  void touch() {}
  ~Reaper() {
    t_cache_dead = true;
    t_cache.live = false;
    for (size_t c = 0; c < kClasses; ++c) {
      while (FreeBlock* b = t_cache.head[c]) {
        t_cache.head[c] = b->next;
        ::operator delete(b);
      }
      t_cache.count[c] = 0;
    }
  }
};
thread_local Reaper t_reaper;

/// Registers the calling thread's reaper (its first use constructs it);
/// false once it has run.
bool cache_usable() {
  if (t_cache_dead) return false;
  if (!t_cache.live) t_reaper.touch();  // its first use in a thread constructs it
  return t_cache.live;
}

}  // namespace

// The inline fast paths (impl/pool.h) handle a cached block of a class;
// these the rest.
void* allocate_slow(size_t bytes) {
  const size_t c = class_of(bytes);
  if (c >= kClasses) return ::operator new(bytes);  // Case 1)
  // Every block of a class has the class's size, even one taken after this
  // thread's cache died (Case 3)): another thread's cache may hold it later.
  // Registers the reaper before any block joins the lists.
  cache_usable();
  return ::operator new((c + 1) * kGrain);  // sized to its class, so any request of it fits
}

void deallocate_slow(void* p, size_t bytes) noexcept {
  if (!p) return;
  const size_t c = class_of(bytes);
  if (c >= kClasses || !cache_usable() ||  // Case 1), 3)
      t_cache.count[c] >= kCap[c]) {       // Case 1): a full class
    ::operator delete(p);
    return;
  }
  auto* b = static_cast<FreeBlock*>(p);
  b->next = t_cache.head[c];
  t_cache.head[c] = b;
  ++t_cache.count[c];
}

}  // namespace pool_detail

int64_t pool_cached_blocks() {
  int64_t n = 0;
  for (uint32_t k : pool_detail::t_cache.count) n += k;
  return n;
}

#endif

}  // namespace storcheck
