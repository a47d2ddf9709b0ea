// Unit tests of impl/geometry.h: checked extents (S4, S5, S9), contiguity,
// and PyTorch 1.13's memory-overlap rules (S7), each pinned to exact values.
#include "impl/geometry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "impl/tensor.h"

namespace storcheck {
namespace {

constexpr int64_t kTwo62 = int64_t{1} << 62;

std::vector<int64_t> offsets_of(const Geometry& g) {
  std::vector<int64_t> out;
  for_each_offset(g, [&](int64_t o) { out.push_back(o); });
  return out;
}

// --- required_bytes (S5, S9) -------------------------------------------------

// Note [Geometry copies]: a copy takes every dim below the rank, the
// offset and the itemsize, whatever the destination held before.
TEST(GeometryCopy, TakesEveryDimBelowTheRank) {
  Geometry a = Geometry::of({2, 3, 5, 7, 11}, {385, 77, 11, 1, 0}, 9, 4);
  Geometry b(a);
  EXPECT_TRUE(same_layout(a, b));
  EXPECT_EQ(b.sizes[4], 11);
  EXPECT_EQ(b.strides[0], 385);
  Geometry c = Geometry::of({1, 1, 1, 1, 1, 1, 1, 1}, {9, 9, 9, 9, 9, 9, 9, 9}, 0, 8);
  c = a;  // a wider destination: its rank, offset and dims become a's
  EXPECT_TRUE(same_layout(a, c));
  EXPECT_EQ(c.rank, 5);
  int64_t bytes = 0;
  ASSERT_TRUE(c.required_bytes(&bytes));
  EXPECT_EQ(bytes, 4 * (9 + 1 * 385 + 2 * 77 + 4 * 11 + 6 * 1 + 1));
  Geometry full;  // kGeometryMaxDims dims: the copy's bound is the array's
  full.rank = kGeometryMaxDims;
  for (int d = 0; d < kGeometryMaxDims; ++d) full.sizes[d] = full.strides[d] = d + 1;
  Geometry f = full;
  EXPECT_TRUE(same_layout(full, f));
}

TEST(GeometryCopy, RankConstructorZeroesItsDims) {
  Geometry g(3);
  EXPECT_EQ(g.rank, 3);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(g.sizes[d], 0);
    EXPECT_EQ(g.strides[d], 0);
  }
  EXPECT_EQ(g.offset, 0);
  EXPECT_EQ(g.itemsize, 1);
  int64_t n = -1;
  ASSERT_TRUE(g.numel(&n));
  EXPECT_EQ(n, 0);
}

TEST(GeometryRequiredBytes, ContiguousIsNumelTimesItemsize) {
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({3, 4}, {4, 1}, 0, 4).required_bytes(&bytes));
  EXPECT_EQ(bytes, 48);
}

TEST(GeometryRequiredBytes, IncludesOffsetS5) {
  // 4 * (2 + (3-1)*4 + (4-1)*1 + 1) = 4 * 14
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({3, 4}, {4, 1}, 2, 4).required_bytes(&bytes));
  EXPECT_EQ(bytes, 56);
}

TEST(GeometryRequiredBytes, UsesLargestIndexNotNumel) {
  // as_strided((2,2),(2,1),1) on f32: 4 * (1 + 2 + 1 + 1) = 20 (the S5 example).
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({2, 2}, {2, 1}, 1, 4).required_bytes(&bytes));
  EXPECT_EQ(bytes, 20);
}

TEST(GeometryRequiredBytes, StrideZeroNeedsOneElement) {
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({5, 7}, {0, 0}, 0, 8).required_bytes(&bytes));
  EXPECT_EQ(bytes, 8);
}

TEST(GeometryRequiredBytes, RankZeroNeedsOffsetPlusOne) {
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({}, {}, 3, 2).required_bytes(&bytes));
  EXPECT_EQ(bytes, 8);
}

TEST(GeometryRequiredBytes, NumelZeroIsZeroBytesWhateverTheOffset) {
  int64_t bytes = -1;
  ASSERT_TRUE(Geometry::of({3, 0}, {kTwo62, kTwo62}, kTwo62, 8).required_bytes(&bytes));
  EXPECT_EQ(bytes, 0);
}

TEST(GeometryRequiredBytes, OverflowingStridesReportFalseS9) {
  int64_t bytes = 123;
  EXPECT_FALSE(Geometry::of({2, 2}, {kTwo62, kTwo62}, 0, 4).required_bytes(&bytes));
  EXPECT_EQ(bytes, 123);  // untouched on failure
}

TEST(GeometryRequiredBytes, OverflowInItemsizeProductReportsFalseS9) {
  // (2^62 + 1) elements fit int64, times itemsize 4 does not.
  int64_t bytes = 0;
  EXPECT_FALSE(Geometry::of({1}, {1}, kTwo62, 4).required_bytes(&bytes));
}

TEST(GeometryRequiredBytes, ExactlyInt64MaxBytesIsAccepted) {
  int64_t bytes = 0;
  int64_t max = std::numeric_limits<int64_t>::max();
  ASSERT_TRUE(Geometry::of({1}, {1}, max - 1, 1).required_bytes(&bytes));
  EXPECT_EQ(bytes, max);
  EXPECT_FALSE(Geometry::of({1}, {1}, max, 1).required_bytes(&bytes));
}

TEST(GeometryRequiredBytes, NegativeStrideOnSizeAboveOneIsOverflowLikeUnsignedLibTorch) {
  // LibTorch 1.13's computeStorageNbytes works in uint64: stride -1 wraps.
  int64_t bytes = 0;
  EXPECT_FALSE(Geometry::of({2}, {-1}, 5, 4).required_bytes(&bytes));
}

TEST(GeometryRequiredBytes, NegativeStrideOnSizeOneDimIsIgnored) {
  int64_t bytes = 0;
  ASSERT_TRUE(Geometry::of({1, 3}, {-1, 1}, 5, 4).required_bytes(&bytes));
  EXPECT_EQ(bytes, 4 * (5 + 2 + 1));
}

TEST(GeometryRequiredBytes, NegativeOffsetIsRejected) {
  int64_t bytes = 0;
  EXPECT_FALSE(Geometry::of({2}, {1}, -1, 4).required_bytes(&bytes));
}

// --- storage_offset_overflows (S9 policy for as_strided) ------------------------

TEST(GeometryStorageOffsetOverflows, OffsetTimesItemsizePastInt64Overflows) {
  EXPECT_TRUE(storage_offset_overflows(Geometry::of({1}, {1}, kTwo62, 4)));
  EXPECT_FALSE(storage_offset_overflows(Geometry::of({1}, {1}, kTwo62, 1)));
}

TEST(GeometryStorageOffsetOverflows, EmptyOrNegativeStrideGeometriesAreNotThisCheck) {
  EXPECT_FALSE(storage_offset_overflows(Geometry::of({0}, {1}, kTwo62, 4)));
  EXPECT_FALSE(storage_offset_overflows(Geometry::of({2}, {-1}, kTwo62, 4)));
}

TEST(GeometryNumel, ProductOfSizesAndOverflowReportsFalse) {
  int64_t n = 0;
  ASSERT_TRUE(Geometry::of({2, 3, 4}, {12, 4, 1}, 0, 4).numel(&n));
  EXPECT_EQ(n, 24);
  ASSERT_TRUE(Geometry::of({}, {}, 0, 4).numel(&n));
  EXPECT_EQ(n, 1);
  EXPECT_FALSE(Geometry::of({kTwo62, 4}, {4, 1}, 0, 4).numel(&n));
  // A size-0 dim anywhere makes it 0, even after sizes whose product
  // overflows (found by shrink_fuzzer: resize_ to [2^63-1, 2, 0]).
  n = -1;
  ASSERT_TRUE(Geometry::of({INT64_MAX, 2, 0}, {2, 1, 1}, 0, 4).numel(&n));
  EXPECT_EQ(n, 0);
}

// --- is_contiguous -------------------------------------------------------------

TEST(GeometryIsContiguous, RowMajorStridesAreContiguous) {
  EXPECT_TRUE(Geometry::of({3, 4}, {4, 1}, 0, 4).is_contiguous());
  EXPECT_TRUE(Geometry::of({3, 4}, {4, 1}, 7, 4).is_contiguous());  // offset irrelevant
}

TEST(GeometryIsContiguous, TransposedIsNotContiguous) {
  EXPECT_FALSE(Geometry::of({4, 3}, {1, 4}, 0, 4).is_contiguous());
}

TEST(GeometryIsContiguous, SizeOneDimStrideIsIgnored) {
  EXPECT_TRUE(Geometry::of({3, 1, 4}, {4, 100, 1}, 0, 4).is_contiguous());
}

TEST(GeometryIsContiguous, EmptyTensorIsContiguousWhateverItsStrides) {
  EXPECT_TRUE(Geometry::of({0, 3}, {7, 9}, 0, 4).is_contiguous());
}

TEST(GeometryIsContiguous, ExpandedAndSteppedAreNotContiguous) {
  EXPECT_FALSE(Geometry::of({2, 3}, {0, 1}, 0, 4).is_contiguous());
  EXPECT_FALSE(Geometry::of({3}, {2}, 0, 4).is_contiguous());
}

// --- is_non_overlapping_and_dense ----------------------------------------------

TEST(GeometryNonOverlappingAndDense, PermutedDenseLayoutsAreDense) {
  EXPECT_TRUE(Geometry::of({3, 4}, {4, 1}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_TRUE(Geometry::of({4, 3}, {1, 4}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_TRUE(Geometry::of({4, 2, 3}, {1, 12, 4}, 0, 4).is_non_overlapping_and_dense());
}

TEST(GeometryNonOverlappingAndDense, GapsAndOverlapsAreNotDense) {
  EXPECT_FALSE(Geometry::of({3, 2}, {4, 2}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_FALSE(Geometry::of({2, 3}, {0, 1}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_FALSE(Geometry::of({2, 2}, {1, 1}, 0, 4).is_non_overlapping_and_dense());
}

TEST(GeometryNonOverlappingAndDense, RankOneNeedsUnitStrideUnlessSizeBelowTwo) {
  EXPECT_TRUE(Geometry::of({5}, {1}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_FALSE(Geometry::of({5}, {2}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_TRUE(Geometry::of({1}, {9}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_TRUE(Geometry::of({0}, {9}, 0, 4).is_non_overlapping_and_dense());
}

TEST(GeometryNonOverlappingAndDense, SizeOneDimsAnyStride) {
  EXPECT_TRUE(Geometry::of({1, 3}, {0, 1}, 0, 4).is_non_overlapping_and_dense());
  EXPECT_TRUE(Geometry::of({3, 1}, {1, 77}, 0, 4).is_non_overlapping_and_dense());
}

// --- has_overlap (exact) ----------------------------------------------------------

TEST(GeometryHasOverlap, StrideZeroOnSizeAboveOneOverlaps) {
  EXPECT_TRUE(Geometry::of({2, 3}, {0, 1}, 0, 4).has_overlap());
}

TEST(GeometryHasOverlap, StrideZeroOnSizeOneDoesNotOverlap) {
  EXPECT_FALSE(Geometry::of({1, 3}, {0, 1}, 0, 4).has_overlap());
}

TEST(GeometryHasOverlap, DiagonalAsStridedOverlaps) {
  // offsets 0, 1, 1, 2
  EXPECT_TRUE(Geometry::of({2, 2}, {1, 1}, 0, 4).has_overlap());
}

TEST(GeometryHasOverlap, InterleavedStridesThatCollideOverlap) {
  // i + 2j for i<3, j<2: (0,1) and (2,0) both hit offset 2.
  EXPECT_TRUE(Geometry::of({3, 2}, {1, 2}, 0, 4).has_overlap());
}

TEST(GeometryHasOverlap, InterleavedStridesThatNeverCollideDoNotOverlap) {
  // 2i + 3j for i<3, j<2: 0 3 2 5 4 7, all distinct, though the strides are
  // not separated (the exact check must enumerate).
  EXPECT_FALSE(Geometry::of({3, 2}, {2, 3}, 0, 4).has_overlap());
}

TEST(GeometryHasOverlap, ExactPastFourMillionElementsWhenTheSpanIsSmall) {
  // 3i + 2j for i<2, j<M (M = 2^22 + 8): odd and even offsets, all distinct,
  // the strides not separated; 2M elements, past the 2^22 that enumeration
  // takes (which answered "overlaps"). The span (2M + 2) fits the bitset.
  const int64_t m = (int64_t{1} << 22) + 8;
  EXPECT_FALSE(Geometry::of({2, m}, {3, 2}, 0, 4).has_overlap());
  EXPECT_TRUE(Geometry::of({2, m}, {4, 2}, 0, 4).has_overlap());  // 4 + 2j = 2(j + 2)
}

TEST(GeometryHasOverlap, DenseAndGappyLayoutsDoNotOverlap) {
  EXPECT_FALSE(Geometry::of({3, 4}, {4, 1}, 0, 4).has_overlap());
  EXPECT_FALSE(Geometry::of({2, 2}, {3, 1}, 0, 4).has_overlap());
  EXPECT_FALSE(Geometry::of({0, 2}, {0, 0}, 0, 4).has_overlap());
  EXPECT_FALSE(Geometry::of({}, {}, 0, 4).has_overlap());
}

// --- internal_overlap (PyTorch's has_internal_overlap, S7) --------------------

TEST(GeometryInternalOverlap, StrideZeroOnSizeAboveOneIsYes) {
  EXPECT_EQ(internal_overlap(Geometry::of({2, 3}, {0, 1}, 0, 4)), MemOverlap::kYes);
}

TEST(GeometryInternalOverlap, AsStridedOverlapWithoutZeroStrideIsTooHard) {
  EXPECT_EQ(internal_overlap(Geometry::of({2, 2}, {1, 1}, 0, 4)), MemOverlap::kTooHard);
}

TEST(GeometryInternalOverlap, NonDenseWithoutOverlapIsTooHard) {
  EXPECT_EQ(internal_overlap(Geometry::of({2, 2}, {3, 1}, 0, 4)), MemOverlap::kTooHard);
}

TEST(GeometryInternalOverlap, DenseIsNo) {
  EXPECT_EQ(internal_overlap(Geometry::of({3, 4}, {4, 1}, 0, 4)), MemOverlap::kNo);
  EXPECT_EQ(internal_overlap(Geometry::of({4, 3}, {1, 4}, 0, 4)), MemOverlap::kNo);
  EXPECT_EQ(internal_overlap(Geometry::of({1, 3}, {0, 1}, 0, 4)), MemOverlap::kNo);
}

// --- overlap_status (PyTorch's get_overlap_status) -----------------------------

TEST(GeometryOverlapStatus, SameTensorIsFull) {
  Geometry a = Geometry::of({2, 2}, {1, 1}, 0, 4);  // even when not dense
  EXPECT_EQ(overlap_status(a, a, true, true), MemOverlapStatus::kFull);
}

TEST(GeometryOverlapStatus, SameRangeSameStridesIsFull) {
  Geometry a = Geometry::of({4}, {1}, 2, 4);
  EXPECT_EQ(overlap_status(a, a, true, false), MemOverlapStatus::kFull);
}

TEST(GeometryOverlapStatus, ShiftedRangesArePartial) {
  EXPECT_EQ(overlap_status(Geometry::of({4}, {1}, 0, 4), Geometry::of({4}, {1}, 2, 4), true, false),
            MemOverlapStatus::kPartial);
}

TEST(GeometryOverlapStatus, SameRangeDifferentStridesIsPartial) {
  EXPECT_EQ(overlap_status(Geometry::of({2, 2}, {2, 1}, 0, 4), Geometry::of({2, 2}, {1, 2}, 0, 4),
                           true, false),
            MemOverlapStatus::kPartial);
}

TEST(GeometryOverlapStatus, DisjointRangesAreNo) {
  EXPECT_EQ(overlap_status(Geometry::of({2}, {1}, 0, 4), Geometry::of({2}, {1}, 2, 4), true, false),
            MemOverlapStatus::kNo);
}

TEST(GeometryOverlapStatus, DifferentStoragesAreNo) {
  Geometry a = Geometry::of({4}, {1}, 0, 4);
  EXPECT_EQ(overlap_status(a, a, false, false), MemOverlapStatus::kNo);
}

TEST(GeometryOverlapStatus, EmptyOperandIsNo) {
  EXPECT_EQ(overlap_status(Geometry::of({0}, {1}, 0, 4), Geometry::of({4}, {1}, 0, 4), true, false),
            MemOverlapStatus::kNo);
}

TEST(GeometryOverlapStatus, NonDenseOperandIsTooHard) {
  EXPECT_EQ(overlap_status(Geometry::of({2}, {2}, 0, 4), Geometry::of({2}, {2}, 1, 4), true, false),
            MemOverlapStatus::kTooHard);
}

// --- elements_intersect (exact) -------------------------------------------------

TEST(GeometryElementsIntersect, InterleavedStepsDoNotIntersect) {
  // Even and odd elements: the byte ranges overlap, the elements do not.
  EXPECT_FALSE(elements_intersect(Geometry::of({3}, {2}, 0, 4), Geometry::of({3}, {2}, 1, 4)));
}

TEST(GeometryElementsIntersect, SharedElementIntersects) {
  EXPECT_TRUE(elements_intersect(Geometry::of({3}, {2}, 0, 4), Geometry::of({2}, {3}, 1, 4)));
}

TEST(GeometryElementsIntersect, DifferentItemsizesCompareBytes) {
  // One 8-byte element at bytes [0,8) and a 4-byte element at [4,8).
  EXPECT_TRUE(elements_intersect(Geometry::of({1}, {1}, 0, 8), Geometry::of({1}, {1}, 1, 4)));
  // 8-byte element at [0,8) and 4-byte element at [8,12).
  EXPECT_FALSE(elements_intersect(Geometry::of({1}, {1}, 0, 8), Geometry::of({1}, {1}, 2, 4)));
}

TEST(GeometryElementsIntersect, EmptyNeverIntersects) {
  EXPECT_FALSE(elements_intersect(Geometry::of({0}, {1}, 0, 4), Geometry::of({4}, {1}, 0, 4)));
}

/// Whether two geometries share a byte, by listing every byte of each.
bool share_a_byte(const Geometry& a, const Geometry& b) {
  std::set<int64_t> bytes;
  for_each_offset(a, [&](int64_t o) {
    for (int64_t k = 0; k < a.itemsize; ++k) bytes.insert(o * a.itemsize + k);
  });
  bool hit = false;
  for_each_offset(b, [&](int64_t o) {
    for (int64_t k = 0; k < b.itemsize; ++k) hit |= bytes.count(o * b.itemsize + k) > 0;
  });
  return hit;
}

TEST(GeometryElementsIntersect, AgreesWithListingEveryByte) {
  // Small spans: the bitset path; repeated offsets (stride 0), gaps and
  // mixed item sizes included. A fixed LCG keeps the cases reproducible.
  uint64_t x = 12345;
  auto next = [&](int64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(n));
  };
  auto draw = [&] {
    Geometry g;
    g.rank = static_cast<int>(next(4));
    for (int d = 0; d < g.rank; ++d) {
      g.sizes[d] = next(5);
      g.strides[d] = next(7);
    }
    g.offset = next(9);
    g.itemsize = int64_t{1} << next(4);
    return g;
  };
  int hits = 0;
  for (int k = 0; k < 20000; ++k) {
    const Geometry a = draw(), b = draw();
    const bool want = share_a_byte(a, b);
    ASSERT_EQ(elements_intersect(a, b), want)
        << "sizes " << format_sizes(a) << " strides " << format_strides(a) << " offset " << a.offset
        << " itemsize " << a.itemsize << " vs sizes " << format_sizes(b) << " strides "
        << format_strides(b) << " offset " << b.offset << " itemsize " << b.itemsize;
    hits += want;
  }
  EXPECT_GT(hits, 2000);
  EXPECT_LT(hits, 18000);
}

TEST(GeometryElementsIntersect, ExpandedMillionsAreExactNotConservative) {
  // 3,145,728 elements of one offset (an expand of a 0-dim tensor), as the
  // fuzz inputs had: exact on the bitsets, where more than 2^22 elements
  // used to answer "intersect" without looking.
  Geometry big = Geometry::of({4, 2, 4, 1, 8, 3, 4096}, {0, 0, 0, 0, 0, 0, 0}, 0, 8);
  Geometry huge = Geometry::of({1 << 12, 1 << 12}, {0, 0}, 3, 4);  // 2^24 elements at byte 12
  EXPECT_TRUE(elements_intersect(big, Geometry::of({3}, {1}, 0, 8)));
  EXPECT_FALSE(elements_intersect(big, Geometry::of({3}, {1}, 1, 8)));
  EXPECT_TRUE(elements_intersect(huge, Geometry::of({2}, {1}, 1, 8)));   // bytes [8, 24)
  EXPECT_FALSE(elements_intersect(huge, Geometry::of({2}, {2}, 0, 8)));  // [0,8), [16,24)
}

TEST(GeometryElementsIntersect, WideSpansSortTheOffsets) {
  // A span past the bitset's limit (2^25 offsets): the sorted offsets.
  const int64_t far = int64_t{1} << 26;
  EXPECT_TRUE(elements_intersect(Geometry::of({2}, {far}, 0, 4), Geometry::of({1}, {1}, far, 4)));
  EXPECT_FALSE(
      elements_intersect(Geometry::of({2}, {far}, 0, 4), Geometry::of({1}, {1}, far + 1, 4)));
}

TEST(GeometrySameLayout, EveryFieldCountsStridesOnlyUpToTheRank) {
  Geometry a = Geometry::of({2, 3}, {3, 1}, 1, 4);
  Geometry b = a;
  b.strides[5] = 7;  // past the rank: not a stride
  EXPECT_TRUE(same_layout(a, b));
  EXPECT_FALSE(same_layout(a, Geometry::of({2, 3}, {1, 2}, 1, 4)));
  EXPECT_FALSE(same_layout(a, Geometry::of({2, 3}, {3, 1}, 0, 4)));
  EXPECT_FALSE(same_layout(a, Geometry::of({2, 3}, {3, 1}, 1, 8)));
  EXPECT_FALSE(same_layout(a, Geometry::of({3, 2}, {3, 1}, 1, 4)));
}

// --- contiguous_strides -----------------------------------------------------------

TEST(GeometryContiguousStrides, RowMajor) {
  int64_t sizes[] = {2, 3, 4};
  int64_t strides[3] = {};
  contiguous_strides(3, sizes, strides);
  EXPECT_EQ(strides[0], 12);
  EXPECT_EQ(strides[1], 4);
  EXPECT_EQ(strides[2], 1);
}

TEST(GeometryContiguousStrides, ZeroAndOneSizedDimsCountAsOne) {
  // torch.empty(2, 0, 3).stride() == (3, 3, 1); torch.empty(2, 1, 3).stride() == (3, 3, 1)
  int64_t zero[] = {2, 0, 3};
  int64_t one[] = {2, 1, 3};
  int64_t s0[3] = {}, s1[3] = {};
  contiguous_strides(3, zero, s0);
  contiguous_strides(3, one, s1);
  EXPECT_EQ(std::vector<int64_t>(s0, s0 + 3), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(std::vector<int64_t>(s1, s1 + 3), (std::vector<int64_t>{3, 3, 1}));
}

// --- for_each_offset ----------------------------------------------------------------

TEST(GeometryForEachOffset, VisitsRowMajorLogicalOrder) {
  // Transposed (2,3) with strides (1,2) from offset 5.
  EXPECT_EQ(offsets_of(Geometry::of({2, 3}, {1, 2}, 5, 4)),
            (std::vector<int64_t>{5, 7, 9, 6, 8, 10}));
}

TEST(GeometryForEachOffset, StrideZeroRepeatsOffsets) {
  EXPECT_EQ(offsets_of(Geometry::of({2, 2}, {0, 1}, 1, 4)), (std::vector<int64_t>{1, 2, 1, 2}));
}

TEST(GeometryForEachOffset, RankZeroVisitsTheOffsetOnce) {
  EXPECT_EQ(offsets_of(Geometry::of({}, {}, 3, 4)), (std::vector<int64_t>{3}));
}

TEST(GeometryForEachOffset, EmptyVisitsNothing) {
  EXPECT_TRUE(offsets_of(Geometry::of({2, 0, 3}, {3, 3, 1}, 0, 4)).empty());
}

// --- observe_by_offset, distinct_offsets (Note [Observing overlapping views]) ---

/// for_each_offset's offsets, sorted and deduplicated: what distinct_offsets
/// must equal.
std::vector<int64_t> brute_distinct(const Geometry& g) {
  std::vector<int64_t> v = offsets_of(g);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TEST(GeometryDistinctOffsets, ExpandReachesOnlyTheBaseElements) {
  // expand of a [4] tensor at offset 2 to [100000, 1000, 4]: 4e8 elements.
  Geometry g = Geometry::of({100000, 1000, 4}, {0, 0, 1}, 2, 4);
  EXPECT_TRUE(observe_by_offset(g));
  EXPECT_EQ(distinct_offsets(g), (std::vector<int64_t>{2, 3, 4, 5}));
}

TEST(GeometryDistinctOffsets, OverlappingStridesReachTheirSums) {
  // as_strided [3, 4] [2, 1]: offsets 0..7, some twice; with gaps: [2, 3] [5, 2].
  EXPECT_EQ(distinct_offsets(Geometry::of({3, 4}, {2, 1}, 0, 4)),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(distinct_offsets(Geometry::of({2, 3}, {5, 2}, 1, 4)),
            (std::vector<int64_t>{1, 3, 5, 6, 8, 10}));
}

TEST(GeometryDistinctOffsets, EmptyAndScalar) {
  EXPECT_TRUE(distinct_offsets(Geometry::of({2, 0}, {1, 1}, 0, 4)).empty());
  EXPECT_EQ(distinct_offsets(Geometry::of({}, {}, 7, 4)), (std::vector<int64_t>{7}));
}

TEST(GeometryDistinctOffsets, MatchesEnumerationOnManyShapes) {
  // Every combination of sizes and strides below, across word boundaries
  // (strides up to 70, spans past 128 bits) and odd size counts (the
  // doubling's last partial step).
  const int64_t sizes[] = {1, 2, 3, 5, 7, 64};
  const int64_t strides[] = {0, 1, 3, 63, 64, 70};
  int checked = 0;
  for (int64_t m0 : sizes)
    for (int64_t m1 : sizes)
      for (int64_t s0 : strides)
        for (int64_t s1 : strides) {
          Geometry g = Geometry::of({m0, 3, m1}, {s0, 5, s1}, 9, 2);
          ASSERT_EQ(distinct_offsets(g), brute_distinct(g))
              << "sizes [" << m0 << ",3," << m1 << "] strides [" << s0 << ",5," << s1 << "]";
          ++checked;
        }
  EXPECT_EQ(checked, 6 * 6 * 6 * 6);
}

TEST(GeometryObserveByOffset, OnlyLargeViewsThatRepeatOffsets) {
  // Repeats offsets but numel 65536 is not above kObserveAllElements.
  EXPECT_FALSE(observe_by_offset(Geometry::of({65536}, {0}, 0, 4)));
  EXPECT_TRUE(observe_by_offset(Geometry::of({65537}, {0}, 0, 4)));
  // Large but reaches numel distinct offsets (contiguous, strided, transposed).
  EXPECT_FALSE(observe_by_offset(Geometry::of({1 << 20}, {1}, 0, 1)));
  EXPECT_FALSE(observe_by_offset(Geometry::of({1024, 1024}, {1, 2048}, 0, 1)));
  // Overlapping strides: numel 90000 > span 599.
  EXPECT_TRUE(observe_by_offset(Geometry::of({300, 300}, {1, 1}, 0, 4)));
  // Numel overflow or a negative stride: never (callers reject those views).
  EXPECT_FALSE(observe_by_offset(Geometry::of({kTwo62, 4}, {0, 0}, 0, 4)));
  EXPECT_FALSE(observe_by_offset(Geometry::of({1 << 20}, {-1}, 0, 4)));
}

// --- read_observed_elements -------------------------------------------------

TEST(GeometryReadObservedElements, EqualsElementByElementCopyOnManyLayouts) {
  // Contiguous, row-sliced, transposed, expanded and size-1 dims, with an
  // offset, for every itemsize of a dtype and a 2- and a 3-byte one (the
  // per-element copy has a case per itemsize and a general one): the bytes
  // of for_each_offset's elements, in order, appended after what the
  // vector held.
  std::vector<uint8_t> storage(8 * 4096);
  for (size_t k = 0; k < storage.size(); ++k) storage[k] = static_cast<uint8_t>(k * 7 + k / 256);
  const int64_t sizes[] = {1, 2, 3};
  const int64_t strides[] = {0, 1, 2, 3, 6, 12};
  int checked = 0;
  for (int64_t is : {1, 2, 3, 4, 8})
    for (int64_t m0 : sizes)
      for (int64_t m2 : sizes)
        for (int64_t s0 : strides)
          for (int64_t s1 : strides)
            for (int64_t s2 : strides) {
              Geometry g = Geometry::of({m0, 3, m2}, {s0, s1, s2}, 5, is);
              std::vector<uint8_t> want = {9}, got = {9};
              for_each_offset(g, [&](int64_t o) {
                want.insert(want.end(), storage.begin() + is * o, storage.begin() + is * (o + 1));
              });
              read_observed_elements(storage.data(), g, &got);
              ASSERT_EQ(got, want) << "itemsize " << is << " sizes [" << m0 << ",3," << m2
                                   << "] strides [" << s0 << "," << s1 << "," << s2 << "]";
              ++checked;
            }
  EXPECT_EQ(checked, 5 * 3 * 3 * 6 * 6 * 6);
  std::vector<uint8_t> scalar;
  read_observed_elements(storage.data(), Geometry::of({}, {}, 3, 2), &scalar);
  EXPECT_EQ(scalar, (std::vector<uint8_t>{storage[6], storage[7]}));
}

}  // namespace
}  // namespace storcheck
