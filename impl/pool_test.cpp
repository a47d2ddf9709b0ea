// Unit tests of impl/pool.h (Note [Small-object pool]).
#include "impl/pool.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstring>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

#include "impl/tensor.h"

namespace storcheck {
namespace {

/// The pool is compiled out of sanitizer and fuzzing builds.
bool pooling() {
  void* p = pool_allocate(48);
  const int64_t before = pool_cached_blocks();
  pool_deallocate(p, 48);
  const bool cached = pool_cached_blocks() == before + 1;
  pool_deallocate(pool_allocate(48), 48);  // leaves the cache as it was
  return cached;
}

TEST(Pool, EveryBlockHoldsItsBytesOverClassesAndBeyondThePool) {
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{320}, size_t{4095},
                   size_t{4096}, size_t{4097}, size_t{100000}}) {
    auto* p = static_cast<uint8_t*>(pool_allocate(n));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t), 0u) << n;
    std::memset(p, static_cast<int>(n & 0xFF), n);
    blocks.emplace_back(p, n);
  }
  for (auto [p, n] : blocks) {
    EXPECT_EQ(p[0], static_cast<uint8_t>(n & 0xFF));
    EXPECT_EQ(p[n - 1], static_cast<uint8_t>(n & 0xFF));
    pool_deallocate(p, n);
  }
}

TEST(Pool, AFreedBlockIsHandedOutAgainForAnyRequestOfItsClass) {
  if (!pooling()) GTEST_SKIP() << "built without the pool (STORCHECK_NO_POOL: sanitizers, fuzzing)";
  void* p = pool_allocate(130);  // class 129..192 bytes
  pool_deallocate(p, 130);
  void* q = pool_allocate(192);  // same class
  EXPECT_EQ(p, q);
  pool_deallocate(q, 192);
  void* big = pool_allocate(5000);  // beyond the pool: never cached
  const int64_t cached = pool_cached_blocks();
  pool_deallocate(big, 5000);
  EXPECT_EQ(pool_cached_blocks(), cached);
}

TEST(Pool, AClassHoldsAtMostItsCapAndTheRestIsFreed) {
  if (!pooling()) GTEST_SKIP() << "built without the pool (STORCHECK_NO_POOL: sanitizers, fuzzing)";
  std::vector<void*> blocks;
  for (int k = 0; k < 1000; ++k) blocks.push_back(pool_allocate(4096));  // empties the class
  const int64_t before = pool_cached_blocks();
  for (void* p : blocks) pool_deallocate(p, 4096);
  // 4 KiB blocks: the class keeps 256 KiB worth, at least 64 blocks.
  EXPECT_EQ(pool_cached_blocks() - before, 64);
}

TEST(Pool, ABlockFreedOnAnotherThreadJoinsThatThreadsCache) {
  if (!pooling()) GTEST_SKIP() << "built without the pool (STORCHECK_NO_POOL: sanitizers, fuzzing)";
  void* p = pool_allocate(700);
  int64_t in_thread = -1;
  std::thread t([&] {
    const int64_t before = pool_cached_blocks();
    pool_deallocate(p, 700);
    in_thread = pool_cached_blocks() - before;
  });  // its exit frees its cache (LeakSanitizer would see a leak otherwise)
  t.join();
  EXPECT_EQ(in_thread, 1);
}

// Case 3) of the note: a block taken after its thread's cache died (here by
// a thread_local destroyed after the cache) may join another thread's
// cache, which hands it out for any request of its class: it must have the
// class's size, not the request's.
void* g_late_block = nullptr;
struct LateAllocator {
  bool armed = false;
  ~LateAllocator() {
    if (armed) g_late_block = pool_allocate(100);  // class of 65..128 bytes
  }
};
thread_local LateAllocator t_late;

TEST(Pool, ABlockTakenAfterItsThreadsCacheDiedHasItsClassSize) {
  if (!pooling()) GTEST_SKIP() << "built without the pool (STORCHECK_NO_POOL: sanitizers, fuzzing)";
  std::thread t([] {
    t_late.armed = true;                   // constructed first, destroyed last
    pool_deallocate(pool_allocate(8), 8);  // the cache, destroyed before t_late
  });
  t.join();
  ASSERT_NE(g_late_block, nullptr);
  EXPECT_GE(malloc_usable_size(g_late_block), 128u);
  pool_deallocate(g_late_block, 100);  // joins this thread's cache, as the note allows
  g_late_block = nullptr;
}

// Note [Single-threaded counts]: the reference's handles count without
// atomics where the standard library allows it.
TEST(Pool, ReferenceHandlesCountWithoutAtomics) {
#if defined(__GLIBCXX__)
  constexpr auto kSingle = __gnu_cxx::_S_single;
  EXPECT_TRUE((std::is_same_v<Tensor, std::__shared_ptr<TensorImpl, kSingle>>));
  EXPECT_TRUE((std::is_same_v<decltype(TensorImpl::storage), std::__shared_ptr<Storage, kSingle>>));
  EXPECT_TRUE((std::is_same_v<decltype(TensorImpl::version), std::__shared_ptr<int64_t, kSingle>>));
  EXPECT_TRUE((std::is_same_v<decltype(make_pooled<Storage>(0)), Rc<Storage>>));
#else
  GTEST_SKIP() << "not libstdc++: Rc is std::shared_ptr";
#endif
}

TEST(Pool, PooledTensorsShareAndReleaseLikeMakeShared) {
  WeakRc<TensorImpl> weak;
  {
    Tensor t = make_pooled<TensorImpl>();
    t->version = make_pooled<int64_t>(7);
    Tensor v = make_pooled<TensorImpl>(*t, t->geom);  // a view: shares the version counter
    weak = t;
    EXPECT_EQ(v->version, t->version);
    EXPECT_EQ(t->version.use_count(), 2);
    ++*v->version;
    EXPECT_EQ(*t->version, 8);
    EXPECT_FALSE(weak.expired());
  }
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace storcheck
