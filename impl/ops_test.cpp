// Unit tests of impl/ops.h: the reference ops against PyTorch 1.13.
//
// Every success case pins sizes, strides, offset and values, and every
// error case the exact ErrorKind; each expectation was checked by running the
// same call in PyTorch 1.13 (torch 1.13, CPU). Where the reference applies a
// harness policy that LibTorch lacks (S8, S9 checked offsets, allocation
// limits, result-list and rank bounds), the test says so.
#include "impl/ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/fake.h"
#include "impl/rand.h"
#include "impl/sparse.h"

namespace storcheck {

// Lets gtest print ErrorKind by name (internal linkage: found by ADL).
static void PrintTo(ErrorKind k, std::ostream* os) { *os << error_kind_name(k); }

namespace {

constexpr int64_t kTwo62 = int64_t{1} << 62;

/// An int list literal usable where an IntSpan is expected (lives until the
/// end of the full expression).
struct Ints {
  std::vector<int64_t> v;
  Ints(std::initializer_list<int64_t> l) : v(l) {}
  operator IntSpan() const { return IntSpan(v.data(), static_cast<int>(v.size())); }  // NOLINT
};

/// The value of a Result that the test requires to succeed.
Tensor must(Result<Tensor> r) {
  if (!r.ok())
    throw std::runtime_error("unexpected error " + std::string(error_kind_name(r.error().kind)) +
                             ": " + r.error().message);
  return std::move(r).value();
}

ErrorKind kind(const Result<Tensor>& r) { return r.ok() ? ErrorKind::kNone : r.error().kind; }
ErrorKind kind(const Status& s) { return s.ok() ? ErrorKind::kNone : s.error().kind; }

std::vector<int64_t> sizes(const Tensor& t) {
  return std::vector<int64_t>(t->geom.sizes.begin(), t->geom.sizes.begin() + t->rank());
}
std::vector<int64_t> strides(const Tensor& t) {
  return std::vector<int64_t>(t->geom.strides.begin(), t->geom.strides.begin() + t->rank());
}
int64_t offset(const Tensor& t) { return t->geom.offset; }

/// Elements in row-major order, as doubles (exact for the small values used).
std::vector<double> values(const Tensor& t) {
  std::vector<uint8_t> bytes;
  read_elements(*t, &bytes);
  std::vector<double> out;
  for (size_t k = 0; k < bytes.size(); k += static_cast<size_t>(t->geom.itemsize))
    out.push_back(load_as_double(bytes.data() + k, t->dtype));
  return out;
}

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32,
                                DType::kI64, DType::kU8,  DType::kBool};

using I = std::vector<int64_t>;
using D = std::vector<double>;

class OpsTest : public ::testing::Test {
 protected:
  Context ctx;
  /// torch.arange(12.).view(3, 4)
  Tensor arange34() { return must(arange(ctx, Ints{3, 4}, DType::kF32)); }
};

// === Factories ==================================================================

TEST_F(OpsTest, ArangeIsContiguousRowMajorCountWithFreshVersion) {
  Tensor t = arange34();
  EXPECT_EQ(sizes(t), (I{3, 4}));
  EXPECT_EQ(strides(t), (I{4, 1}));
  EXPECT_EQ(offset(t), 0);
  EXPECT_EQ(t->storage->nbytes(), 48);
  EXPECT_EQ(*t->version, 0);
  EXPECT_EQ(values(t), (D{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST_F(OpsTest, ArangeConvertsToU8ModuloAndToBoolAsNonZero) {
  // torch.arange(300).to(torch.uint8)[-3:] == [41, 42, 43]
  D u8 = values(must(arange(ctx, Ints{300}, DType::kU8)));
  EXPECT_EQ(D(u8.end() - 3, u8.end()), (D{41, 42, 43}));
  EXPECT_EQ(values(must(arange(ctx, Ints{3}, DType::kBool))), (D{0, 1, 1}));
}

TEST_F(OpsTest, ZerosOnesAndFullFillEveryElement) {
  EXPECT_EQ(values(must(zeros(ctx, Ints{2, 2}, DType::kI64))), (D{0, 0, 0, 0}));
  EXPECT_EQ(values(must(ones(ctx, Ints{2}, DType::kBool))), (D{1, 1}));
  // torch.full((2,), 1.5, dtype=torch.int32) == [1, 1]; full((2,), -1, uint8) == [255, 255]
  EXPECT_EQ(values(must(full(ctx, Ints{2}, Scalar::floating(1.5), DType::kI32))), (D{1, 1}));
  EXPECT_EQ(values(must(full(ctx, Ints{2}, Scalar::integer(-1), DType::kU8))), (D{255, 255}));
}

TEST_F(OpsTest, FullWithScalarOutOfRangeIsScalarOverflow) {
  EXPECT_EQ(kind(full(ctx, Ints{2}, Scalar::integer(300), DType::kU8)), ErrorKind::kScalarOverflow);
  EXPECT_EQ(ctx.budget.used, 0);  // a failed step allocates nothing
}

TEST_F(OpsTest, ZerosWithNegativeSizeIsInvalidArgument) {
  EXPECT_EQ(kind(zeros(ctx, Ints{-1}, DType::kF32)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, RandElementsAreRandValueOfSeedAndIndex) {
  Tensor t = must(rand(ctx, Ints{2, 3}, DType::kF64, 42));
  D expected;
  for (int k = 0; k < 6; ++k) expected.push_back(rand_value(42, k, DType::kF64));
  EXPECT_EQ(values(t), expected);
  EXPECT_EQ(strides(t), (I{3, 1}));
}

// rand's typed loop (rand_item) stores, in every dtype, the bytes that
// store_double(rand_value) stores: the LibTorch backend fills its tensor so.
TEST_F(OpsTest, RandStoresStoreDoubleOfRandValueInEveryDType) {
  for (DType d : kAllDTypes) {
    Tensor t = must(rand(ctx, Ints{4, 16}, d, 1234));
    const int64_t size = itemsize(d);
    std::vector<uint8_t> expected(static_cast<size_t>(64 * size));
    for (int64_t k = 0; k < 64; ++k)
      store_double(expected.data() + k * size, d, rand_value(1234, k, d));
    ASSERT_EQ(t->storage->nbytes(), 64 * size);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), t->storage->read_data()))
        << "dtype " << static_cast<int>(d);
  }
}

TEST_F(OpsTest, EmptyStridedKeepsStridesAndIsZeroFilledR6) {
  Tensor t = must(empty_strided(ctx, Ints{2, 3}, Ints{1, 2}, DType::kF32));
  EXPECT_EQ(sizes(t), (I{2, 3}));
  EXPECT_EQ(strides(t), (I{1, 2}));
  EXPECT_EQ(offset(t), 0);
  EXPECT_EQ(t->storage->nbytes(), 24);
  EXPECT_EQ(values(t), (D{0, 0, 0, 0, 0, 0}));
}

TEST_F(OpsTest, EmptyStridedWithOverflowingStridesIsStorageSizeOverflowS9) {
  // torch: "Storage size calculation overflowed with sizes=[2, 2] and strides=[2^62, 2^62]"
  Result<Tensor> r = empty_strided(ctx, Ints{2, 2}, Ints{kTwo62, kTwo62}, DType::kF32);
  EXPECT_EQ(kind(r), ErrorKind::kStorageSizeOverflow);
  EXPECT_EQ(ctx.budget.used, 0);  // nothing allocated (S9)
}

TEST_F(OpsTest, EmptyStridedWithMismatchedLengthsIsInvalidArgument) {
  EXPECT_EQ(kind(empty_strided(ctx, Ints{2, 3}, Ints{1}, DType::kF32)),
            ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, AllocationBeyondMaxTensorBytesIsResourceLimit) {
  ctx.budget.max_tensor_bytes = 16;
  Result<Tensor> r = zeros(ctx, Ints{5}, DType::kF32);  // 20 bytes
  ASSERT_EQ(kind(r), ErrorKind::kResourceLimit);
  EXPECT_NE(r.error().message.find("zeros"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("20"), std::string::npos) << r.error().message;
  EXPECT_EQ(kind(zeros(ctx, Ints{4}, DType::kF32)), ErrorKind::kNone);
}

TEST_F(OpsTest, AllocationsBeyondMaxTotalBytesAreResourceLimit) {
  ctx.budget.max_total_bytes = 32;
  EXPECT_EQ(kind(zeros(ctx, Ints{4}, DType::kF32)), ErrorKind::kNone);
  EXPECT_EQ(kind(zeros(ctx, Ints{4}, DType::kF32)), ErrorKind::kNone);
  EXPECT_EQ(kind(zeros(ctx, Ints{1}, DType::kU8)), ErrorKind::kResourceLimit);
  EXPECT_EQ(ctx.budget.used, 32);
}

// Note [Elements a step reads]: sum and to_sparse_* of a view that repeats
// offsets read at most ctx.max_step_reads elements; meta inputs read none.
TEST_F(OpsTest, SumAndToSparseOfHugeExpandedViewAreResourceLimit) {
  Tensor base = must(arange(ctx, Ints{4}, DType::kF32));
  Tensor big = must(expand(base, Ints{100000, 1000, 4}));  // 4e8 elements over 4
  Result<Tensor> s = sum(ctx, big);
  ASSERT_EQ(kind(s), ErrorKind::kResourceLimit);
  EXPECT_NE(s.error().message.find("400000000 elements"), std::string::npos) << s.error().message;
  EXPECT_EQ(to_sparse_coo(ctx, big, 3).error().kind, ErrorKind::kResourceLimit);
  EXPECT_EQ(to_sparse_csr(ctx, big).error().kind, ErrorKind::kResourceLimit);
  // At the limit it runs: 2^20 elements, sum 2^18 * (0 + 1 + 2 + 3).
  Tensor edge = must(expand(base, Ints{1 << 18, 4}));
  Tensor e = must(sum(ctx, edge));
  EXPECT_EQ(load_as_double(e->storage->read_data(), DType::kF64), 6.0 * (1 << 18));
  ctx.max_step_reads = (1 << 20) - 1;
  EXPECT_EQ(kind(sum(ctx, edge)), ErrorKind::kResourceLimit);
  // A meta input reads nothing.
  Tensor meta = must(expand(must(to_meta(base)), Ints{100000, 1000, 4}));
  EXPECT_EQ(kind(sum(ctx, meta)), ErrorKind::kNone);
}

/// A contiguous tensor of dtype d holding `v`.
Tensor of_values(Context& ctx, DType d, const std::vector<double>& v) {
  Tensor t = must(zeros(ctx, Ints{static_cast<int64_t>(v.size())}, d));
  for (size_t k = 0; k < v.size(); ++k)
    store_double(t->storage->mutable_data() + k * static_cast<size_t>(t->geom.itemsize), d, v[k]);
  return t;
}

// sum's typed loop (issue 8): floating elements add in f64, the others in
// i64 wrapping, a bool byte counting as 1 when non-zero (load_as_int).
TEST_F(OpsTest, SumAddsFloatsInF64IntegersWrappingInI64AndBoolBytesAsNonZero) {
  auto sum_of = [&](const Tensor& t) {
    Tensor s = must(sum(ctx, t));
    EXPECT_EQ(s->rank(), 0);
    return s;
  };
  Tensor f =
      sum_of(must(t(must(view(of_values(ctx, DType::kF32, {0.5, 0.25, -2, 8}), Ints{2, 2})))));
  EXPECT_EQ(f->dtype, DType::kF64);
  EXPECT_EQ(load_as_double(f->storage->read_data(), DType::kF64), 6.75);
  Tensor i = sum_of(of_values(ctx, DType::kI32, {-1, -2, 7}));
  EXPECT_EQ(i->dtype, DType::kI64);
  EXPECT_EQ(load_as_int(i->storage->read_data(), DType::kI64), 4);
  Tensor wrap = must(zeros(ctx, Ints{2}, DType::kI64));
  store_int(wrap->storage->mutable_data(), DType::kI64, std::numeric_limits<int64_t>::max());
  store_int(wrap->storage->mutable_data() + 8, DType::kI64, 1);
  EXPECT_EQ(load_as_int(sum_of(wrap)->storage->read_data(), DType::kI64),
            std::numeric_limits<int64_t>::min());
  Tensor u8 = of_values(ctx, DType::kU8, {255, 2, 0, 1});
  EXPECT_EQ(load_as_int(sum_of(u8)->storage->read_data(), DType::kI64), 258);
  Tensor b = sum_of(must(view_dtype(u8, DType::kBool)));  // bytes 255, 2, 0, 1
  EXPECT_EQ(b->dtype, DType::kI64);
  EXPECT_EQ(load_as_int(b->storage->read_data(), DType::kI64), 3);
}

// Note [sum in f64]: every order of the additions gives one result when the
// finite elements lie on a grid 2^e whose 2^53 multiples bound their
// magnitudes; otherwise the order may decide (views.errors_agree, seed
// 2020: [0, 1, 2, 3, 2^53] sums to 2^53 + 6 in order, 2^53 + 4 in
// LibTorch's).
TEST_F(OpsTest, SumDependsOnOrderOnlyWhereItsAdditionsRound) {
  const double two53 = 9007199254740992.0, inf = std::numeric_limits<double>::infinity();
  struct Case {
    DType dtype;
    std::vector<double> values;
    bool depends;
  } cases[] = {
      {DType::kF64, {0, 1, 2, 3, two53}, true},
      {DType::kF64, {0, 1, 2, 3, 4}, false},
      {DType::kF64, {two53, 2, 4}, false},        // every partial sum is even, below 2^54
      {DType::kF64, {two53, 2, 4, two53}, true},  // 2^54 + 6 rounds
      {DType::kF32, {16777216, 1, 1}, false},     // f32 values, summed in f64
      {DType::kF64, {0.5, 0.25, 0.125, 1024}, false},
      {DType::kF64, {0x1p-30, 1024}, false},
      {DType::kF64, {0x1p-30, 0x1p30, 1}, true},    // 2^60 grid steps
      {DType::kF64, {1e308, 1e308, -1e308}, true},  // overflows in one order
      {DType::kF64, {inf, 1, 2}, false},
      {DType::kF64, {inf, -1e308, -1e308}, true},      // inf or NaN
      {DType::kF64, {std::nan(""), 1, two53}, false},  // NaN, in any order
      {DType::kF64, {two53, 1, 0}, false},             // fl(2^53 + 1) in any order
      {DType::kF64, {two53}, false},
      {DType::kF64, {0.1, 0.2, 0.3}, true},
  };
  for (const Case& c : cases) {
    Tensor t = of_values(ctx, c.dtype, c.values);
    SCOPED_TRACE(::testing::PrintToString(c.values));
    EXPECT_EQ(sum_depends_on_order(t), c.depends);
  }
  // rand's multiples of 2^-24 sum in any order alike; integer, meta and
  // emptied inputs never depend on it.
  EXPECT_FALSE(sum_depends_on_order(must(rand(ctx, Ints{64, 64}, DType::kF64, 3))));
  EXPECT_FALSE(sum_depends_on_order(must(arange(ctx, Ints{4096}, DType::kI64))));
  Tensor rounds = of_values(ctx, DType::kF64, {0.1, 0.2, 0.3});
  EXPECT_FALSE(sum_depends_on_order(must(to_meta(rounds))));
  rounds->storage->resize(0);
  EXPECT_FALSE(sum_depends_on_order(rounds));
}

// fill_ and zero_ write every element of a view that repeats offsets:
// bounded like sum (found by cow_fuzzer as a 2.6e10-write timeout), after
// S8, with nothing written and no version bump when refused.
TEST_F(OpsTest, FillAndZeroOfHugeExpandedViewAreResourceLimit) {
  Tensor base = must(arange(ctx, Ints{1}, DType::kF32));
  Tensor big = must(expand(base, Ints{3, 4, int64_t{1} << 31}));
  Status f = fill_(ctx, big, Scalar::floating(2));
  ASSERT_EQ(kind(f), ErrorKind::kResourceLimit);
  EXPECT_NE(f.error().message.find("fill_: would read 25769803776 elements"), std::string::npos)
      << f.error().message;
  EXPECT_EQ(kind(fill_(ctx, big, Scalar::integer(0), "zero_")), ErrorKind::kResourceLimit);
  EXPECT_EQ(*base->version, 0);
  // At the limit it runs and writes the one element.
  Tensor edge = must(expand(base, Ints{1 << 10, 1 << 10}));
  ASSERT_TRUE(fill_(ctx, edge, Scalar::floating(3)).ok());
  EXPECT_EQ(load_as_double(base->storage->read_data(), DType::kF32), 3.0);
  EXPECT_EQ(*base->version, 1);
  ctx.max_step_reads = (1 << 20) - 1;
  EXPECT_EQ(kind(fill_(ctx, edge, Scalar::floating(4))), ErrorKind::kResourceLimit);
  // A meta input writes nothing: exempt (F9).
  Tensor meta = must(expand(must(to_meta(base)), Ints{3, 4, int64_t{1} << 31}));
  EXPECT_EQ(kind(fill_(ctx, meta, Scalar::floating(2))), ErrorKind::kNone);
}

// === Views: S2, S3 ================================================================

TEST_F(OpsTest, ViewsShareStorageAndVersionCounterAndInplaceWritesBumpItS2) {
  Tensor t = arange34();
  Tensor v = must(transpose(t, 0, 1));
  EXPECT_EQ(v->storage, t->storage);
  EXPECT_EQ(v->version, t->version);
  ASSERT_TRUE(add_(v, Scalar::integer(1)).ok());
  EXPECT_EQ(*t->version, 1);
  EXPECT_EQ(*v->version, 1);
  ASSERT_TRUE(fill_(must(select(v, 0, 0)), Scalar::integer(0)).ok());
  EXPECT_EQ(*t->version, 2);
}

TEST_F(OpsTest, WriteThroughViewIsVisibleThroughBaseS3) {
  // t = arange(12.).view(3,4); v = t.t(); v.add_(1); v[0].fill_(0)
  Tensor t = arange34();
  Tensor v = must(transpose(t, 0, 1));
  ASSERT_TRUE(add_(v, Scalar::integer(1)).ok());
  ASSERT_TRUE(fill_(must(select(v, 0, 0)), Scalar::integer(0)).ok());
  EXPECT_EQ(values(t), (D{0, 2, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12}));
}

TEST_F(OpsTest, ViewOfContiguousSharesStorage) {
  Tensor t = arange34();
  Tensor v = must(view(t, Ints{12}));
  EXPECT_EQ(sizes(v), (I{12}));
  EXPECT_EQ(strides(v), (I{1}));
  EXPECT_EQ(v->storage, t->storage);
  Tensor w = must(view(t, Ints{-1, 6}));
  EXPECT_EQ(sizes(w), (I{2, 6}));
  EXPECT_EQ(strides(w), (I{6, 1}));
}

TEST_F(OpsTest, ViewOfTransposeIsViewIncompatibleS6) {
  Tensor tt = must(transpose(arange34(), 0, 1));
  EXPECT_EQ(kind(view(tt, Ints{12})), ErrorKind::kViewIncompatible);
}

TEST_F(OpsTest, ReshapeOfTransposeCopiesIntoFreshContiguousStorageS6) {
  Tensor t = arange34();
  Tensor tt = must(transpose(t, 0, 1));
  Tensor r = must(reshape(ctx, tt, Ints{12}));
  EXPECT_NE(r->storage, t->storage);
  EXPECT_NE(r->version, t->version);
  EXPECT_EQ(*r->version, 0);
  EXPECT_EQ(sizes(r), (I{12}));
  EXPECT_EQ(strides(r), (I{1}));
  EXPECT_EQ(offset(r), 0);
  EXPECT_EQ(values(r), (D{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

TEST_F(OpsTest, ReshapeOfContiguousIsAView) {
  Tensor t = arange34();
  Tensor r = must(reshape(ctx, t, Ints{2, 6}));
  EXPECT_EQ(r->storage, t->storage);
  EXPECT_EQ(strides(r), (I{6, 1}));
}

TEST_F(OpsTest, ViewWithWrongNumelIsShapeMismatchAndTwoInferredIsInvalidArgument) {
  Tensor t = arange34();
  EXPECT_EQ(kind(view(t, Ints{5})), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(view(t, Ints{-1, -1})), ErrorKind::kInvalidArgument);
}

// === as_strided: S5, S9 ==========================================================

TEST_F(OpsTest, AsStridedInBoundsGivesRequestedGeometry) {
  // torch.arange(6.).as_strided((2,2),(1,2),1) == [[1,3],[2,4]]
  Tensor t = must(arange(ctx, Ints{6}, DType::kF32));
  Tensor a = must(as_strided(t, Ints{2, 2}, Ints{1, 2}, 1));
  EXPECT_EQ(sizes(a), (I{2, 2}));
  EXPECT_EQ(strides(a), (I{1, 2}));
  EXPECT_EQ(offset(a), 1);
  EXPECT_EQ(values(a), (D{1, 3, 2, 4}));
  EXPECT_EQ(a->storage, t->storage);
}

TEST_F(OpsTest, AsStridedOutOfBoundsNamesRequiredAndActualBytesS5) {
  // torch: "setStorage: sizes [2, 2], strides [2, 1], storage offset 1, and
  // itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 16"
  Tensor t = must(zeros(ctx, Ints{4}, DType::kF32));
  Result<Tensor> r = as_strided(t, Ints{2, 2}, Ints{2, 1}, 1);
  ASSERT_EQ(kind(r), ErrorKind::kOutOfBounds);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("sizes [2, 2]"), std::string::npos) << m;
  EXPECT_NE(m.find("strides [2, 1]"), std::string::npos) << m;
  EXPECT_NE(m.find("storage offset 1"), std::string::npos) << m;
  EXPECT_NE(m.find("itemsize 4"), std::string::npos) << m;
  EXPECT_NE(m.find("requiring a storage size of 20"), std::string::npos) << m;
  EXPECT_NE(m.find("storage of size 16"), std::string::npos) << m;
}

TEST_F(OpsTest, AsStridedWithNegativeStrideIsInvalidArgument) {
  Tensor t = must(zeros(ctx, Ints{4}, DType::kF32));
  EXPECT_EQ(kind(as_strided(t, Ints{2}, Ints{-1}, 1)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, AsStridedWithOffsetTwoPow62OnF32IsStorageSizeOverflowS9) {
  // Harness policy: LibTorch 1.13 wraps offset * itemsize and returns an
  // out-of-bounds view of sizes [1]; the reference refuses (S9).
  Tensor t = must(zeros(ctx, Ints{4}, DType::kF32));
  EXPECT_EQ(kind(as_strided(t, Ints{1}, Ints{1}, kTwo62)), ErrorKind::kStorageSizeOverflow);
}

TEST_F(OpsTest, AsStridedWithNoElementsSkipsTheBoundsCheck) {
  // torch: zeros(4).as_strided((0,), (1,), 2**62) succeeds.
  Tensor t = must(zeros(ctx, Ints{4}, DType::kF32));
  Tensor a = must(as_strided(t, Ints{0}, Ints{1}, kTwo62));
  EXPECT_EQ(sizes(a), (I{0}));
  EXPECT_EQ(offset(a), kTwo62);
}

// === select, slice, narrow ======================================================

TEST_F(OpsTest, SelectNegativeIndexDropsTheDim) {
  Tensor s = must(select(arange34(), 1, -1));
  EXPECT_EQ(sizes(s), (I{3}));
  EXPECT_EQ(strides(s), (I{4}));
  EXPECT_EQ(offset(s), 3);
  EXPECT_EQ(values(s), (D{3, 7, 11}));
}

TEST_F(OpsTest, SelectErrorsAreIndexOutOfRangeAndDimOutOfRange) {
  Tensor t = arange34();
  EXPECT_EQ(kind(select(t, 1, 4)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(select(t, 1, -5)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(select(t, 2, 0)), ErrorKind::kDimOutOfRange);
}

TEST_F(OpsTest, SliceWithStepScalesStrideAndShiftsOffset) {
  // torch.ops.aten.slice(t, 1, 1, 4, 2)
  Tensor s = must(slice(arange34(), 1, 1, 4, 2));
  EXPECT_EQ(sizes(s), (I{3, 2}));
  EXPECT_EQ(strides(s), (I{4, 2}));
  EXPECT_EQ(offset(s), 1);
  EXPECT_EQ(values(s), (D{1, 3, 5, 7, 9, 11}));
}

TEST_F(OpsTest, SliceClampsStartAndEnd) {
  Tensor s = must(slice(arange34(), 0, -10, 100, 1));
  EXPECT_EQ(sizes(s), (I{3, 4}));
  EXPECT_EQ(offset(s), 0);
}

TEST_F(OpsTest, SliceWithStepZeroIsInvalidArgument) {
  EXPECT_EQ(kind(slice(arange34(), 1, 1, 4, 0)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, NarrowKeepsStridesAndShiftsOffset) {
  Tensor n = must(narrow(arange34(), 1, 1, 2));
  EXPECT_EQ(sizes(n), (I{3, 2}));
  EXPECT_EQ(strides(n), (I{4, 1}));
  EXPECT_EQ(offset(n), 1);
  EXPECT_EQ(values(n), (D{1, 2, 5, 6, 9, 10}));
  Tensor last = must(narrow(arange34(), 1, -1, 1));
  EXPECT_EQ(offset(last), 3);
  EXPECT_EQ(values(last), (D{3, 7, 11}));
}

TEST_F(OpsTest, NarrowPastTheEndIsShapeMismatch) {
  // torch: "start (3) + length (2) exceeds dimension size (4)."
  EXPECT_EQ(kind(narrow(arange34(), 1, 3, 2)), ErrorKind::kShapeMismatch);
}

// === transpose, t, permute, movedim ================================================

TEST_F(OpsTest, TransposeSwapsSizesAndStrides) {
  Tensor t = must(transpose(arange34(), 0, 1));
  EXPECT_EQ(sizes(t), (I{4, 3}));
  EXPECT_EQ(strides(t), (I{1, 4}));
  EXPECT_EQ(values(t), (D{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  EXPECT_EQ(kind(transpose(arange34(), 0, 2)), ErrorKind::kDimOutOfRange);
}

TEST_F(OpsTest, TOfRankThreeIsInvalidArgument) {
  Tensor x = must(zeros(ctx, Ints{2, 2, 2}, DType::kF32));
  EXPECT_EQ(kind(t(x)), ErrorKind::kInvalidArgument);
  EXPECT_EQ(strides(must(t(arange34()))), (I{1, 4}));
}

TEST_F(OpsTest, PermuteReordersDims) {
  Tensor x = must(arange(ctx, Ints{2, 3, 4}, DType::kF32));
  Tensor p = must(permute(x, Ints{2, 0, 1}));
  EXPECT_EQ(sizes(p), (I{4, 2, 3}));
  EXPECT_EQ(strides(p), (I{1, 12, 4}));
  EXPECT_EQ(kind(permute(x, Ints{0, 0, 1})), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(permute(x, Ints{0, 1})), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, MovedimMovesOneDim) {
  Tensor x = must(arange(ctx, Ints{2, 3, 4}, DType::kF32));
  Tensor m = must(movedim(x, 0, 2));
  EXPECT_EQ(sizes(m), (I{3, 4, 2}));
  EXPECT_EQ(strides(m), (I{4, 1, 12}));
}

// === expand (S7), unsqueeze, squeeze ===================================================

TEST_F(OpsTest, ExpandGivesStrideZeroOnBroadcastDimsS7) {
  Tensor c = must(view(must(arange(ctx, Ints{3}, DType::kF32)), Ints{3, 1}));
  Tensor e = must(expand(c, Ints{2, 3, 4}));
  EXPECT_EQ(sizes(e), (I{2, 3, 4}));
  EXPECT_EQ(strides(e), (I{0, 1, 0}));
  Tensor k = must(expand(c, Ints{-1, 4}));
  EXPECT_EQ(sizes(k), (I{3, 4}));
  EXPECT_EQ(strides(k), (I{1, 0}));
  EXPECT_EQ(values(k), (D{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
}

TEST_F(OpsTest, ExpandOfScalarGivesAllZeroStrides) {
  Tensor s = must(full(ctx, Ints{}, Scalar::floating(5), DType::kF32));
  Tensor e = must(expand(s, Ints{2, 2}));
  EXPECT_EQ(strides(e), (I{0, 0}));
  EXPECT_EQ(values(e), (D{5, 5, 5, 5}));
}

TEST_F(OpsTest, ExpandToMismatchedOrFewerSizesIsShapeMismatch) {
  // torch: "The expanded size of the tensor (4) must match the existing size (3) ..."
  // and "expand(...): the number of sizes provided (1) must be greater or equal ..."
  Tensor a = must(arange(ctx, Ints{3}, DType::kF32));
  EXPECT_EQ(kind(expand(a, Ints{4})), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(expand(arange34(), Ints{4})), ErrorKind::kShapeMismatch);
}

TEST_F(OpsTest, ExpandWithSizeBelowMinusOneIsInvalidArgument) {
  // Policy where LibTorch 1.13 would take the size (a size-1 or new leading
  // dim, a 0-dim input): "numel: integer multiplication overflow" or a
  // negative-size tensor; and ATen's own "The expanded size of the tensor
  // (-1) isn't allowed in a leading, non-existing dimension 0". storcheck
  // classifies both as invalid arguments.
  Tensor a = must(arange(ctx, Ints{3}, DType::kF32));
  EXPECT_EQ(kind(expand(a, Ints{-2, 3})), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(expand(a, Ints{-1, 3})), ErrorKind::kInvalidArgument);  // new leading dim
  Tensor s = must(full(ctx, Ints{}, Scalar::floating(5), DType::kF32));
  EXPECT_EQ(kind(expand(s, Ints{2, -1})), ErrorKind::kInvalidArgument);  // 0-dim: every dim is new
  // An existing dim of size > 1: ATen's mismatch, no policy.
  EXPECT_EQ(kind(expand(a, Ints{-2})), ErrorKind::kShapeMismatch);
}

TEST_F(OpsTest, ExpandChecksTheSizeCountThenDimsFromTheLast) {
  // ATen's order: [-1,3,5] on [4,3] fails at dim 2 (5 vs 3) before it
  // reaches dim 0's -1 (found by pytorch.eager_matches_libtorch, seed
  // 1933), and fewer sizes than dims fail before any dim is looked at.
  Tensor a = must(arange(ctx, Ints{4, 3}, DType::kF32));
  Result<Tensor> r = expand(a, Ints{-1, 3, 5});
  EXPECT_EQ(kind(r), ErrorKind::kShapeMismatch);
  EXPECT_NE(r.error().message.find("at non-singleton dimension 2"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(kind(expand(a, Ints{-2, 4, 4})), ErrorKind::kShapeMismatch);    // dim 2: 4 vs 3
  EXPECT_EQ(kind(expand(a, Ints{-2, 4, 3})), ErrorKind::kInvalidArgument);  // dims 2, 1 pass
  Result<Tensor> few = expand(a, Ints{-2});  // the size count comes first
  EXPECT_EQ(kind(few), ErrorKind::kShapeMismatch);
  EXPECT_NE(few.error().message.find("the number of sizes provided"), std::string::npos)
      << few.error().message;
}

TEST_F(OpsTest, UnsqueezeInsertsSizeOneDim) {
  Tensor u = must(unsqueeze(arange34(), 1));
  EXPECT_EQ(sizes(u), (I{3, 1, 4}));
  EXPECT_EQ(strides(u), (I{4, 4, 1}));
  Tensor last = must(unsqueeze(arange34(), -1));
  EXPECT_EQ(sizes(last), (I{3, 4, 1}));
  EXPECT_EQ(strides(last), (I{4, 1, 1}));
  EXPECT_EQ(kind(unsqueeze(arange34(), 3)), ErrorKind::kDimOutOfRange);
}

TEST_F(OpsTest, UnsqueezePastGeometryMaxDimsIsResourceLimit) {
  // Harness policy: LibTorch would give rank 17; storcheck caps rank at 16.
  std::vector<int64_t> ones16(kGeometryMaxDims, 1);
  Tensor x = must(zeros(ctx, IntSpan(ones16.data(), kGeometryMaxDims), DType::kF32));
  EXPECT_EQ(kind(unsqueeze(x, 0)), ErrorKind::kResourceLimit);
  EXPECT_EQ(kind(unsqueeze_(x, 0)), ErrorKind::kResourceLimit);
  EXPECT_EQ(x->rank(), kGeometryMaxDims);
}

TEST_F(OpsTest, SqueezeRemovesOnlyASizeOneDim) {
  Tensor x = must(zeros(ctx, Ints{3, 1, 4}, DType::kF32));
  Tensor s = must(squeeze(x, 1));
  EXPECT_EQ(sizes(s), (I{3, 4}));
  EXPECT_EQ(strides(s), (I{4, 1}));
  Tensor same = must(squeeze(x, 0));
  EXPECT_EQ(sizes(same), (I{3, 1, 4}));
  EXPECT_EQ(strides(same), (I{4, 4, 1}));
}

// === flatten, unflatten ==============================================================

TEST_F(OpsTest, FlattenWithStartEqualEndReturnsTheSameObject) {
  Tensor t = arange34();
  EXPECT_EQ(must(flatten(ctx, t, 1, 1)), t);
  EXPECT_EQ(must(flatten(ctx, t, 0, 0)), t);
}

TEST_F(OpsTest, FlattenOfContiguousIsAView) {
  Tensor t = arange34();
  Tensor f = must(flatten(ctx, t, 0, 1));
  EXPECT_NE(f, t);
  EXPECT_EQ(f->storage, t->storage);
  EXPECT_EQ(sizes(f), (I{12}));
}

TEST_F(OpsTest, FlattenOfTransposeCopies) {
  Tensor x = must(arange(ctx, Ints{2, 3}, DType::kF32));
  Tensor f = must(flatten(ctx, must(transpose(x, 0, 1)), 0, 1));
  EXPECT_NE(f->storage, x->storage);
  EXPECT_EQ(strides(f), (I{1}));
  EXPECT_EQ(values(f), (D{0, 3, 1, 4, 2, 5}));
}

TEST_F(OpsTest, FlattenOfScalarGivesSizeOne) {
  Tensor s = must(full(ctx, Ints{}, Scalar::floating(3), DType::kF32));
  Tensor f = must(flatten(ctx, s, 0, 0));
  EXPECT_EQ(sizes(f), (I{1}));
  EXPECT_EQ(values(f), (D{3}));
}

TEST_F(OpsTest, UnflattenSplitsOneDim) {
  Tensor u = must(unflatten(arange34(), 1, Ints{2, 2}));
  EXPECT_EQ(sizes(u), (I{3, 2, 2}));
  EXPECT_EQ(strides(u), (I{4, 2, 1}));
  Tensor inferred = must(unflatten(arange34(), 1, Ints{-1, 2}));
  EXPECT_EQ(sizes(inferred), (I{3, 2, 2}));
  EXPECT_EQ(kind(unflatten(arange34(), 1, Ints{3, 2})), ErrorKind::kShapeMismatch);
}

// === diagonal, unfold =================================================================

TEST_F(OpsTest, DiagonalWithPositiveAndNegativeOffset) {
  Tensor d = must(diagonal(arange34(), 1, 0, 1));
  EXPECT_EQ(sizes(d), (I{3}));
  EXPECT_EQ(strides(d), (I{5}));
  EXPECT_EQ(offset(d), 1);
  EXPECT_EQ(values(d), (D{1, 6, 11}));
  Tensor n = must(diagonal(arange34(), -1, 0, 1));
  EXPECT_EQ(sizes(n), (I{2}));
  EXPECT_EQ(offset(n), 4);
  EXPECT_EQ(values(n), (D{4, 9}));
  EXPECT_EQ(kind(diagonal(arange34(), 0, 1, 1)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, UnfoldAddsAWindowDim) {
  Tensor a = must(arange(ctx, Ints{8}, DType::kF32));
  Tensor u = must(unfold(a, 0, 3, 2));
  EXPECT_EQ(sizes(u), (I{3, 3}));
  EXPECT_EQ(strides(u), (I{2, 1}));
  EXPECT_EQ(values(u), (D{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  Tensor u2 = must(unfold(arange34(), 1, 2, 1));
  EXPECT_EQ(sizes(u2), (I{3, 3, 2}));
  EXPECT_EQ(strides(u2), (I{4, 1, 1}));
  EXPECT_EQ(kind(unfold(a, 0, 9, 1)), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(unfold(a, 0, 3, 0)), ErrorKind::kInvalidArgument);
}

// === split, chunk, unbind ===============================================================

TEST_F(OpsTest, SplitResultsAndLastShortPiece) {
  Tensor a = must(arange(ctx, Ints{10}, DType::kF32));
  Tensor s1 = must(split(a, 3, 0, 1));
  EXPECT_EQ(sizes(s1), (I{3}));
  EXPECT_EQ(offset(s1), 3);
  EXPECT_EQ(values(s1), (D{3, 4, 5}));
  Tensor s3 = must(split(a, 3, 0, 3));
  EXPECT_EQ(sizes(s3), (I{1}));
  EXPECT_EQ(offset(s3), 9);
  EXPECT_EQ(s3->storage, a->storage);
}

TEST_F(OpsTest, SplitIndexPastResultsIsIndexOutOfRange) {
  Tensor a = must(arange(ctx, Ints{10}, DType::kF32));
  EXPECT_EQ(kind(split(a, 3, 0, 4)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(split(a, 3, 0, -1)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(split(a, -1, 0, 0)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, ChunkResultsFollowCeilSplitSize) {
  Tensor a = must(arange(ctx, Ints{10}, DType::kF32));
  // a.chunk(4): sizes 3,3,3,1
  Tensor c3 = must(chunk(a, 4, 0, 3));
  EXPECT_EQ(sizes(c3), (I{1}));
  EXPECT_EQ(offset(c3), 9);
  // a.chunk(6) gives only 5 chunks of 2
  Tensor c4 = must(chunk(a, 6, 0, 4));
  EXPECT_EQ(sizes(c4), (I{2}));
  EXPECT_EQ(offset(c4), 8);
  EXPECT_EQ(kind(chunk(a, 6, 0, 5)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(chunk(a, 0, 0, 0)), ErrorKind::kInvalidArgument);
}

TEST_F(OpsTest, ChunkWithMoreThanMaxSplitResultsIsResourceLimit) {
  Tensor a = must(arange(ctx, Ints{10}, DType::kF32));
  EXPECT_EQ(kind(chunk(a, kMaxSplitResults + 1, 0, 0)), ErrorKind::kResourceLimit);
}

TEST_F(OpsTest, SplitArithmeticOverflowIsUndefinedBehaviorS8) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // chunk: dim + chunks - 1 overflows, or the inner split's dim + split_size - 1.
  EXPECT_TRUE(split_arithmetic_overflows(kMax, 2, true));
  EXPECT_TRUE(split_arithmetic_overflows(kTwo62 + 1, 1, true));
  EXPECT_FALSE(split_arithmetic_overflows(kTwo62, 1, true));  // 2^62 + 2^62 - 1 fits
  EXPECT_FALSE(split_arithmetic_overflows(kTwo62, 2, true));
  EXPECT_FALSE(split_arithmetic_overflows(0, kMaxSplitResults, true));
  EXPECT_TRUE(split_arithmetic_overflows(kTwo62 + 1, kTwo62, false));
  EXPECT_FALSE(split_arithmetic_overflows(kTwo62, kTwo62, false));
  EXPECT_FALSE(split_arithmetic_overflows(kMax, 1, false));

  Tensor one = must(zeros(ctx, Ints{1}, DType::kF32));
  Tensor huge = must(expand(one, Ints{kMax}));
  EXPECT_EQ(kind(chunk(huge, 2, 0, 0)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(chunk(huge, 1, 0, 0)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(chunk(huge, 2, 3, 0)), ErrorKind::kDimOutOfRange);  // LibTorch's check first
  Tensor edge = must(expand(one, Ints{kTwo62}));
  EXPECT_EQ(kind(split(edge, kTwo62 + 1, 0, 0)), ErrorKind::kUndefinedBehavior);
  Tensor c = must(chunk(edge, 2, 0, 1));
  EXPECT_EQ(sizes(c), (I{kTwo62 / 2}));
}

TEST_F(OpsTest, SliceArithmeticOverflowIsUndefinedBehaviorS8) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // After the clamps: (end - start + step - 1), stride * step, start * stride + offset.
  EXPECT_TRUE(slice_arithmetic_overflows(2, 1, 0, -3, 16, kMax));
  EXPECT_FALSE(slice_arithmetic_overflows(2, 1, 0, 0, 2, kMax - 1));
  EXPECT_FALSE(slice_arithmetic_overflows(2, 1, 0, 0, 1, kMax));  // len 1: 1 + kMax - 1
  EXPECT_TRUE(slice_arithmetic_overflows(3, 2, 0, 0, 3, kTwo62));
  EXPECT_TRUE(slice_arithmetic_overflows(3, kTwo62, 0, 2, 3, 1));
  EXPECT_FALSE(slice_arithmetic_overflows(3, kTwo62, 0, 1, 3, 1));
  EXPECT_TRUE(slice_arithmetic_overflows(3, kTwo62, kTwo62, 1, 3, 1));  // the offset sum
  EXPECT_TRUE(slice_arithmetic_overflows(3, kTwo62, 0, 9, 3, 1));  // start clamps to 3: 3 * 2^62
  EXPECT_FALSE(slice_arithmetic_overflows(3, kTwo62, 0, -9, 1, 1));  // start clamps to 0
  Tensor a = must(arange(ctx, Ints{3}, DType::kF32));
  EXPECT_EQ(kind(slice(a, 0, 0, 3, kMax)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(slice(a, 0, 0, 3, 0)), ErrorKind::kInvalidArgument);  // LibTorch's check first
  Tensor wide = must(as_strided(a, Ints{3, 0}, Ints{kTwo62, 1}, 0));
  EXPECT_EQ(kind(narrow(wide, 0, 2, 1)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(split(wide, 1, 0, 0)), ErrorKind::kUndefinedBehavior);  // its third piece
  EXPECT_EQ(sizes(must(narrow(wide, 0, 1, 1))), (I{1, 0}));
}

TEST_F(OpsTest, AddOutputStridesOfZeroElementsAreComputedInBytes) {
  // compatible_stride multiplies itemsize by the sizes (wrapping), divides by
  // the itemsize, and set_sizes_and_strides replaces a negative stride.
  Tensor f32 = must(empty_strided(ctx, Ints{int64_t{1} << 61, 2, 0}, Ints{1, 4, 4}, DType::kF32));
  EXPECT_EQ(strides(must(add(ctx, f32, Scalar::integer(1)))), (I{1, 0, 1}));
  Tensor f64 = must(empty_strided(ctx, Ints{kTwo62 + 3, 2, 0}, Ints{1, 4, 4}, DType::kF64));
  EXPECT_EQ(strides(must(add(ctx, f64, Scalar::integer(1)))), (I{1, 0, 3}));
  Tensor small = must(empty_strided(ctx, Ints{5, 2, 0}, Ints{1, 4, 4}, DType::kF32));
  EXPECT_EQ(strides(must(add(ctx, small, Scalar::integer(1)))), (I{1, 0, 5}));
}

TEST_F(OpsTest, UnbindSelectsAlongDim) {
  Tensor u = must(unbind(arange34(), 1, 2));
  EXPECT_EQ(sizes(u), (I{3}));
  EXPECT_EQ(strides(u), (I{4}));
  EXPECT_EQ(offset(u), 2);
  EXPECT_EQ(values(u), (D{2, 6, 10}));
  EXPECT_EQ(kind(unbind(arange34(), 1, 4)), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind(unbind(arange34(), 2, 0)), ErrorKind::kDimOutOfRange);
}

TEST_F(OpsTest, AliasAndDetachAreNewObjectsOverTheSameStorageAndCounter) {
  Tensor t = must(transpose(arange34(), 0, 1));
  for (Tensor a : {must(alias(t)), must(detach(t))}) {
    EXPECT_NE(a, t);
    EXPECT_EQ(a->storage, t->storage);
    EXPECT_EQ(a->version, t->version);
    EXPECT_EQ(sizes(a), (I{4, 3}));
    EXPECT_EQ(strides(a), (I{1, 4}));
  }
}

// === In-place writes: S7, dtype and range checks ======================================

TEST_F(OpsTest, AddInplaceOnExpandIsInternalOverlapS7) {
  Tensor e = must(expand(must(zeros(ctx, Ints{3}, DType::kF32)), Ints{2, 3}));
  EXPECT_EQ(kind(add_(e, Scalar::integer(1))), ErrorKind::kInternalOverlap);
  EXPECT_EQ(kind(mul_(e, Scalar::integer(2))), ErrorKind::kInternalOverlap);
  EXPECT_EQ(*e->version, 0);
}

TEST_F(OpsTest, FillAndZeroOnExpandSucceedS7) {
  Tensor e = must(expand(must(zeros(ctx, Ints{3}, DType::kF32)), Ints{2, 3}));
  ASSERT_EQ(kind(fill_(e, Scalar::integer(2))), ErrorKind::kNone);
  EXPECT_EQ(values(e), (D{2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(*e->version, 1);
  ASSERT_EQ(kind(zero_(e)), ErrorKind::kNone);
  EXPECT_EQ(values(e), (D{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*e->version, 2);
}

TEST_F(OpsTest, AddInplaceOnUndetectedOverlapIsNotRun) {
  // Harness policy: LibTorch 1.13 runs arange(4.).as_strided((2,2),(1,1)).add_(1)
  // (TOO_HARD overlap) with an order-dependent result; the reference refuses.
  Tensor a = must(arange(ctx, Ints{4}, DType::kF32));
  Tensor o = must(as_strided(a, Ints{2, 2}, Ints{1, 1}, 0));
  EXPECT_EQ(kind(add_(o, Scalar::integer(1))), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(values(a), (D{0, 1, 2, 3}));
}

TEST_F(OpsTest, AddInplaceFloatOnI32IsDtypeCast) {
  Tensor i = must(zeros(ctx, Ints{2}, DType::kI32));
  EXPECT_EQ(kind(add_(i, Scalar::floating(1.5))), ErrorKind::kDtypeCast);
  EXPECT_EQ(values(i), (D{0, 0}));
  EXPECT_EQ(*i->version, 0);
  // add_(True) on int32 is fine: [1, 1]
  ASSERT_EQ(kind(add_(i, Scalar::boolean(true))), ErrorKind::kNone);
  EXPECT_EQ(values(i), (D{1, 1}));
}

TEST_F(OpsTest, AddInplaceIntOnBoolIsDtypeCast) {
  Tensor b = must(zeros(ctx, Ints{2}, DType::kBool));
  EXPECT_EQ(kind(add_(b, Scalar::integer(1))), ErrorKind::kDtypeCast);
}

TEST_F(OpsTest, AddInplaceOnU8WrapsAround) {
  Tensor u = must(arange(ctx, Ints{4}, DType::kU8));
  ASSERT_EQ(kind(add_(u, Scalar::integer(254))), ErrorKind::kNone);
  EXPECT_EQ(values(u), (D{254, 255, 0, 1}));
}

TEST_F(OpsTest, MulInplaceAndZeroInplaceBumpVersion) {
  Tensor m = must(arange(ctx, Ints{4}, DType::kI32));
  ASSERT_EQ(kind(mul_(m, Scalar::integer(3))), ErrorKind::kNone);
  EXPECT_EQ(values(m), (D{0, 3, 6, 9}));
  EXPECT_EQ(*m->version, 1);
  ASSERT_EQ(kind(zero_(m)), ErrorKind::kNone);
  EXPECT_EQ(values(m), (D{0, 0, 0, 0}));
  EXPECT_EQ(*m->version, 2);
}

TEST_F(OpsTest, FillInplace300OnU8IsScalarOverflow) {
  Tensor u = must(zeros(ctx, Ints{2}, DType::kU8));
  EXPECT_EQ(kind(fill_(u, Scalar::integer(300))), ErrorKind::kScalarOverflow);
  EXPECT_EQ(*u->version, 0);
  // -255 is accepted and wraps to 1 (c10::overflows for unsigned targets).
  ASSERT_EQ(kind(fill_(u, Scalar::integer(-255))), ErrorKind::kNone);
  EXPECT_EQ(values(u), (D{1, 1}));
}

TEST_F(OpsTest, CopyInplacePartialOverlapIsPartialOverlap) {
  // a[0:4].copy_(a[2:6])
  Tensor a = must(arange(ctx, Ints{6}, DType::kF32));
  Tensor dst = must(slice(a, 0, 0, 4, 1));
  Tensor src = must(slice(a, 0, 2, 6, 1));
  EXPECT_EQ(kind(copy_(dst, src)), ErrorKind::kPartialOverlap);
  EXPECT_EQ(values(a), (D{0, 1, 2, 3, 4, 5}));
}

TEST_F(OpsTest, CopyInplaceIntoExpandIsInternalOverlap) {
  Tensor a = must(arange(ctx, Ints{6}, DType::kF32));
  Tensor dst = must(expand(must(slice(a, 0, 0, 1, 1)), Ints{3}));
  EXPECT_EQ(kind(copy_(dst, must(ones(ctx, Ints{3}, DType::kF32)))), ErrorKind::kInternalOverlap);
}

TEST_F(OpsTest, CopyInplaceShapeErrorsAreShapeMismatch) {
  Tensor z3 = must(zeros(ctx, Ints{3}, DType::kF32));
  EXPECT_EQ(kind(copy_(z3, must(ones(ctx, Ints{4}, DType::kF32)))), ErrorKind::kShapeMismatch);
  // The source may broadcast, the destination may not.
  EXPECT_EQ(kind(copy_(z3, must(ones(ctx, Ints{2, 3}, DType::kF32)))), ErrorKind::kShapeMismatch);
}

TEST_F(OpsTest, CopyInplaceBroadcastsSourceAndBumpsVersion) {
  Tensor d = must(zeros(ctx, Ints{2, 3}, DType::kF32));
  ASSERT_EQ(kind(copy_(d, must(arange(ctx, Ints{3}, DType::kF32)))), ErrorKind::kNone);
  EXPECT_EQ(values(d), (D{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(*d->version, 1);
}

TEST_F(OpsTest, CopyInplaceConvertsF32ToU8LikeCvttss2si) {
  // torch.zeros(1, dtype=uint8).copy_(torch.full((1,), -2.7)) == [254]
  Tensor d = must(zeros(ctx, Ints{1}, DType::kU8));
  ASSERT_EQ(kind(copy_(d, must(full(ctx, Ints{1}, Scalar::floating(-2.7), DType::kF32)))),
            ErrorKind::kNone);
  EXPECT_EQ(values(d), (D{254}));
}

TEST_F(OpsTest, CopyInplaceOntoItselfBumpsVersion) {
  Tensor t = arange34();
  ASSERT_EQ(kind(copy_(t, t)), ErrorKind::kNone);
  EXPECT_EQ(*t->version, 1);
  EXPECT_EQ(values(t), (D{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

// === In-place metadata ops ===============================================================

TEST_F(OpsTest, InplaceViewOpsMutateMetadataAndBumpVersion) {
  // The sequence below, run on torch.arange(6.).view(2,3), gives exactly these.
  Tensor t = must(arange(ctx, Ints{2, 3}, DType::kF32));
  ASSERT_EQ(kind(transpose_(t, 0, 1)), ErrorKind::kNone);
  EXPECT_EQ(sizes(t), (I{3, 2}));
  EXPECT_EQ(strides(t), (I{1, 3}));
  EXPECT_EQ(*t->version, 1);
  ASSERT_EQ(kind(unsqueeze_(t, 0)), ErrorKind::kNone);
  EXPECT_EQ(sizes(t), (I{1, 3, 2}));
  EXPECT_EQ(strides(t), (I{3, 1, 3}));
  EXPECT_EQ(*t->version, 2);
  ASSERT_EQ(kind(squeeze_(t, 0)), ErrorKind::kNone);
  EXPECT_EQ(sizes(t), (I{3, 2}));
  EXPECT_EQ(*t->version, 3);
  ASSERT_EQ(kind(t_(t)), ErrorKind::kNone);
  EXPECT_EQ(sizes(t), (I{2, 3}));
  EXPECT_EQ(strides(t), (I{3, 1}));
  EXPECT_EQ(*t->version, 4);
  ASSERT_EQ(kind(as_strided_(t, Ints{2}, Ints{2}, 1)), ErrorKind::kNone);
  EXPECT_EQ(sizes(t), (I{2}));
  EXPECT_EQ(strides(t), (I{2}));
  EXPECT_EQ(offset(t), 1);
  EXPECT_EQ(*t->version, 5);
  ASSERT_EQ(kind(transpose_(t, 0, 0)), ErrorKind::kNone);  // same dims still bump
  EXPECT_EQ(*t->version, 6);
}

TEST_F(OpsTest, TransposeInplaceIsSeenThroughEveryHandleOfTheObject) {
  Tensor t = arange34();
  Tensor same = must(contiguous(ctx, t));  // the same object
  ASSERT_EQ(kind(transpose_(t, 0, 1)), ErrorKind::kNone);
  EXPECT_EQ(sizes(same), (I{4, 3}));
}

TEST_F(OpsTest, FailedAsStridedInplaceLeavesMetadataUnchangedS10) {
  // torch: as_strided_((2,2),(2,1),4) on a 24-byte storage raises setStorage
  // out of bounds; shape, stride, offset and version stay as they were.
  Tensor t = must(arange(ctx, Ints{6}, DType::kF32));
  ASSERT_EQ(kind(as_strided_(t, Ints{2}, Ints{2}, 1)), ErrorKind::kNone);
  EXPECT_EQ(kind(as_strided_(t, Ints{2, 2}, Ints{2, 1}, 4)), ErrorKind::kOutOfBounds);
  EXPECT_EQ(sizes(t), (I{2}));
  EXPECT_EQ(strides(t), (I{2}));
  EXPECT_EQ(offset(t), 1);
  EXPECT_EQ(*t->version, 1);
}

TEST_F(OpsTest, UnsqueezeInplaceBumpsVersion) {
  Tensor u = must(zeros(ctx, Ints{3}, DType::kF32));
  ASSERT_EQ(kind(unsqueeze_(u, 1)), ErrorKind::kNone);
  EXPECT_EQ(sizes(u), (I{3, 1}));
  EXPECT_EQ(strides(u), (I{1, 1}));
  EXPECT_EQ(*u->version, 1);
}

TEST_F(OpsTest, ResizeGrowingZeroFillsAndKeepsOldBytesR6) {
  Tensor r = must(arange(ctx, Ints{4}, DType::kI32));
  Tensor alias_of_r = must(alias(r));
  ASSERT_EQ(kind(resize_(ctx, r, Ints{6})), ErrorKind::kNone);
  EXPECT_EQ(sizes(r), (I{6}));
  EXPECT_EQ(strides(r), (I{1}));
  EXPECT_EQ(r->storage->nbytes(), 24);
  EXPECT_EQ(values(r), (D{0, 1, 2, 3, 0, 0}));
  EXPECT_EQ(*r->version, 0);                   // torch: resize_ does not bump _version
  EXPECT_EQ(alias_of_r->storage, r->storage);  // same storage object, grown in place
}

// Note [set_]: each expectation checked in PyTorch 1.13 (x.set_(y) under no_grad).
TEST_F(OpsTest, SetTakesTheSourcesStorageAndGeometryAndBumpsOnlySelf) {
  Tensor base = must(arange(ctx, Ints{3, 4}, DType::kF32));
  Tensor src = must(transpose(base, 0, 1));
  Tensor x = must(ones(ctx, Ints{2}, DType::kF32));
  Tensor old_view = must(narrow(x, 0, 0, 1));
  ASSERT_EQ(kind(set_(ctx, x, src)), ErrorKind::kNone);
  EXPECT_EQ(x->storage, base->storage);
  EXPECT_EQ(sizes(x), (I{4, 3}));
  EXPECT_EQ(strides(x), (I{1, 4}));
  EXPECT_EQ(*x->version, 1);
  EXPECT_EQ(*old_view->version, 1);  // x's counter, which its views share
  EXPECT_EQ(*src->version, 0);
  EXPECT_NE(old_view->storage, x->storage);            // the view stays on the old storage
  ASSERT_EQ(kind(set_(ctx, x, x)), ErrorKind::kNone);  // itself: only the version
  EXPECT_EQ(*x->version, 2);
}

TEST_F(OpsTest, SetGrowsAnEmptiedStorageOnlyForAnotherGeometryR6) {
  Tensor e = must(ones(ctx, Ints{5}, DType::kF32));
  ASSERT_EQ(kind(shrink(e)), ErrorKind::kNone);
  Tensor same = must(zeros(ctx, Ints{5}, DType::kF32));
  ASSERT_EQ(kind(set_(ctx, same, e)), ErrorKind::kNone);
  EXPECT_EQ(e->storage->nbytes(), 0);  // sizes and strides as before: no resize
  Tensor other = must(zeros(ctx, Ints{2}, DType::kF32));
  ASSERT_EQ(kind(set_(ctx, other, e)), ErrorKind::kNone);
  EXPECT_EQ(e->storage->nbytes(), 20);       // every alias sees it restored
  EXPECT_EQ(values(e), (D{0, 0, 0, 0, 0}));  // zeros here; uninitialized in LibTorch
}

TEST_F(OpsTest, SetGrowingANonResizableStorageRaisesAfterSelfMoved) {
  Tensor e = must(ones(ctx, Ints{2, 3}, DType::kF32));
  Tensor src = must(transpose(e, 0, 1));
  ASSERT_EQ(kind(shrink(e)), ErrorKind::kNone);
  ASSERT_EQ(kind(set_nonresizable(e)), ErrorKind::kNone);
  Tensor x = must(arange(ctx, Ints{4}, DType::kF32));
  EXPECT_EQ(kind(set_(ctx, x, src)), ErrorKind::kNonResizable);
  EXPECT_EQ(x->storage, e->storage);  // torch: set_storage_cpu_ set them before resizing
  EXPECT_EQ(strides(x), (I{1, 3}));
  EXPECT_EQ(*x->version, 0);
}

TEST_F(OpsTest, SetRejectsAnotherDtypeDeviceOrFakenessUnchanged) {
  Tensor x = must(zeros(ctx, Ints{2}, DType::kI64));
  Tensor f32 = must(zeros(ctx, Ints{3}, DType::kF32));
  EXPECT_EQ(kind(set_(ctx, x, f32)), ErrorKind::kInvalidArgument);  // PyTorch asserts it
  Tensor m = must(to_meta(must(zeros(ctx, Ints{3}, DType::kI64))));
  EXPECT_EQ(kind(set_(ctx, x, m)), ErrorKind::kDeviceMismatch);
  EXPECT_EQ(kind(set_(ctx, m, x)), ErrorKind::kDeviceMismatch);
  EXPECT_EQ(sizes(x), (I{2}));
  EXPECT_EQ(*x->version, 0);
  MetaConverter fake(/*fake=*/true);
  Tensor f = must(fake.convert(must(zeros(ctx, Ints{3}, DType::kI64))));
  EXPECT_EQ(kind(set_(ctx, f, m)), ErrorKind::kDeviceMismatch);  // FakeTensorMode's rule
}

TEST_F(OpsTest, SetOnMetaOnlyGrowsTheStorageAndChecksResizable) {
  Tensor big = must(to_meta(must(arange(ctx, Ints{3, 4}, DType::kF32))));
  Tensor small = must(narrow(big, 0, 0, 1));
  Tensor x = must(to_meta(must(zeros(ctx, Ints{2}, DType::kF32))));
  ASSERT_EQ(kind(set_(ctx, x, small)), ErrorKind::kNone);
  EXPECT_EQ(big->storage->nbytes(), 48);  // LibTorch 1.13 sets 16 (meta-set-sets-nbytes-1.13)
  ASSERT_EQ(kind(set_nonresizable(big)), ErrorKind::kNone);
  Tensor y = must(to_meta(must(zeros(ctx, Ints{2}, DType::kF32))));
  EXPECT_EQ(kind(set_(ctx, y, small)), ErrorKind::kNonResizable);  // even without growing
}

TEST_F(OpsTest, SetChargesTheGrowthBeforeChangingAnything) {
  Tensor e = must(ones(ctx, Ints{8}, DType::kF32));
  ASSERT_EQ(kind(shrink(e)), ErrorKind::kNone);
  ctx.budget.max_tensor_bytes = 16;
  Tensor x = must(zeros(ctx, Ints{2}, DType::kF32));
  EXPECT_EQ(kind(set_(ctx, x, e)), ErrorKind::kResourceLimit);
  EXPECT_NE(x->storage, e->storage);
  EXPECT_EQ(sizes(x), (I{2}));
}

// add_out o x s: torch.add(x, s, out=o) (Note [out=]); each case checked in PyTorch 1.13.
TEST_F(OpsTest, AddOutResizesToTheInputsLayoutAndKeepsTheOffset) {
  Tensor x = must(transpose(must(arange(ctx, Ints{2, 3}, DType::kF32)), 0, 1));
  Tensor o = must(zeros(ctx, Ints{5}, DType::kF32));
  ASSERT_EQ(kind(add_out(ctx, o, x, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(sizes(o), (I{3, 2}));
  EXPECT_EQ(strides(o), (I{1, 3}));  // add's strides, not resize_'s contiguous [2, 1]
  EXPECT_EQ(values(o), (D{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(*o->version, 1);                          // the write only
  Tensor w = must(zeros(ctx, Ints{1}, DType::kF64));  // the kernel's element size: f32's
  ASSERT_EQ(kind(add_out(ctx, w, x, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(strides(w), (I{1, 3}));
  Tensor base = must(zeros(ctx, Ints{10}, DType::kF32));
  Tensor v = must(narrow(base, 0, 3, 2));
  ASSERT_EQ(kind(add_out(ctx, v, must(ones(ctx, Ints{2, 3}, DType::kF32)), Scalar::integer(1))),
            ErrorKind::kNone);
  EXPECT_EQ(offset(v), 3);
  EXPECT_EQ(strides(v), (I{3, 1}));
  EXPECT_EQ(base->storage->nbytes(), 40);  // 9 elements needed: no growth
  EXPECT_EQ(values(base), (D{0, 0, 0, 2, 2, 2, 2, 2, 2, 0}));
}

TEST_F(OpsTest, AddOutOfTheInputsSizesKeepsItsStridesAndCastsToItsDtype) {
  Tensor x = must(arange(ctx, Ints{2, 3}, DType::kI64));
  Tensor o = must(transpose(must(zeros(ctx, Ints{3, 2}, DType::kI32)), 0, 1));
  ASSERT_EQ(kind(add_out(ctx, o, x, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(strides(o), (I{1, 2}));
  EXPECT_EQ(values(o), (D{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(kind(add_out(ctx, o, x, Scalar::floating(1.5))), ErrorKind::kDtypeCast);
  Tensor b = must(zeros(ctx, Ints{2, 3}, DType::kBool));
  EXPECT_EQ(kind(add_out(ctx, b, x, Scalar::integer(1))), ErrorKind::kDtypeCast);
  EXPECT_EQ(values(o), (D{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(kind(add_out(ctx, x, x, Scalar::integer(2))), ErrorKind::kNone);  // into itself
  EXPECT_EQ(values(x), (D{2, 3, 4, 5, 6, 7}));
}

TEST_F(OpsTest, AddOutChecksOverlapOnTheOldGeometryBeforeResizing) {
  Tensor x = must(arange(ctx, Ints{4}, DType::kF32));
  Tensor e = must(expand(must(zeros(ctx, Ints{1}, DType::kF32)), Ints{3}));
  EXPECT_EQ(kind(add_out(ctx, e, x, Scalar::integer(1))), ErrorKind::kInternalOverlap);
  EXPECT_EQ(sizes(e), (I{3}));  // not resized
  Tensor base = must(arange(ctx, Ints{8}, DType::kF32));
  Tensor in = must(narrow(base, 0, 0, 4));
  EXPECT_EQ(kind(add_out(ctx, must(narrow(base, 0, 2, 4)), in, Scalar::integer(1))),
            ErrorKind::kPartialOverlap);
  ASSERT_EQ(kind(add_out(ctx, must(alias(in)), in, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(values(base), (D{1, 2, 3, 4, 4, 5, 6, 7}));
  // A resized out over the input's elements: LibTorch runs it, order-dependent (S8 policy).
  Tensor late = must(narrow(base, 0, 2, 4));
  EXPECT_EQ(kind(add_out(ctx, must(narrow(base, 0, 0, 1)), late, Scalar::integer(1))),
            ErrorKind::kUndefinedBehavior);
}

TEST_F(OpsTest, AddOutRestoresAnEmptiedOutOfOtherSizesOnly) {
  Tensor x = must(arange(ctx, Ints{2, 3}, DType::kF32));
  Tensor base = must(zeros(ctx, Ints{3}, DType::kF32));
  Tensor o = must(narrow(base, 0, 2, 1));
  ASSERT_EQ(kind(shrink(base)), ErrorKind::kNone);
  ASSERT_EQ(kind(add_out(ctx, o, x, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(base->storage->nbytes(), 32);  // (6 + offset 2) * 4
  EXPECT_EQ(offset(o), 2);
  EXPECT_EQ(values(o), (D{1, 2, 3, 4, 5, 6}));
  Tensor same = must(zeros(ctx, Ints{2, 3}, DType::kF32));
  ASSERT_EQ(kind(shrink(same)), ErrorKind::kNone);
  EXPECT_EQ(kind(add_out(ctx, same, x, Scalar::integer(1))), ErrorKind::kUndefinedBehavior);
  ASSERT_EQ(kind(shrink(x)), ErrorKind::kNone);
  EXPECT_EQ(kind(add_out(ctx, must(zeros(ctx, Ints{6}, DType::kF32)), x, Scalar::integer(1))),
            ErrorKind::kUndefinedBehavior);  // an emptied input, whatever out
}

TEST_F(OpsTest, AddOutIntoANonResizableStorageLeavesOutUnchangedS10) {
  Tensor o = must(from_blob(ctx, Ints{2}, DType::kF32));
  Tensor x = must(arange(ctx, Ints{4}, DType::kF32));
  EXPECT_EQ(kind(add_out(ctx, o, x, Scalar::integer(1))), ErrorKind::kNonResizable);
  EXPECT_EQ(sizes(o), (I{2}));  // LibTorch 1.13: [4] (resize-nonresizable-not-atomic-1.13)
  EXPECT_EQ(*o->version, 0);
}

TEST_F(OpsTest, AddOutChecksDevicesOperandByOperand) {
  Tensor m = must(to_meta(must(zeros(ctx, Ints{3}, DType::kI32))));
  Tensor f = must(arange(ctx, Ints{3}, DType::kF32));
  // out first: its device is the common one, then its dtype, then x's device
  EXPECT_EQ(kind(add_out(ctx, m, f, Scalar::integer(1))), ErrorKind::kDtypeCast);
  Tensor mf = must(to_meta(must(zeros(ctx, Ints{3}, DType::kF32))));
  EXPECT_EQ(kind(add_out(ctx, mf, f, Scalar::integer(1))), ErrorKind::kDeviceMismatch);
  EXPECT_EQ(kind(add_out(ctx, f, mf, Scalar::integer(1))), ErrorKind::kDeviceMismatch);
  // A 0-dim CPU input too: "Trying to pass too many CPU scalars to non-CPU kernel!"
  Tensor scalar = must(full(ctx, Ints{}, Scalar::integer(2), DType::kF32));
  EXPECT_EQ(kind(add_out(ctx, mf, scalar, Scalar::integer(1))), ErrorKind::kDeviceMismatch);
  EXPECT_EQ(sizes(mf), (I{3}));
}

TEST_F(OpsTest, AddOutRaisesOnANegativeRestrideBeforeResizingS10) {
  // PyTorch 1.13: torch.add(t5, 1, out=t0) with t5 0-element of huge sizes
  // raises "as_strided: Negative strides ..." after resizing t0
  // (out-restride-not-atomic-1.13); the reference raises before.
  Tensor o = must(ones(ctx, Ints{2, 0, 3}, DType::kF64));
  Tensor d = must(diagonal(o, 0, 0, 2));
  Tensor u = must(unflatten(d, 0, Ints{4, 4, 0, 1, INT64_MAX, 2, 2, 1}));
  Tensor x =
      must(mul(ctx, must(to(ctx, must(contiguous(ctx, u)), DType::kI32)), Scalar::integer(1)));
  ASSERT_EQ(strides(x), (I{1, 0, 4, 0, 0, 0, 0, 0, 0}));
  Status st = add_out(ctx, o, x, Scalar::integer(1));
  ASSERT_EQ(kind(st), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.error().message.find("got strides: [-8, -32, -128, -8, 8, 4, 2, 2, 1]"),
            std::string::npos)
      << st.error().message;
  EXPECT_EQ(sizes(o), (I{2, 0, 3}));  // unchanged (S10)
  EXPECT_EQ(strides(o), (I{3, 3, 1}));
  // The identity order is not restrided: resize_'s wrapped strides stay
  // (torch.add(torch.zeros(0,3,2**62,dtype=torch.int64).clone(), -1, out=o)).
  const int64_t big = int64_t{1} << 62;
  Tensor c = must(clone(ctx, must(zeros(ctx, Ints{0, 3, big}, DType::kI64))));
  Tensor o2 = must(zeros(ctx, Ints{4}, DType::kF32));
  ASSERT_EQ(kind(add_out(ctx, o2, c, Scalar::integer(-1))), ErrorKind::kNone);
  EXPECT_EQ(strides(o2), (I{-big, big, 1}));
}

// mul_out o x s: torch.mul(x, s, out=o), add_out's steps (Note [out=]); each
// case checked in PyTorch 1.13.
TEST_F(OpsTest, MulOutResizesToTheInputsLayoutAndMultiplies) {
  // torch.mul(torch.arange(6, dtype=torch.int32).view(2,3).t(), 3,
  //           out=torch.zeros(1, dtype=torch.int32))
  Tensor x = must(transpose(must(view(must(arange(ctx, Ints{6}, DType::kI32)), Ints{2, 3})), 0, 1));
  Tensor o = must(zeros(ctx, Ints{1}, DType::kI32));
  ASSERT_EQ(kind(mul_out(ctx, o, x, Scalar::integer(3))), ErrorKind::kNone);
  EXPECT_EQ(sizes(o), (I{3, 2}));
  EXPECT_EQ(strides(o), (I{1, 3}));
  EXPECT_EQ(values(o), (D{0, 9, 3, 12, 6, 15}));
  EXPECT_EQ(*o->version, 1);
  EXPECT_EQ(values(x), (D{0, 3, 1, 4, 2, 5}));  // the input is only read
}

TEST_F(OpsTest, MulOutComputesInTheResultTypeAndCastsToOut) {
  Tensor b = must(zeros(ctx, Ints{3}, DType::kBool));
  ASSERT_EQ(kind(fill_(ctx, must(narrow(b, 0, 0, 1)), Scalar::boolean(true))), ErrorKind::kNone);
  ASSERT_EQ(kind(fill_(ctx, must(narrow(b, 0, 2, 1)), Scalar::boolean(true))), ErrorKind::kNone);
  Tensor ob = must(zeros(ctx, Ints{3}, DType::kBool));
  ASSERT_EQ(kind(mul_out(ctx, ob, b, Scalar::boolean(true))), ErrorKind::kNone);
  EXPECT_EQ(values(ob), (D{1, 0, 1}));  // logical and
  // Long into Bool:
  EXPECT_EQ(kind(mul_out(ctx, ob, b, Scalar::integer(2))), ErrorKind::kDtypeCast);
  Tensor ol = must(zeros(ctx, Ints{3}, DType::kI64));
  ASSERT_EQ(kind(mul_out(ctx, ol, b, Scalar::integer(2))), ErrorKind::kNone);
  EXPECT_EQ(values(ol), (D{2, 0, 2}));
  Tensor u = must(arange(ctx, Ints{4}, DType::kU8));
  Tensor ou = must(zeros(ctx, Ints{4}, DType::kU8));
  ASSERT_EQ(kind(mul_out(ctx, ou, u, Scalar::integer(-1))), ErrorKind::kNone);
  EXPECT_EQ(values(ou), (D{0, 255, 254, 253}));  // wraps in uint8
  ASSERT_EQ(kind(mul_out(ctx, ou, u, Scalar::integer(300))), ErrorKind::kNone);
  EXPECT_EQ(values(ou), (D{0, 44, 88, 132}));
  // f32 * 1e300 into an f64 out: computed in f32 (inf), then cast.
  Tensor f = must(full(ctx, Ints{2}, Scalar::floating(1.5), DType::kF32));
  Tensor od = must(zeros(ctx, Ints{2}, DType::kF64));
  ASSERT_EQ(kind(mul_out(ctx, od, f, Scalar::floating(1e300))), ErrorKind::kNone);
  EXPECT_EQ(values(od), (D{INFINITY, INFINITY}));
}

TEST_F(OpsTest, MulOutChecksOverlapLikeAddOut) {
  Tensor base = must(arange(ctx, Ints{8}, DType::kF32));
  EXPECT_EQ(kind(mul_out(ctx, must(narrow(base, 0, 0, 4)), must(narrow(base, 0, 1, 4)),
                         Scalar::integer(2))),
            ErrorKind::kPartialOverlap);
  Tensor e = must(expand(must(zeros(ctx, Ints{1}, DType::kF32)), Ints{2}));
  EXPECT_EQ(kind(mul_out(ctx, e, must(narrow(base, 0, 0, 2)), Scalar::integer(2))),
            ErrorKind::kInternalOverlap);
  Tensor y = must(arange(ctx, Ints{4}, DType::kF32));
  ASSERT_EQ(kind(mul_out(ctx, y, y, Scalar::integer(2))), ErrorKind::kNone);  // into itself
  EXPECT_EQ(values(y), (D{0, 2, 4, 6}));
}

TEST_F(OpsTest, ResizeWithSameSizesKeepsStridesAndVersion) {
  // torch.arange(4, dtype=int32).view(2,2).t().resize_(2,2): stride (1, 2), _version 0
  Tensor v = must(transpose(must(view(must(arange(ctx, Ints{4}, DType::kI32)), Ints{2, 2})), 0, 1));
  ASSERT_EQ(kind(resize_(ctx, v, Ints{2, 2})), ErrorKind::kNone);
  EXPECT_EQ(strides(v), (I{1, 2}));
  EXPECT_EQ(*v->version, 0);
}

TEST_F(OpsTest, ResizeShrinkingKeepsStorageBytes) {
  Tensor r = must(arange(ctx, Ints{4}, DType::kI32));
  ASSERT_EQ(kind(resize_(ctx, r, Ints{2})), ErrorKind::kNone);
  EXPECT_EQ(sizes(r), (I{2}));
  EXPECT_EQ(r->storage->nbytes(), 16);
  EXPECT_EQ(values(r), (D{0, 1}));
  ASSERT_EQ(kind(resize_(ctx, r, Ints{3, 1})), ErrorKind::kNone);
  EXPECT_EQ(strides(r), (I{1, 1}));
}

TEST_F(OpsTest, ResizeGrowingNonResizableStorageIsNonResizableAndLeavesMetadataS10) {
  // torch (from_numpy storage): "Trying to resize storage that is not resizable".
  Tensor r = must(arange(ctx, Ints{4}, DType::kI32));
  r->storage->set_resizable(false);
  EXPECT_EQ(kind(resize_(ctx, r, Ints{8})), ErrorKind::kNonResizable);
  EXPECT_EQ(sizes(r), (I{4}));
  EXPECT_EQ(r->storage->nbytes(), 16);
  // Shrinking needs no storage resize, so it succeeds.
  ASSERT_EQ(kind(resize_(ctx, r, Ints{2})), ErrorKind::kNone);
  EXPECT_EQ(sizes(r), (I{2}));
}

TEST_F(OpsTest, ResizeToZeroElementsStillChecksTheOffsetBytesS9S10) {
  // computeStorageNbytesContiguous: (numel + offset) * itemsize, numel 0 too.
  Tensor base = must(zeros(ctx, Ints{2, 3}, DType::kF32));
  Tensor far = must(as_strided(base, Ints{0}, Ints{1}, kTwo62));
  EXPECT_EQ(kind(resize_(ctx, far, Ints{2, 1, 0})), ErrorKind::kStorageSizeOverflow);
  EXPECT_EQ(sizes(far), (I{0}));  // S10: unchanged
  Tensor near = must(as_strided(base, Ints{0}, Ints{1}, (int64_t{1} << 61) - 1));
  ASSERT_EQ(kind(resize_(ctx, near, Ints{2, 1, 0})), ErrorKind::kNone);
  EXPECT_EQ(sizes(near), (I{2, 1, 0}));
  EXPECT_EQ(base->storage->nbytes(), 24);  // 0 elements grow nothing
}

TEST_F(OpsTest, ResizeGrowingPastBudgetIsResourceLimit) {
  Tensor r = must(arange(ctx, Ints{4}, DType::kI32));
  ctx.budget.max_tensor_bytes = 20;
  EXPECT_EQ(kind(resize_(ctx, r, Ints{8})), ErrorKind::kResourceLimit);
  EXPECT_EQ(sizes(r), (I{4}));
}

// === Out-of-place compute ====================================================================

TEST_F(OpsTest, AddOnTransposeKeepsInputStrideOrderLikeTensorIterator) {
  // torch.arange(8.).view(2,4).t().add(1): sizes (4,2), strides (1,4)
  Tensor x = must(transpose(must(arange(ctx, Ints{2, 4}, DType::kF32)), 0, 1));
  Tensor r = must(add(ctx, x, Scalar::integer(1)));
  EXPECT_EQ(sizes(r), (I{4, 2}));
  EXPECT_EQ(strides(r), (I{1, 4}));
  EXPECT_EQ(offset(r), 0);
  EXPECT_NE(r->storage, x->storage);
  EXPECT_EQ(*r->version, 0);
  EXPECT_EQ(values(r), (D{1, 5, 2, 6, 3, 7, 4, 8}));
}

TEST_F(OpsTest, AddPromotesLikeResultType) {
  Tensor i = must(arange(ctx, Ints{3}, DType::kI32));
  Tensor f = must(add(ctx, i, Scalar::floating(1.5)));
  EXPECT_EQ(f->dtype, DType::kF32);
  EXPECT_EQ(values(f), (D{1.5, 2.5, 3.5}));
  Tensor same = must(add(ctx, i, Scalar::integer(2)));
  EXPECT_EQ(same->dtype, DType::kI32);
  EXPECT_EQ(values(same), (D{2, 3, 4}));
  Tensor b = must(arange(ctx, Ints{2}, DType::kBool));  // [False, True]
  Tensor l = must(add(ctx, b, Scalar::integer(2)));
  EXPECT_EQ(l->dtype, DType::kI64);
  EXPECT_EQ(values(l), (D{2, 3}));
}

TEST_F(OpsTest, MulByFloatPromotesI64ToF32) {
  Tensor m = must(mul(ctx, must(arange(ctx, Ints{3}, DType::kI64)), Scalar::floating(2.5)));
  EXPECT_EQ(m->dtype, DType::kF32);
  EXPECT_EQ(values(m), (D{0, 2.5, 5}));
}

TEST_F(OpsTest, CloneOfExpandGetsDenseStrides) {
  Tensor e = must(expand(must(arange(ctx, Ints{3}, DType::kF32)), Ints{2, 3}));
  Tensor c = must(clone(ctx, e));
  EXPECT_EQ(sizes(c), (I{2, 3}));
  EXPECT_EQ(strides(c), (I{3, 1}));
  EXPECT_EQ(values(c), (D{0, 1, 2, 0, 1, 2}));
  EXPECT_NE(c->storage, e->storage);
  EXPECT_EQ(c->storage->nbytes(), 24);
  // arange(2.).view(2,1).expand(2,3).clone(): strides (3, 1)
  Tensor col = must(view(must(arange(ctx, Ints{2}, DType::kF32)), Ints{2, 1}));
  Tensor c2 = must(clone(ctx, must(expand(col, Ints{2, 3}))));
  EXPECT_EQ(strides(c2), (I{3, 1}));
  EXPECT_EQ(values(c2), (D{0, 0, 0, 1, 1, 1}));
}

TEST_F(OpsTest, ClonePreservesDenseLayoutAndCompactsSteppedLayout) {
  Tensor tt = must(transpose(must(arange(ctx, Ints{2, 3}, DType::kF32)), 0, 1));
  EXPECT_EQ(strides(must(clone(ctx, tt))), (I{1, 3}));
  // arange(12.).view(3,4)[:, ::2].clone(): strides (2, 1)
  Tensor stepped = must(slice(arange34(), 1, 0, 4, 2));
  Tensor c = must(clone(ctx, stepped));
  EXPECT_EQ(strides(c), (I{2, 1}));
  EXPECT_EQ(offset(c), 0);
  EXPECT_EQ(values(c), (D{0, 2, 4, 6, 8, 10}));
}

TEST_F(OpsTest, ContiguousOfContiguousReturnsTheSameObject) {
  Tensor t = arange34();
  EXPECT_EQ(must(contiguous(ctx, t)), t);
}

TEST_F(OpsTest, ContiguousOfTransposeCopies) {
  Tensor t = arange34();
  Tensor c = must(contiguous(ctx, must(transpose(t, 0, 1))));
  EXPECT_NE(c->storage, t->storage);
  EXPECT_EQ(sizes(c), (I{4, 3}));
  EXPECT_EQ(strides(c), (I{3, 1}));
  EXPECT_EQ(values(c), (D{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

// === S8 and R4 on an undersized storage ===================================================

TEST_F(OpsTest, ComputeOnEmptiedStorageIsUndefinedBehaviorS8) {
  Tensor t = arange34();
  t->storage->resize(0);  // shrink (R1)
  EXPECT_EQ(kind(add(ctx, t, Scalar::integer(1))), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(fill_(t, Scalar::integer(1))), ErrorKind::kUndefinedBehavior);
}

TEST_F(OpsTest, BoundsCheckedViewOfEmptiedStorageIsOutOfBoundsWithZeroBytesR4) {
  Tensor t = arange34();
  t->storage->resize(0);
  Result<Tensor> r = select(t, 0, 1);
  ASSERT_EQ(kind(r), ErrorKind::kOutOfBounds);
  EXPECT_NE(r.error().message.find("storage of size 0"), std::string::npos) << r.error().message;
  // view does not check (S5).
  EXPECT_EQ(kind(view(t, Ints{12})), ErrorKind::kNone);
}

// === Devices (issue 11) =========================================================

namespace {
/// A 3x2 transposed view (strides [1, 3]) of dtype d whose elements, in
/// storage order, are store_double of values the conversions treat apart:
/// a fraction below zero, a value past u8, NaN, one past f32's range, -0.0
/// and 2^24 + 1 (rounds in f32).
Tensor conversion_source(Context& ctx, DType d) {
  Tensor base = must(zeros(ctx, Ints{2, 3}, d));
  const double v[] = {-2.7, 300.0, std::nan(""), 1e300, -0.0, 16777217.0};
  for (int k = 0; k < 6; ++k)
    store_double(base->storage->mutable_data() + k * itemsize(d), d, v[k]);
  return must(t(base));
}

/// The bytes of element (i, j) of a rank-2 tensor.
const uint8_t* element2(const Tensor& x, int64_t i, int64_t j) {
  const Geometry& g = x->geom;
  return x->storage->read_data() + (g.offset + i * g.strides[0] + j * g.strides[1]) * g.itemsize;
}
}  // namespace

// copy_elements' loop, typed for both dtypes (issue 8), stores what
// convert_element stores, element by element, for every pair of dtypes and
// through a non-contiguous input.
TEST_F(OpsTest, ToConvertsEveryElementAsConvertElementForEveryPairOfDTypes) {
  for (DType from : kAllDTypes) {
    Tensor x = conversion_source(ctx, from);
    for (DType to_d : kAllDTypes) {
      Tensor y = must(to(ctx, x, to_d));
      ASSERT_EQ(y->dtype, to_d);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          uint8_t want[8] = {};
          convert_element(want, to_d, element2(x, i, j), from);
          EXPECT_EQ(std::memcmp(want, element2(y, i, j), static_cast<size_t>(itemsize(to_d))), 0)
              << dtype_name(from) << " -> " << dtype_name(to_d) << " at (" << i << ", " << j << ")";
        }
    }
  }
}

// add_out's loop, typed for the input's dtype and the computation's (issue
// 8): each element is converted to the result type, added, and converted to
// out's dtype as convert_element and binop do; a result type out cannot
// hold is kDtypeCast.
TEST_F(OpsTest, AddOutConvertsAddsAndConvertsAsTheGenericElementFunctions) {
  for (DType from : kAllDTypes) {
    Tensor x = conversion_source(ctx, from);
    const DType r = result_type(from, Scalar::integer(3));
    for (DType out_d : kAllDTypes) {
      Tensor out = must(zeros(ctx, Ints{3, 2}, out_d));
      Status st = add_out(ctx, out, x, Scalar::integer(3));
      if (!can_cast(r, out_d)) {
        EXPECT_EQ(kind(st), ErrorKind::kDtypeCast)
            << dtype_name(from) << " -> " << dtype_name(out_d);
        continue;
      }
      ASSERT_EQ(kind(st), ErrorKind::kNone) << dtype_name(from) << " -> " << dtype_name(out_d);
      uint8_t three[8] = {};
      store_int(three, r, 3);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          uint8_t a[8] = {}, sum[8] = {}, want[8] = {};
          convert_element(a, r, element2(x, i, j), from);
          binop(sum, a, three, r, BinOp::kAdd);
          convert_element(want, out_d, sum, r);
          EXPECT_EQ(std::memcmp(want, element2(out, i, j), static_cast<size_t>(itemsize(out_d))), 0)
              << dtype_name(from) << " + 3 -> " << dtype_name(out_d) << " at (" << i << ", " << j
              << ")";
        }
    }
  }
}

TEST_F(OpsTest, ToDeviceCopiesOnceAndTagsTheResultAndItsViews) {
  Tensor t = arange34();
  EXPECT_EQ(t->device(), DeviceType::kCpu);
  EXPECT_EQ(must(to_device(ctx, t, DeviceType::kCpu)), t);  // already there: the same tensor
  Tensor tt = must(transpose(t, 0, 1));
  Tensor c = must(to_device(ctx, tt, DeviceType::kCuda));
  EXPECT_NE(c->storage, tt->storage);
  EXPECT_EQ(c->device(), DeviceType::kCuda);
  EXPECT_EQ(sizes(c), I({4, 3}));
  EXPECT_EQ(strides(c), I({1, 4}));  // dense input: its strides kept (preserve_format)
  EXPECT_EQ(values(c), values(tt));
  EXPECT_EQ(*c->version, 0);
  // Ops keep their input's device; views share its storage.
  EXPECT_EQ(must(narrow(c, 0, 1, 2))->device(), DeviceType::kCuda);
  EXPECT_EQ(must(clone(ctx, c))->device(), DeviceType::kCuda);
  EXPECT_EQ(must(add(ctx, c, Scalar::integer(1)))->device(), DeviceType::kCuda);
  EXPECT_EQ(must(lazy_clone(ctx, c))->device(), DeviceType::kCuda);
  Tensor back = must(to_device(ctx, c, DeviceType::kCpu));
  EXPECT_EQ(back->device(), DeviceType::kCpu);
  EXPECT_EQ(values(back), values(tt));
  // A fresh tensor of a factory is on the context's device (the backend's home).
  EXPECT_EQ(must(zeros(ctx, Ints{2}, DType::kF32))->device(), DeviceType::kCpu);
}

TEST_F(OpsTest, ToDeviceOfAnEmptiedTensorRestoresZerosWithItsStridesR3) {
  Tensor t = arange34();
  Tensor v = must(as_strided(t, Ints{2, 2}, Ints{1, 4}, 5));
  ASSERT_TRUE(shrink(t).ok());
  Tensor c = must(to_device(ctx, v, DeviceType::kCuda));
  EXPECT_EQ(c->device(), DeviceType::kCuda);
  EXPECT_EQ(sizes(c), I({2, 2}));
  EXPECT_EQ(strides(c), I({1, 4}));
  EXPECT_EQ(offset(c), 0);
  EXPECT_EQ(values(c), D({0, 0, 0, 0}));
  EXPECT_EQ(t->storage->nbytes(), 0);  // the input stays emptied
  // A genuinely undersized storage is not restored (R7): S8, nothing runs.
  Tensor u = arange34();
  ASSERT_TRUE(resize_storage(ctx, u, 8).ok());
  EXPECT_EQ(kind(to_device(ctx, u, DeviceType::kCuda)), ErrorKind::kUndefinedBehavior);
}

TEST_F(OpsTest, ToDeviceOfAMetaOrFakeTensorIsDeviceMismatch) {
  MetaConverter fake_conv(/*fake=*/true);
  Tensor c = must(to_device(ctx, arange34(), DeviceType::kCuda));
  Tensor f = must(fake_conv.convert(c));
  EXPECT_EQ(f->device(), DeviceType::kCuda);  // F1: the device it stands for
  EXPECT_EQ(kind(to_device(ctx, f, DeviceType::kCpu)), ErrorKind::kDeviceMismatch);
}

// The typed loops move same-dtype elements as bits: a signaling NaN's
// payload survives clone, and fill_ and full write the scalar's bytes.
TEST_F(OpsTest, CloneKeepsEveryBitOfSameDtypeElements) {
  Tensor t = must(zeros(ctx, Ints{3}, DType::kF32));
  const uint32_t bits[3] = {0x7FA00001u, 0x80000000u, 0xFFFFFFFFu};  // sNaN, -0, a NaN
  std::memcpy(t->storage->mutable_data(), bits, sizeof bits);
  Tensor c = must(clone(ctx, t));
  EXPECT_EQ(0, std::memcmp(c->storage->read_data(), bits, sizeof bits));
  Tensor d = must(zeros(ctx, Ints{2}, DType::kF64));
  ASSERT_TRUE(fill_(d, Scalar::floating(-0.0)).ok());
  const double neg_zero = -0.0;
  EXPECT_EQ(0, std::memcmp(d->storage->read_data(), &neg_zero, 8));
  EXPECT_EQ(0, std::memcmp(d->storage->read_data() + 8, &neg_zero, 8));
}

// diagonal's offset for a negative diagonal is storage_offset - offset *
// stride(dim1), wrapping as LibTorch's int64 arithmetic does: -2 * 2^62 is
// INT64_MIN, which the reference negated (UBSan, found by cow_fuzzer). The
// wrapped offset is negative: the view is refused as LibTorch refuses it.
TEST_F(OpsTest, DiagonalWrapsANegativeOffsetTimesAHugeStride) {
  Tensor base = must(zeros(ctx, Ints{1}, DType::kF32));
  Tensor t = must(as_strided(base, Ints{3, 1, 0}, Ints{kTwo62, 1, 1}, 0));  // numel 0
  Result<Tensor> d = diagonal(t, -2, 0, 1);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(d.error().message.find("invalid storage offset -9223372036854775808"),
            std::string::npos)
      << d.error().message;
}

// Note [view_dtype]: each call below was run in PyTorch 1.13.

// x = torch.arange(8, dtype=torch.int32); y = x.view(torch.int32): `y is x`
// is False, y._is_view() False, and y.add_(1) makes x._version 1.
TEST_F(OpsTest, ViewDtypeOfTheSameItemSizeIsANewTensorOverTheSameStorageAndVersion) {
  Tensor x = must(arange(ctx, Ints{8}, DType::kI32));
  Tensor y = must(view_dtype(x, DType::kI32));
  EXPECT_NE(y.get(), x.get());
  EXPECT_EQ(y->storage, x->storage);
  EXPECT_EQ(y->version, x->version);
  EXPECT_EQ(sizes(y), (I{8}));
  EXPECT_EQ(strides(y), (I{1}));
  ASSERT_EQ(kind(add_(y, Scalar::integer(1))), ErrorKind::kNone);
  EXPECT_EQ(*x->version, 1);
  EXPECT_EQ(values(x), (D{1, 2, 3, 4, 5, 6, 7, 8}));
}

// torch.arange(8, dtype=torch.int32).view(2, 4)[:, 2:4].view(torch.uint8):
// sizes [2, 8], strides [16, 1], offset 8, the little-endian bytes of 2, 3, 6, 7.
// w = torch.zeros(4, dtype=torch.int64); w.view(torch.uint8)[0:1].fill_(255):
// w is [255, 0, 0, 0] and both versions are 1.
TEST_F(OpsTest, ViewDtypeToASmallerItemScalesTheLastSizeTheOffsetAndTheOtherStrides) {
  Tensor x = must(view(must(arange(ctx, Ints{8}, DType::kI32)), Ints{2, 4}));
  Tensor u = must(view_dtype(must(slice(x, 1, 2, 4, 1)), DType::kU8));
  EXPECT_EQ(u->dtype, DType::kU8);
  EXPECT_EQ(u->geom.itemsize, 1);
  EXPECT_EQ(sizes(u), (I{2, 8}));
  EXPECT_EQ(strides(u), (I{16, 1}));
  EXPECT_EQ(offset(u), 8);
  EXPECT_EQ(values(u), (D{2, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0}));
  Tensor w = must(zeros(ctx, Ints{4}, DType::kI64));
  Tensor b = must(slice(must(view_dtype(w, DType::kU8)), 0, 0, 1, 1));
  ASSERT_EQ(kind(fill_(b, Scalar::integer(255))), ErrorKind::kNone);
  EXPECT_EQ(values(w), (D{255, 0, 0, 0}));
  EXPECT_EQ(*w->version, 1);
}

// torch.arange(8, dtype=torch.int32).view(2, 4).view(torch.int64): sizes [2, 2],
// strides [2, 1], [[4294967296, 12884901890], [21474836484, 30064771078]];
// torch.arange(32, dtype=torch.uint8).as_strided([2, 8], [8, 1]).view(torch.int64):
// sizes [2, 1], strides [1, 1].
TEST_F(OpsTest, ViewDtypeToALargerItemDividesThem) {
  Tensor x = must(view(must(arange(ctx, Ints{8}, DType::kI32)), Ints{2, 4}));
  Tensor l = must(view_dtype(x, DType::kI64));
  EXPECT_EQ(sizes(l), (I{2, 2}));
  EXPECT_EQ(strides(l), (I{2, 1}));
  EXPECT_EQ(values(l), (D{4294967296.0, 12884901890.0, 21474836484.0, 30064771078.0}));
  Tensor e = must(arange(ctx, Ints{32}, DType::kU8));
  Tensor k = must(view_dtype(must(as_strided(e, Ints{2, 8}, Ints{8, 1}, 0)), DType::kI64));
  EXPECT_EQ(sizes(k), (I{2, 1}));
  EXPECT_EQ(strides(k), (I{1, 1}));
}

// Each message as PyTorch 1.13 raises it, in its order of checks.
TEST_F(OpsTest, ViewDtypeChecksInLibTorchsOrderWithItsMessages) {
  auto message = [](const Result<Tensor>& r) {
    EXPECT_EQ(kind(r), ErrorKind::kInvalidArgument);
    return r.ok() ? std::string() : r.error().message;
  };
  Tensor s = must(full(ctx, Ints{}, Scalar::integer(3), DType::kI32));
  EXPECT_EQ(message(view_dtype(s, DType::kU8)),
            "self.dim() cannot be 0 to view Int as Byte (different element sizes)");
  EXPECT_EQ(kind(view_dtype(s, DType::kI32)), ErrorKind::kNone);  // same item size
  Tensor e = must(arange(ctx, Ints{8}, DType::kU8));
  EXPECT_EQ(message(view_dtype(must(slice(e, 0, 1, 4, 1)), DType::kI32)),
            "self.size(-1) must be divisible by 4 to view Byte as Int (different element "
            "sizes), but got 3");
  EXPECT_EQ(message(view_dtype(must(slice(e, 0, 1, 5, 1)), DType::kI32)),
            "self.storage_offset() must be divisible by 4 to view Byte as Int (different "
            "element sizes), but got 1");
  Tensor f = must(arange(ctx, Ints{32}, DType::kU8));
  EXPECT_EQ(message(view_dtype(must(as_strided(f, Ints{2, 4}, Ints{6, 1}, 0)), DType::kI32)),
            "self.stride(0) must be divisible by 4 to view Byte as Int (different element "
            "sizes), but got 6");
  EXPECT_EQ(message(view_dtype(must(as_strided(f, Ints{2, 4}, Ints{4, 2}, 4)), DType::kI32)),
            "self.stride(-1) must be 1 to view Byte as Int (different element sizes), but got 2");
  Tensor x = must(view(must(arange(ctx, Ints{8}, DType::kI32)), Ints{2, 4}));
  EXPECT_EQ(message(view_dtype(must(t(x)), DType::kU8)),
            "self.stride(-1) must be 1 to view Int as Byte (different element sizes), but got 4");
}

// S8: LibTorch scales the strides, the last size and the offset in int64
// without a check; a stride of 2^62 (a [1, 1] view addresses one element)
// or a last size of 2^62 (0 elements) times 8 overflows: refused.
TEST_F(OpsTest, ViewDtypeRefusesAScalingThatOverflowsS8) {
  Tensor t = must(arange(ctx, Ints{1}, DType::kI64));
  Result<Tensor> r = view_dtype(must(as_strided(t, Ints{1, 1}, Ints{kTwo62, 1}, 0)), DType::kU8);
  ASSERT_EQ(kind(r), ErrorKind::kUndefinedBehavior);
  EXPECT_NE(r.error().message.find("multiplies the strides [4611686018427387904, 1]"),
            std::string::npos)
      << r.error().message;
  Tensor z = must(as_strided(t, Ints{0, kTwo62}, Ints{1, 1}, 0));
  EXPECT_EQ(kind(view_dtype(z, DType::kU8)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(kind(view_dtype(z, DType::kI32)), ErrorKind::kUndefinedBehavior);  // 2^62 * 2
  EXPECT_EQ(kind(view_dtype(z, DType::kI64)), ErrorKind::kNone);
}

}  // namespace
}  // namespace storcheck
