// Note [Sparse values by their inputs] (oracles/dense_values_cache.h): the
// key and the cache alone, then each backend observing a sparse variable
// after every step while writes, a shrink and a restore change its parts
// behind it: every observation must show the values a fresh to_dense()
// would, never the cached ones of an earlier step.
#include "oracles/dense_values_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "oracles/backend.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

VarObs with_values(std::vector<uint8_t> bytes, bool known) {
  VarObs v;
  v.values = std::move(bytes);
  v.values_known = known;
  return v;
}

TEST(DenseValuesCache, HitsOnlyOnTheSameKeyOfTheSameVariable) {
  DenseValuesCache cache;
  cache.reset(2);
  ValuesKey key;
  key.pod(int64_t{7});
  key.counted("abc", 3);
  cache.store(1, key, with_values({1, 2, 3}, true));

  ValuesKey same;
  same.pod(int64_t{7});
  same.counted("abc", 3);
  VarObs got;
  ASSERT_TRUE(cache.lookup(1, same, &got));
  EXPECT_EQ(got.values, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_TRUE(got.values_known);
  VarObs other_var;
  EXPECT_FALSE(cache.lookup(0, same, &other_var)) << "an entry belongs to one variable";

  ValuesKey changed;
  changed.pod(int64_t{7});
  changed.counted("abd", 3);
  EXPECT_FALSE(cache.lookup(1, changed, &got)) << "one byte of a part differs";

  // counted() keeps fields apart: "ab" + "c" is not "a" + "bc".
  ValuesKey a, b;
  a.counted("ab", 2);
  a.counted("c", 1);
  b.counted("a", 1);
  b.counted("bc", 2);
  EXPECT_NE(a.data(), b.data());

  cache.reset(2);
  EXPECT_FALSE(cache.lookup(1, same, &got)) << "a new program forgets every entry";
  EXPECT_FALSE(cache.lookup(5, same, &got)) << "no variable 5: a miss, not a crash";
}

TEST(DenseValuesCache, UnknownValuesAreCachedAsUnknown) {
  DenseValuesCache cache;
  cache.reset(1);
  ValuesKey key;
  key.pod(1);
  cache.store(0, key, with_values({}, false));
  ValuesKey again;
  again.pod(1);
  VarObs got = with_values({9}, true);
  ASSERT_TRUE(cache.lookup(0, again, &got));
  EXPECT_FALSE(got.values_known);
  EXPECT_TRUE(got.values.empty());
}

/// t1's values after each step, observed after every step into one
/// Observation as the runner does (std::nullopt: values not known).
std::vector<std::optional<std::vector<float>>> sparse_values_per_step(Backend* b,
                                                                      const char* text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  const Program& p = r.program;
  b->begin(p, Limits{});
  Observation obs;
  std::vector<std::optional<std::vector<float>>> out;
  for (const Step& s : p.steps) {
    Error e = b->run_step(s);
    EXPECT_EQ(e.kind, ErrorKind::kNone) << print_step(p, s) << ": " << e.message;
    b->observe(&obs);
    const VarObs& v = obs.vars.at(1);
    if (!v.live || !v.values_known) {
      out.push_back(std::nullopt);
      continue;
    }
    std::vector<float> f(v.values.size() / sizeof(float));
    if (!f.empty()) std::memcpy(f.data(), v.values.data(), v.values.size());
    out.push_back(f);
  }
  return out;
}

// Every change below reaches t1 only through its parts: the same sparse
// object, the same sizes, the values part rewritten, emptied and restored.
constexpr const char* kPartsChangeBehindTheSparseTensor =
    "t0 = arange [2,3] f32\n"
    "t1 = to_sparse_coo t0 2\n"
    "t2 = values t1\n"
    "fill_ t2 7\n"
    "mul_ t2 2\n"
    "t3 = arange [1] f32\n"
    "shrink t2\n"
    "rehydrate\n"
    "fill_ t2 1\n";

void expect_values_follow_the_parts(Backend* b) {
  using V = std::vector<float>;
  auto got = sparse_values_per_step(b, kPartsChangeBehindTheSparseTensor);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got[1], V({0, 1, 2, 3, 4, 5})) << "to_sparse_coo";
  EXPECT_EQ(got[2], V({0, 1, 2, 3, 4, 5})) << "values(): nothing written";
  EXPECT_EQ(got[3], V({0, 7, 7, 7, 7, 7})) << "fill_ through values()";
  EXPECT_EQ(got[4], V({0, 14, 14, 14, 14, 14})) << "mul_ through values()";
  EXPECT_EQ(got[5], V({0, 14, 14, 14, 14, 14})) << "an unrelated factory: a hit";
  EXPECT_EQ(got[6], std::nullopt) << "shrink: the values part is undersized (S8)";
  EXPECT_EQ(got[7], V({0, 0, 0, 0, 0, 0})) << "rehydrate: zero-filled bytes (R2)";
  EXPECT_EQ(got[8], V({0, 1, 1, 1, 1, 1})) << "fill_ after the restore";
}

TEST(DenseValuesCache, ReferenceSeesEveryChangeOfTheParts) {
  std::unique_ptr<Backend> b = make_reference_backend();
  expect_values_follow_the_parts(b.get());
}

TEST(DenseValuesCache, LibTorchSeesEveryChangeOfTheParts) {
  std::unique_ptr<Backend> b = make_torch_cpu_backend();
  if (!b) GTEST_SKIP() << "built without LibTorch: make_torch_cpu_backend() returned null";
  expect_values_follow_the_parts(b.get());
}

}  // namespace
}  // namespace storcheck
