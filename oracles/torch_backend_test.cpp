// Tests of the LibTorch CPU backend (torch_backend.cpp) and of the error
// classification table (torch_errors.cpp), on real LibTorch calls.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "impl/rand.h"
#include "oracles/backend.h"
#include "oracles/torch_errors.h"
#include "oracles/torch_pch.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// The outcome of running a whole program: each step's error and the
/// observation after it.
struct Outcome {
  std::vector<Error> errors;
  std::vector<Observation> obs;
  const Error& error(size_t step) const { return errors.at(step - 1); }  // 1-based
  const VarObs& var(size_t step, VarId v) const { return obs.at(step - 1).vars.at(v); }
  ErrorKind last_kind() const { return errors.back().kind; }
};

Outcome run_program(const std::string& text, const Limits& limits = Limits{}) {
  ParseResult parsed = parse_program(text);  // the parser's own limits are not under test
  EXPECT_TRUE(parsed.ok()) << parsed.error.to_string();
  static Program program;  // must outlive the backend's use of it
  program = parsed.program;
  std::unique_ptr<Backend> b = make_torch_cpu_backend();
  b->begin(program, limits);
  Outcome r;
  for (const Step& s : program.steps) {
    r.errors.push_back(b->run_step(s));
    Observation o;
    b->observe(&o);
    r.obs.push_back(std::move(o));
  }
  return r;
}

std::vector<int64_t> sizes_of(const VarObs& v) {
  return std::vector<int64_t>(v.sizes.begin(), v.sizes.begin() + v.rank);
}
std::vector<int64_t> strides_of(const VarObs& v) {
  return std::vector<int64_t>(v.strides.begin(), v.strides.begin() + v.rank);
}
template <typename T>
std::vector<T> values_of(const VarObs& v) {
  std::vector<T> out(v.values.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.values.data(), v.values.size());
  return out;
}

using V = std::vector<int64_t>;

// --- views and observation ---------------------------------------------------

TEST(TorchBackend, TransposeIsAViewWithSwappedStrides) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = transpose t0 0 1\n");
  ASSERT_EQ(r.error(2).kind, ErrorKind::kNone) << r.error(2).message;
  const VarObs& t1 = r.var(2, 1);
  EXPECT_TRUE(t1.live);
  EXPECT_EQ(sizes_of(t1), (V{4, 3}));
  EXPECT_EQ(strides_of(t1), (V{1, 4}));
  EXPECT_EQ(t1.offset, 0);
  EXPECT_EQ(t1.alias_class, 0);
  EXPECT_EQ(t1.identity_class, 1);
  EXPECT_EQ(t1.storage_nbytes, 48);
  EXPECT_EQ(t1.dtype, DType::kF32);
  ASSERT_TRUE(t1.values_known);
  EXPECT_EQ(values_of<float>(t1), (std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
}

// Note [Observing overlapping views]: a view of 4e8 elements over a 4-element
// storage is observed by the elements at its 4 distinct offsets (cow_fuzzer
// timed out reading them all); below kObserveAllElements, row-major as ever.
TEST(TorchBackend, HugeExpandedViewIsObservedByItsDistinctOffsets) {
  Outcome r = run_program("t0 = arange [4] i32\nt1 = expand t0 [100000,1000,4]\n"
                          "t2 = expand t0 [2,4]\n");
  ASSERT_EQ(r.error(3).kind, ErrorKind::kNone) << r.error(3).message;
  const VarObs& t1 = r.var(3, 1);
  ASSERT_TRUE(t1.values_known);
  EXPECT_TRUE(observed_by_offset(t1));
  EXPECT_EQ(values_of<int32_t>(t1), (std::vector<int32_t>{0, 1, 2, 3}));
  const VarObs& t2 = r.var(3, 2);
  EXPECT_FALSE(observed_by_offset(t2));
  EXPECT_EQ(values_of<int32_t>(t2), (std::vector<int32_t>{0, 1, 2, 3, 0, 1, 2, 3}));
}

// Note [Elements a step reads]: LibTorch's sum and to_sparse of a view that
// repeats offsets are refused past Limits::max_step_reads, after S8.
TEST(TorchBackend, SumAndToSparseOfHugeExpandedViewAreResourceLimit) {
  Outcome r = run_program("t0 = arange [4] f32\nt1 = expand t0 [100000,1000,4]\nt2 = sum t1\n"
                          "t3 = to_sparse_coo t1 3\nt4 = expand t0 [262144,4]\nt5 = sum t4\n");
  EXPECT_EQ(r.error(3).kind, ErrorKind::kResourceLimit) << r.error(3).message;
  EXPECT_EQ(r.error(4).kind, ErrorKind::kResourceLimit) << r.error(4).message;
  ASSERT_EQ(r.error(6).kind, ErrorKind::kNone) << r.error(6).message;
  EXPECT_EQ(values_of<double>(r.var(6, 5)), (std::vector<double>{6.0 * 262144}));
}

TEST(TorchBackend, ArangeConvertsIndicesToBoolAndU8) {
  Outcome r = run_program("t0 = arange [3] bool\nt1 = arange [300] u8\n");
  ASSERT_EQ(r.error(2).kind, ErrorKind::kNone) << r.error(2).message;
  EXPECT_EQ(values_of<uint8_t>(r.var(2, 0)), (std::vector<uint8_t>{0, 1, 1}));
  std::vector<uint8_t> u8 = values_of<uint8_t>(r.var(2, 1));
  ASSERT_EQ(u8.size(), 300u);
  EXPECT_EQ(u8[299], 299 % 256);
}

TEST(TorchBackend, RandWritesTheSeededValues) {
  Outcome r = run_program("t0 = rand [2,3] i64 7\n");
  ASSERT_EQ(r.error(1).kind, ErrorKind::kNone);
  std::vector<int64_t> v = values_of<int64_t>(r.var(1, 0));
  ASSERT_EQ(v.size(), 6u);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(v[k], static_cast<int64_t>(rand_value(7, k, DType::kI64)));
}

TEST(TorchBackend, ViewOfTransposedTensorIsViewIncompatible) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = t t0\nt2 = view t1 [12]\n");
  EXPECT_EQ(r.error(3).kind, ErrorKind::kViewIncompatible) << r.error(3).message;
  EXPECT_FALSE(r.var(3, 2).live);
}

TEST(TorchBackend, ReshapeOfTransposedTensorCopies) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = t t0\nt2 = reshape t1 [12]\n");
  ASSERT_EQ(r.error(3).kind, ErrorKind::kNone);
  EXPECT_NE(r.var(3, 2).alias_class, 0);
  EXPECT_EQ(strides_of(r.var(3, 2)), (V{1}));
}

TEST(TorchBackend, SelectOutOfRangeIsIndexOutOfRange) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = select t0 0 3\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kIndexOutOfRange) << r.error(2).message;
}

TEST(TorchBackend, UnbindIndexBeyondTheListIsIndexOutOfRange) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = unbind t0 0 3\nt2 = unbind t0 1 3\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kIndexOutOfRange);
  EXPECT_NE(r.error(2).message.find("returned 3 tensors"), std::string::npos) << r.error(2).message;
  ASSERT_EQ(r.error(3).kind, ErrorKind::kNone);
  EXPECT_EQ(r.var(3, 2).offset, 3);
}

TEST(TorchBackend, SplitAndChunkPickOnePart) {
  Outcome r = run_program("t0 = arange [5,2] f32\nt1 = split t0 2 0 2\nt2 = chunk t0 2 0 1\n");
  ASSERT_EQ(r.error(2).kind, ErrorKind::kNone);
  EXPECT_EQ(sizes_of(r.var(2, 1)), (V{1, 2}));
  EXPECT_EQ(r.var(2, 1).offset, 8);
  ASSERT_EQ(r.error(3).kind, ErrorKind::kNone);
  EXPECT_EQ(sizes_of(r.var(3, 2)), (V{2, 2}));
  EXPECT_EQ(r.var(3, 2).offset, 6);
}

TEST(TorchBackend, AsStridedBeyondStorageIsOutOfBounds) {
  Outcome r = run_program("t0 = arange [10] f32\nt1 = as_strided t0 [20] [1] 0\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kOutOfBounds) << r.error(2).message;
}

// --- in-place writes -----------------------------------------------------------

TEST(TorchBackend, AddFloatToI32InPlaceIsDtypeCast) {
  Outcome r = run_program("t0 = zeros [3] i32\nadd_ t0 1.5\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kDtypeCast) << r.error(2).message;
}

TEST(TorchBackend, Fill300OnU8IsScalarOverflow) {
  Outcome r = run_program("t0 = zeros [3] u8\nfill_ t0 300\nt1 = full [2] 300 u8\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kScalarOverflow) << r.error(2).message;
  EXPECT_EQ(r.error(3).kind, ErrorKind::kScalarOverflow) << r.error(3).message;
  EXPECT_FALSE(r.var(3, 1).live);
}

TEST(TorchBackend, AddInPlaceOnExpandedTensorIsInternalOverlap) {
  Outcome r = run_program("t0 = zeros [1,3] f32\nt1 = expand t0 [4,3]\nadd_ t1 1\nfill_ t1 2\n");
  EXPECT_EQ(r.error(3).kind, ErrorKind::kInternalOverlap) << r.error(3).message;
  // fill_ writes a constant: LibTorch allows it on overlapping tensors.
  EXPECT_EQ(r.error(4).kind, ErrorKind::kNone) << r.error(4).message;
  EXPECT_EQ(values_of<float>(r.var(4, 0)), (std::vector<float>{2, 2, 2}));
}

TEST(TorchBackend, AddInPlaceOnUndetectedOverlapIsUndefinedBehavior) {
  // Sizes [3,2] strides [1,1]: overlapping, but no stride is 0.
  Outcome r = run_program("t0 = zeros [6] f32\nt1 = as_strided t0 [3,2] [1,1] 0\nadd_ t1 1\n");
  EXPECT_EQ(r.error(3).kind, ErrorKind::kUndefinedBehavior) << r.error(3).message;
  EXPECT_EQ(r.var(3, 0).version, 0);  // not run
}

TEST(TorchBackend, CopyWithPartialOverlapIsPartialOverlap) {
  Outcome r = run_program(
      "t0 = arange [10] f32\nt1 = slice t0 0 1 6 1\nt2 = slice t0 0 0 5 1\ncopy_ t1 t2\n");
  EXPECT_EQ(r.error(4).kind, ErrorKind::kPartialOverlap) << r.error(4).message;
}

TEST(TorchBackend, CopyShapeMismatchIsShapeMismatch) {
  Outcome r = run_program("t0 = zeros [3,4] f32\nt1 = zeros [5] f32\ncopy_ t0 t1\n");
  EXPECT_EQ(r.error(3).kind, ErrorKind::kShapeMismatch) << r.error(3).message;
}

TEST(TorchBackend, VersionCounterIsSharedByViews) {
  Outcome r = run_program("t0 = zeros [2,3] f32\nt1 = transpose t0 0 1\nadd_ t1 1\nmul_ t0 2\n");
  ASSERT_EQ(r.error(4).kind, ErrorKind::kNone);
  EXPECT_TRUE(r.var(4, 0).version_known);
  EXPECT_EQ(r.var(3, 0).version, 1);
  EXPECT_EQ(r.var(3, 1).version, 1);
  EXPECT_EQ(r.var(4, 0).version, 2);
  EXPECT_EQ(r.var(4, 1).version, 2);
  EXPECT_EQ(values_of<float>(r.var(4, 1)), (std::vector<float>(6, 2)));
}

TEST(TorchBackend, InPlaceViewOpsBumpTheVersionButResizeDoesNot) {
  // LibTorch 1.13 bumps the version counter in ADInplaceOrView for every
  // in-place op, metadata-only ones included; resize_ is not one of them.
  Outcome r = run_program("t0 = zeros [2,3] f32\ntranspose_ t0 0 1\nresize_ t0 [8]\n");
  EXPECT_EQ(r.var(2, 0).version, 1);
  EXPECT_EQ(r.var(3, 0).version, 1);
}

// --- identity, drop -----------------------------------------------------------

TEST(TorchBackend, ContiguousOfContiguousTensorIsTheSameTensor) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = contiguous t0\nt2 = t t0\nt3 = contiguous t2\n");
  EXPECT_EQ(r.var(2, 1).identity_class, 0);
  EXPECT_EQ(r.var(2, 1).alias_class, 0);
  EXPECT_EQ(r.var(4, 3).identity_class, 3);
  EXPECT_EQ(r.var(4, 3).alias_class, 3);
  EXPECT_EQ(strides_of(r.var(4, 3)), (V{3, 1}));
}

TEST(TorchBackend, InPlaceViewOpOnSharedTensorIsSeenByEveryName) {
  Outcome r = run_program("t0 = arange [3,4] f32\nt1 = contiguous t0\nt_ t1\n");
  EXPECT_EQ(sizes_of(r.var(3, 0)), (V{4, 3}));
}

TEST(TorchBackend, DropUnbindsAndMovesAliasClass) {
  Outcome r = run_program("t0 = arange [4] f32\nt1 = alias t0\ndrop t0\n");
  EXPECT_EQ(r.var(2, 1).alias_class, 0);
  EXPECT_FALSE(r.var(3, 0).live);
  EXPECT_EQ(r.var(3, 1).alias_class, 1);
}

// --- limits, overflow, policy checks --------------------------------------------

TEST(TorchBackend, FactoryBeyondMaxTensorBytesIsResourceLimit) {
  Limits lim;
  lim.max_tensor_bytes = 1000;
  Outcome r = run_program("t0 = zeros [251] f32\nt1 = zeros [250] f32\n", lim);
  EXPECT_EQ(r.error(1).kind, ErrorKind::kResourceLimit) << r.error(1).message;
  EXPECT_EQ(r.error(2).kind, ErrorKind::kNone);
}

TEST(TorchBackend, RunTotalBeyondMaxProgramBytesIsResourceLimit) {
  Limits lim;
  lim.max_program_bytes = 1000;
  Outcome r = run_program("t0 = zeros [200] f32\nt1 = clone t0\nt2 = view t0 [2,100]\n", lim);
  EXPECT_EQ(r.error(1).kind, ErrorKind::kNone);
  EXPECT_EQ(r.error(2).kind, ErrorKind::kResourceLimit) << r.error(2).message;
  EXPECT_EQ(r.error(3).kind, ErrorKind::kNone);  // views do not allocate
}

TEST(TorchBackend, EmptyStridedWithOverflowingExtentIsStorageSizeOverflow) {
  Outcome r = run_program("t0 = empty_strided [2,2] [4611686018427387904,1] f32\n");
  EXPECT_EQ(r.error(1).kind, ErrorKind::kStorageSizeOverflow) << r.error(1).message;
}

TEST(TorchBackend, EmptyStridedStorageIsZeroed) {
  Outcome r = run_program("t0 = empty_strided [2,2] [1,3] f64\n");
  ASSERT_EQ(r.error(1).kind, ErrorKind::kNone) << r.error(1).message;
  EXPECT_EQ(r.var(1, 0).storage_nbytes, 40);
  EXPECT_EQ(strides_of(r.var(1, 0)), (V{1, 3}));
  EXPECT_EQ(values_of<double>(r.var(1, 0)), (std::vector<double>(4, 0.0)));
}

TEST(TorchBackend, FactoryWithNegativeSizeIsInvalidArgument) {
  Outcome r = run_program("t0 = zeros [2,-1] f32\n");
  EXPECT_EQ(r.error(1).kind, ErrorKind::kInvalidArgument) << r.error(1).message;
}

TEST(TorchBackend, ResizeGrowthIsZeroedAndChargedAndNoOpKeepsStrides) {
  Outcome r = run_program("t0 = ones [2,3] f32\nt1 = t t0\nresize_ t1 [3,2]\nresize_ t0 [10]\n");
  ASSERT_EQ(r.error(3).kind, ErrorKind::kNone);
  EXPECT_EQ(strides_of(r.var(3, 1)), (V{1, 3}));  // same sizes: no-op
  ASSERT_EQ(r.error(4).kind, ErrorKind::kNone);
  EXPECT_EQ(r.var(4, 0).storage_nbytes, 40);
  EXPECT_EQ(values_of<float>(r.var(4, 0)),
            (std::vector<float>{1, 1, 1, 1, 1, 1, 0, 0, 0, 0}));
  Limits lim;
  lim.max_tensor_bytes = 30;
  Outcome small = run_program("t0 = ones [2] f32\nresize_ t0 [8]\n", lim);
  EXPECT_EQ(small.error(2).kind, ErrorKind::kResourceLimit);
  EXPECT_EQ(sizes_of(small.var(2, 0)), (V{2}));
}

TEST(TorchBackend, ResizeWithNegativeSizeIsInvalidArgument) {
  Outcome r = run_program("t0 = ones [2] f32\nresize_ t0 [-1]\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kInvalidArgument) << r.error(2).message;
}

TEST(TorchBackend, AsStridedWithNegativeSizeIsInvalidArgument) {
  // LibTorch 1.13 alone would accept [0,-1] (a zero size hides the -1).
  Outcome r = run_program("t0 = zeros [4] f32\nt1 = as_strided t0 [0,-1] [1,1] 0\n"
                          "as_strided_ t0 [0,-1] [1,1] 0\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kInvalidArgument) << r.error(2).message;
  EXPECT_EQ(r.error(3).kind, ErrorKind::kInvalidArgument) << r.error(3).message;
  EXPECT_EQ(sizes_of(r.var(3, 0)), (V{4}));
}

TEST(TorchBackend, NegativeSizesLibTorchWouldAcceptAreInvalidArgument) {
  Outcome r = run_program("t0 = zeros [] f32\nt1 = expand t0 [0,-1]\nt2 = expand t0 [-1]\n"
                          "t3 = zeros [1] f32\nt4 = expand t3 [-1,3]\n"
                          "t5 = zeros [0,1] f32\nt6 = expand t5 [0,-2]\nt7 = expand t5 [-1,-1]\n"
                          "t8 = unfold t5 1 -2 1\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kInvalidArgument) << r.error(2).message;
  EXPECT_EQ(r.error(3).kind, ErrorKind::kInvalidArgument) << r.error(3).message;
  EXPECT_EQ(r.error(5).kind, ErrorKind::kInvalidArgument) << r.error(5).message;
  EXPECT_EQ(r.error(7).kind, ErrorKind::kInvalidArgument) << r.error(7).message;
  EXPECT_EQ(r.error(8).kind, ErrorKind::kNone) << r.error(8).message;  // -1 keeps a dim
  EXPECT_EQ(r.error(9).kind, ErrorKind::kInvalidArgument) << r.error(9).message;
}

TEST(TorchBackend, ExpandRefusesOnlyWhereATenWouldNotRaiseFirst) {
  // ATen checks the dims from the last to the first: dim 2's mismatch
  // comes before dim 0's -1 (pytorch.eager_matches_libtorch, seed 1933),
  // and the policy's size below -1 only where ATen would take it.
  Outcome r = run_program(
      "t0 = arange [4,3] f32\nt1 = expand t0 [-1,3,5]\n"
      "t2 = expand t0 [-2,4,4]\nt3 = expand t0 [-2,4,3]\n");
  EXPECT_EQ(r.error(2).kind, ErrorKind::kShapeMismatch) << r.error(2).message;
  EXPECT_NE(r.error(2).message.find("non-singleton dimension 2"), std::string::npos)
      << r.error(2).message;
  EXPECT_EQ(r.error(3).kind, ErrorKind::kShapeMismatch) << r.error(3).message;
  EXPECT_EQ(r.error(4).kind, ErrorKind::kInvalidArgument) << r.error(4).message;
  EXPECT_NE(r.error(4).message.find("expand: size -2 at dim 0"), std::string::npos)
      << r.error(4).message;
}

TEST(TorchBackend, UnsqueezeBeyondMaxDimsIsResourceLimit) {
  std::string text = "t0 = zeros [1,1,1,1,1,1,1,1] f32\n";
  for (int k = 1; k <= 9; ++k)
    text += "t" + std::to_string(k) + " = unsqueeze t" + std::to_string(k - 1) + " 0\n";
  Outcome r = run_program(text);
  EXPECT_EQ(r.error(9).kind, ErrorKind::kNone);  // rank 16
  EXPECT_EQ(r.var(9, 8).rank, 16);
  EXPECT_EQ(r.error(10).kind, ErrorKind::kResourceLimit) << r.error(10).message;
}

// --- the classification table on real LibTorch exceptions ------------------------

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return classify_torch_exception(e).kind;
  }
  return ErrorKind::kNone;
}

TEST(TorchErrors, ClassifiesRealLibTorchMessages) {
  at::Tensor a = at::arange(12, at::kFloat).view({3, 4});
  at::Tensor z = at::zeros({}, at::kFloat);
  EXPECT_EQ(kind_of([&] { a.transpose(0, 2); }), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind_of([&] { z.select(0, 0); }), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind_of([&] { a.select(0, 3); }), ErrorKind::kIndexOutOfRange);
  EXPECT_EQ(kind_of([&] { a.as_strided({20}, {1}); }), ErrorKind::kOutOfBounds);
  EXPECT_EQ(kind_of([&] { a.t().view({12}); }), ErrorKind::kViewIncompatible);
  EXPECT_EQ(kind_of([&] { a.view({5}); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.expand({5, 4}); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.expand({4}); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.expand({-1, 3, 4}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.unflatten(1, {3, 3}); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.narrow(1, 2, 5); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.unfold(1, 5, 1); }), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { a.expand({2, 3, 4}).add_(1); }), ErrorKind::kInternalOverlap);
  at::Tensor b = at::arange(10, at::kFloat);
  EXPECT_EQ(kind_of([&] { b.slice(0, 1, 6).copy_(b.slice(0, 0, 5)); }), ErrorKind::kPartialOverlap);
  EXPECT_EQ(kind_of([&] { at::zeros({3}, at::kInt).add_(1.5); }), ErrorKind::kDtypeCast);
  EXPECT_EQ(kind_of([&] { at::zeros({3}, at::kBool).add_(1); }), ErrorKind::kDtypeCast);
  EXPECT_EQ(kind_of([&] { at::zeros({3}, at::kByte).fill_(300); }), ErrorKind::kScalarOverflow);
  EXPECT_EQ(kind_of([&] { at::zeros({int64_t{1} << 40, int64_t{1} << 40}); }),
            ErrorKind::kStorageSizeOverflow);
  EXPECT_EQ(kind_of([&] { at::zeros({3}).resize_({int64_t{1} << 62, 4}); }),
            ErrorKind::kStorageSizeOverflow);
  EXPECT_EQ(kind_of([&] { at::zeros({-1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.view({-2, 6}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.view({-1, -1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.unflatten(1, {-1, -1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.unflatten(1, {}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.slice(1, 0, 4, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.unfold(1, 2, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.permute({0, 0}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.permute({0}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { at::zeros({2, 2, 2}).t(); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.diagonal(0, 1, 1); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { b.as_strided({2}, {1}, -1); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { b.as_strided({2}, {-1}, 5); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { b.as_strided({2}, {1, 1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { at::empty_strided({2}, {1, 1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.flatten(1, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.chunk(0, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.split(0, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { a.split(-1, 0); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { z.split(1, 0); }), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind_of([&] { z.chunk(1, 0); }), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind_of([&] { z.unbind(0); }), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind_of([&] { at::zeros({0}).view({0, -1}); }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind_of([&] { at::zeros({2, 1}).copy_(at::zeros({2, 2})); }),
            ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind_of([&] { at::zeros({3}).narrow(0, 2, -1); }), ErrorKind::kShapeMismatch);
}

TEST(TorchErrors, UnknownMessageIsOtherAndKeepsItsText) {
  std::runtime_error e("something new happened");
  Error err = classify_torch_exception(e);
  EXPECT_EQ(err.kind, ErrorKind::kOther);
  EXPECT_EQ(err.message, "torch: something new happened");
}

TEST(TorchErrors, MessageHasNoBacktrace) {
  try {
    at::arange(12, at::kFloat).view({5});
    FAIL() << "view should raise";
  } catch (const std::exception& e) {
    std::string msg = torch_exception_message(e);
    EXPECT_NE(msg.find("is invalid for input of size 12"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("Exception raised from"), std::string::npos) << msg;
  }
}

// Note [Quiet LibTorch warnings] (oracles/torch_backend.cpp): c10's warning
// handler is per thread, so a backend run on another thread than the one
// that made the first (the gate's workers) printed LibTorch's warnings
// through glog, here add_out's "An output with one or more elements was
// resized", about 800 lines in a default gate run.
TEST(TorchBackend, LibTorchWarningsStayQuietOnEveryThread) {
  ParseResult parsed =
      parse_program("t0 = arange [4,4] f32\nt1 = zeros [2] f32\nadd_out t1 t0 1.5\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  const Program& program = parsed.program;
  std::unique_ptr<Backend> first = make_torch_cpu_backend();  // this thread's
  ASSERT_NE(first, nullptr);
  auto run = [&program] {
    std::unique_ptr<Backend> b = make_torch_cpu_backend();
    b->begin(program, Limits{});
    for (const Step& s : program.steps) EXPECT_EQ(b->run_step(s).kind, ErrorKind::kNone);
  };
  testing::internal::CaptureStderr();
  run();
  std::thread worker(run);
  worker.join();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace storcheck
