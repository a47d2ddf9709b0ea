// Unit tests of impl/sparse.h: sparse layouts against PyTorch 1.13.
//
// Every expectation (nnz, indices, values, strides, error kinds and the
// order of checks) was checked by running the same call in torch 1.13 on
// CPU; the comment above a case gives the Python it mirrors. Where the
// reference applies a harness policy that LibTorch lacks (S8, allocation
// limits) or follows SEMANTICS F4 rather than 1.13, the test says so.
#include "impl/sparse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/ops.h"

namespace storcheck {

// Lets gtest print ErrorKind by name (internal linkage: found by ADL).
static void PrintTo(ErrorKind k, std::ostream* os) { *os << error_kind_name(k); }

namespace {

using I = std::vector<int64_t>;
using D = std::vector<double>;

/// An int list literal usable where an IntSpan is expected.
struct Ints {
  std::vector<int64_t> v;
  Ints(std::initializer_list<int64_t> l) : v(l) {}
  operator IntSpan() const { return IntSpan(v.data(), static_cast<int>(v.size())); }  // NOLINT
};

template <typename T>
T must(Result<T> r) {
  if (!r.ok())
    throw std::runtime_error("unexpected error " + std::string(error_kind_name(r.error().kind)) +
                             ": " + r.error().message);
  return std::move(r).value();
}

template <typename T>
ErrorKind kind(const Result<T>& r) {
  return r.ok() ? ErrorKind::kNone : r.error().kind;
}
ErrorKind kind(const Status& s) { return s.ok() ? ErrorKind::kNone : s.error().kind; }

template <typename T>
std::string message(const Result<T>& r) {
  return r.ok() ? "" : r.error().message;
}

I sizes(const Tensor& t) { return I(t->geom.sizes.begin(), t->geom.sizes.begin() + t->rank()); }
I strides(const Tensor& t) {
  return I(t->geom.strides.begin(), t->geom.strides.begin() + t->rank());
}
I sizes(const Geometry& g) { return I(g.sizes.begin(), g.sizes.begin() + g.rank); }
I strides(const Geometry& g) { return I(g.strides.begin(), g.strides.begin() + g.rank); }

/// Elements in row-major order, as doubles (exact for the small values used).
D elems(const Tensor& t) {
  std::vector<uint8_t> bytes;
  read_elements(*t, &bytes);
  D out;
  for (size_t k = 0; k < bytes.size(); k += static_cast<size_t>(t->geom.itemsize))
    out.push_back(load_as_double(bytes.data() + k, t->dtype));
  return out;
}

class SparseTest : public ::testing::Test {
 protected:
  Context ctx;

  /// torch.tensor(vals, dtype=d).view(shape)
  Tensor tensor(Ints shape, D vals, DType d = DType::kF32) {
    Tensor t = must(zeros(ctx, shape, d));
    SC_ASSERT(static_cast<int64_t>(vals.size()) == t->numel(), "Incorrect usage: value count");
    for (size_t k = 0; k < vals.size(); ++k)
      store_double(t->storage->mutable_data() + k * t->geom.itemsize, d, vals[k]);
    return t;
  }
  Tensor longs(Ints shape, D vals) { return tensor(shape, vals, DType::kI64); }

  /// [[0, 1, 0], [2, 0, 3]]
  Tensor x23() { return tensor({2, 3}, {0, 1, 0, 2, 0, 3}); }
  /// A 4x4 matrix whose 2x2 blocks (0,0) and (1,1) are the only nonzero ones.
  Tensor y44() { return tensor({4, 4}, {1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 6, 0}); }
};

// === Layout names ==================================================================

TEST_F(SparseTest, LayoutNamesAreTorchLayoutNames) {
  EXPECT_EQ(sparse_layout_name(SparseLayout::kStrided), "strided");
  EXPECT_EQ(sparse_layout_name(SparseLayout::kCoo), "sparse_coo");
  EXPECT_EQ(sparse_layout_name(SparseLayout::kCsr), "sparse_csr");
  EXPECT_EQ(sparse_layout_name(SparseLayout::kCsc), "sparse_csc");
  EXPECT_EQ(sparse_layout_name(SparseLayout::kBsr), "sparse_bsr");
  EXPECT_EQ(sparse_layout_name(SparseLayout::kBsc), "sparse_bsc");
  EXPECT_EQ(sparse_layout_name(static_cast<SparseLayout>(42)), "unknown");
}

// === Strided -> COO =================================================================

TEST_F(SparseTest, ToSparseCooKeepsNonzerosSortedAndRoundTrips) {
  // x.to_sparse(): indices [[0,1,1],[1,0,2]], values [1,2,3], coalesced
  Tensor x = x23();
  SparseTensor s = must(to_sparse_coo(ctx, x, 2));
  EXPECT_EQ(s->layout, SparseLayout::kCoo);
  EXPECT_EQ(s->nnz(), 3);
  EXPECT_EQ(s->sparse_dim, 2);
  EXPECT_EQ(s->dense_dim, 0);
  EXPECT_TRUE(s->coalesced);
  EXPECT_EQ(sizes(s->indices), (I{2, 3}));
  EXPECT_EQ(strides(s->indices), (I{3, 1}));
  EXPECT_EQ(s->indices->dtype, DType::kI64);
  EXPECT_EQ(elems(s->indices), (D{0, 1, 1, 1, 0, 2}));
  EXPECT_EQ(elems(s->values), (D{1, 2, 3}));
  Tensor d = must(to_dense(ctx, s));
  EXPECT_EQ(elems(d), elems(x));
  EXPECT_EQ(sizes(d), (I{2, 3}));
  EXPECT_EQ(strides(d), (I{3, 1}));
  EXPECT_NE(d->storage, x->storage);
}

TEST_F(SparseTest, ToSparseCooHybridStoresSlicesWithAnyNonzero) {
  // torch.tensor([[0,1,0],[0,0,0],[2,0,3]]).to_sparse(1): nnz 2, dense_dim 1
  Tensor x = tensor({3, 3}, {0, 1, 0, 0, 0, 0, 2, 0, 3});
  SparseTensor s = must(to_sparse_coo(ctx, x, 1));
  EXPECT_EQ(s->nnz(), 2);
  EXPECT_EQ(s->dense_dim, 1);
  EXPECT_EQ(elems(s->indices), (D{0, 2}));
  EXPECT_EQ(strides(s->indices), (I{1, 1})) << "unique_dim's strides, kept by contiguous()";
  EXPECT_EQ(sizes(s->values), (I{2, 3}));
  EXPECT_EQ(strides(s->values), (I{3, 1}));
  EXPECT_EQ(elems(s->values), (D{0, 1, 0, 2, 0, 3}));
  EXPECT_EQ(elems(must(to_dense(ctx, s))), elems(x));
}

TEST_F(SparseTest, ToSparseCooHybridWithOneSliceKeepsUniqueDimStrides) {
  // torch.tensor([[[0.,1],[0,0]],[[0,0],[0,0]]]).to_sparse(2)._indices(): [2, 1], strides (1, 2)
  SparseTensor s = must(to_sparse_coo(ctx, tensor({2, 2, 2}, {0, 1, 0, 0, 0, 0, 0, 0}), 2));
  EXPECT_EQ(sizes(s->indices), (I{2, 1}));
  EXPECT_EQ(strides(s->indices), (I{1, 2}));
  // With more than one slice they are contiguous: arange(8.).view(2,2,2).to_sparse(2)
  SparseTensor m = must(to_sparse_coo(ctx, must(arange(ctx, Ints{2, 2, 2}, DType::kF32)), 2));
  EXPECT_EQ(strides(m->indices), (I{4, 1}));
}

TEST_F(SparseTest, ToSparseCooOfNonContiguousInputReadsLogicalOrder) {
  // x.t().to_sparse(): indices [[0,1,2],[1,0,1]], values [2,1,3]
  Tensor xt = must(t(x23()));
  SparseTensor s = must(to_sparse_coo(ctx, xt, 2));
  EXPECT_EQ(elems(s->indices), (D{0, 1, 2, 1, 0, 1}));
  EXPECT_EQ(elems(s->values), (D{2, 1, 3}));
  EXPECT_EQ(elems(must(to_dense(ctx, s))), elems(xt));
}

TEST_F(SparseTest, ToSparseCooValuesFollowTheInputsDenseLayout) {
  // Note [Values layout of to_sparse]. b = arange(1,25.).view(2,3,4).transpose(1,2)
  // (strides (12,1,4)); b.to_sparse(1)._values(): sizes [2,4,3], strides (12,1,4)
  Tensor b = must(transpose(must(arange(ctx, Ints{2, 3, 4}, DType::kF32)), 1, 2));
  SparseTensor s = must(to_sparse_coo(ctx, b, 1));
  EXPECT_EQ(sizes(s->values), (I{2, 4, 3}));
  EXPECT_EQ(strides(s->values), (I{12, 1, 4}));
  EXPECT_EQ(elems(s->values), elems(b)) << "the same elements, in the new layout";
  EXPECT_EQ(elems(must(to_dense(ctx, s))), elems(b));
  // b.to_sparse(2)._values(): one dense dim, [8, 3] contiguous (3, 1)
  SparseTensor s2 = must(to_sparse_coo(ctx, b, 2));
  EXPECT_EQ(strides(s2->values), (I{3, 1}));
  // a = arange(1,25.).view(2,3,4).permute(2,0,1) (strides (1,12,4)):
  // a.to_sparse(1)._values() is contiguous, (6, 3, 1)
  Tensor a = must(permute(must(arange(ctx, Ints{2, 3, 4}, DType::kF32)), Ints{2, 0, 1}));
  EXPECT_EQ(strides(must(to_sparse_coo(ctx, a, 1))->values), (I{6, 3, 1}));
  // c = arange(1,7.).view(1,1,2,3).transpose(2,3) (strides (6,6,1,3)), nnz 1:
  // c.to_sparse(2)._values(): [1,3,2], strides (6, 1, 3)
  Tensor c = must(transpose(must(arange(ctx, Ints{1, 1, 2, 3}, DType::kF32)), 2, 3));
  SparseTensor s3 = must(to_sparse_coo(ctx, c, 2));
  EXPECT_EQ(sizes(s3->values), (I{1, 3, 2}));
  EXPECT_EQ(strides(s3->values), (I{6, 1, 3}));
  EXPECT_EQ(elems(must(to_dense(ctx, s3))), elems(c));
  // A size-1 dim keeps its own stride in the TensorIterator's order:
  // e = full([1,1,1,1,3,1,5], 2.); e.transpose_(1, -2); e.to_sparse(2)._values()
  // has strides (15, 15, 15, 5, 15, 1), not contiguous (15, 15, 15, 5, 5, 1)
  Tensor e = must(full(ctx, Ints{1, 1, 1, 1, 3, 1, 5}, Scalar::floating(2), DType::kF32));
  ASSERT_TRUE(transpose_(e, 1, -2).ok());
  SparseTensor s4 = must(to_sparse_coo(ctx, e, 2));
  EXPECT_EQ(strides(s4->values), (I{15, 15, 15, 5, 15, 1}));
  EXPECT_EQ(elems(must(to_dense(ctx, s4))), elems(e));
}

TEST_F(SparseTest, ToSparseCooOfZerosHasNnzZero) {
  // torch.zeros(2, 3).to_sparse(): indices [2, 0], values [0], coalesced
  SparseTensor s = must(to_sparse_coo(ctx, must(zeros(ctx, Ints{2, 3}, DType::kF32)), 2));
  EXPECT_EQ(s->nnz(), 0);
  EXPECT_TRUE(s->coalesced);
  EXPECT_EQ(sizes(s->indices), (I{2, 0}));
  EXPECT_EQ(sizes(s->values), (I{0}));
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{0, 0, 0, 0, 0, 0}));
}

TEST_F(SparseTest, ToSparseCooOfZeroDimTensorKeepsOneOrNoValue) {
  // torch.tensor(3.).to_sparse(0): indices [0, 1], values [3]; of 0.: nnz 0
  SparseTensor s = must(to_sparse_coo(ctx, tensor({}, {3}), 0));
  EXPECT_EQ(s->nnz(), 1);
  EXPECT_EQ(sizes(s->indices), (I{0, 1}));
  Tensor d = must(to_dense(ctx, s));
  EXPECT_EQ(d->rank(), 0);
  EXPECT_EQ(elems(d), (D{3}));
  EXPECT_EQ(must(to_sparse_coo(ctx, tensor({}, {0}), 0))->nnz(), 0);
}

TEST_F(SparseTest, ToSparseCooSparseDimOutsideOneToRankIsDimOutOfRange) {
  // 1.13: "sparse_dim must be >0 if dimensionality > 0" for 0 and -1,
  // "sparse_dim must be less than or equal to self.dim()" for 3.
  Tensor x = x23();
  EXPECT_EQ(kind(to_sparse_coo(ctx, x, 0)), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind(to_sparse_coo(ctx, x, -1)), ErrorKind::kDimOutOfRange);
  auto r = to_sparse_coo(ctx, x, 3);
  EXPECT_EQ(kind(r), ErrorKind::kDimOutOfRange);
  EXPECT_NE(message(r).find("less than or equal to self.dim()"), std::string::npos) << message(r);
  // 0-d, sparse_dim -1: 1.13 fails in narrow (nonzero value) or in empty (zero).
  EXPECT_EQ(kind(to_sparse_coo(ctx, tensor({}, {3}), -1)), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(to_sparse_coo(ctx, tensor({}, {0}), -1)), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(to_sparse_coo(ctx, tensor({}, {3}), 1)), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(ctx.budget.used, 6 * 4 + 3 * 4);  // only the inputs: failed steps allocate nothing
}

TEST_F(SparseTest, ToSparseCooCountsNanAsNonzeroAndNegativeZeroAsZero) {
  // torch.tensor([nan, 0., -0.]).to_sparse(): nnz 1 at index 0
  SparseTensor s = must(to_sparse_coo(ctx, tensor({3}, {NAN, 0.0, -0.0}), 1));
  EXPECT_EQ(s->nnz(), 1);
  EXPECT_EQ(elems(s->indices), (D{0}));
}

// === Strided -> compressed ===========================================================

TEST_F(SparseTest, ToSparseCsrRoundTrips) {
  // x.to_sparse_csr(): crow [0,1,3], col [1,0,2], values [1,2,3], int64
  Tensor x = x23();
  SparseTensor s = must(to_sparse_csr(ctx, x));
  EXPECT_EQ(s->layout, SparseLayout::kCsr);
  EXPECT_EQ(s->nnz(), 3);
  EXPECT_EQ(s->sparse_dim, 2);
  EXPECT_EQ(s->dense_dim, 0);
  EXPECT_EQ(s->index_dtype, DType::kI64);
  EXPECT_EQ(elems(s->compressed_indices), (D{0, 1, 3}));
  EXPECT_EQ(elems(s->plain_indices), (D{1, 0, 2}));
  EXPECT_EQ(elems(s->values), (D{1, 2, 3}));
  Tensor d = must(to_dense(ctx, s));
  EXPECT_EQ(elems(d), elems(x));
  EXPECT_EQ(strides(d), (I{3, 1}));
}

TEST_F(SparseTest, ToSparseCscRoundTripsToTransposedStrides) {
  // x.to_sparse_csc(): ccol [0,1,2,3], row [1,0,1], values [2,1,3];
  // to_dense().stride() == (1, 2). See Note [to_dense strides].
  Tensor x = x23();
  SparseTensor s = must(to_sparse_csc(ctx, x));
  EXPECT_EQ(elems(s->compressed_indices), (D{0, 1, 2, 3}));
  EXPECT_EQ(elems(s->plain_indices), (D{1, 0, 1}));
  EXPECT_EQ(elems(s->values), (D{2, 1, 3}));
  Tensor d = must(to_dense(ctx, s));
  EXPECT_EQ(elems(d), elems(x));
  EXPECT_EQ(sizes(d), (I{2, 3}));
  EXPECT_EQ(strides(d), (I{1, 2}));
}

TEST_F(SparseTest, ToSparseBsrAndBscStoreBlocksWithAnyNonzero) {
  // y.to_sparse_bsr((2,2)): crow [0,1,2], col [0,1], values [2,2,2];
  // y.to_sparse_bsc((2,2)): ccol [0,1,2], row [0,1]
  Tensor y = y44();
  SparseTensor r = must(to_sparse_bsr(ctx, y, {2, 2}));
  EXPECT_EQ(r->nnz(), 2);
  EXPECT_EQ((r->blocksize), (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(elems(r->compressed_indices), (D{0, 1, 2}));
  EXPECT_EQ(elems(r->plain_indices), (D{0, 1}));
  EXPECT_EQ(sizes(r->values), (I{2, 2, 2}));
  EXPECT_EQ(strides(r->values), (I{4, 2, 1}));
  EXPECT_EQ(elems(r->values), (D{1, 2, 0, 0, 0, 5, 6, 0}));
  Tensor dr = must(to_dense(ctx, r));
  EXPECT_EQ(elems(dr), elems(y));
  EXPECT_EQ(strides(dr), (I{4, 1}));
  SparseTensor c = must(to_sparse_bsc(ctx, y, {2, 2}));
  EXPECT_EQ(elems(c->compressed_indices), (D{0, 1, 2}));
  EXPECT_EQ(elems(c->plain_indices), (D{0, 1}));
  Tensor dc = must(to_dense(ctx, c));
  EXPECT_EQ(elems(dc), elems(y));
  EXPECT_EQ(strides(dc), (I{4, 1}));
}

TEST_F(SparseTest, ToSparseBsrAndBscWithOneByTwoBlocksOrderBlocksByRowOrColumn) {
  // y.to_sparse_bsr((1,2)): crow [0,1,1,2,3], col [0,1,1], values [3,1,2]
  // y.to_sparse_bsc((1,2)): ccol [0,1,3], row [0,2,3]
  Tensor y = y44();
  SparseTensor r = must(to_sparse_bsr(ctx, y, {1, 2}));
  EXPECT_EQ(elems(r->compressed_indices), (D{0, 1, 1, 2, 3}));
  EXPECT_EQ(elems(r->plain_indices), (D{0, 1, 1}));
  EXPECT_EQ(sizes(r->values), (I{3, 1, 2}));
  EXPECT_EQ(elems(must(to_dense(ctx, r))), elems(y));
  SparseTensor c = must(to_sparse_bsc(ctx, y, {1, 2}));
  EXPECT_EQ(elems(c->compressed_indices), (D{0, 1, 3}));
  EXPECT_EQ(elems(c->plain_indices), (D{0, 2, 3}));
  EXPECT_EQ(elems(c->values), (D{1, 2, 0, 5, 6, 0}));
  EXPECT_EQ(elems(must(to_dense(ctx, c))), elems(y));
}

TEST_F(SparseTest, ToDenseOfBlockedLayoutsGivesOneThirteenViewOrCopyStrides) {
  // torch.tensor([[.5,-3],[-3,1]]).to_sparse_bsr((2,1)).to_dense().stride() == (1, 2)
  // (a view of the block buffer); torch.ones(3,4,4).to_sparse_bsr((2,1)): (16, 4, 1) (a copy).
  Tensor x = tensor({2, 2}, {0.5, -3, -3, 1});
  Tensor d = must(to_dense(ctx, must(to_sparse_bsr(ctx, x, {2, 1}))));
  EXPECT_EQ(elems(d), elems(x));
  EXPECT_EQ(strides(d), (I{1, 2}));
  EXPECT_EQ(strides(must(to_dense(ctx, must(to_sparse_bsc(ctx, x, {2, 1}))))), (I{1, 2}));
  EXPECT_EQ(strides(must(to_dense(ctx, must(to_sparse_bsr(ctx, x, {1, 2}))))), (I{2, 1}));
  Tensor b = tensor({3, 4, 4}, D(48, 1));
  Tensor db = must(to_dense(ctx, must(to_sparse_bsr(ctx, b, {2, 1}))));
  EXPECT_EQ(elems(db), elems(b));
  EXPECT_EQ(strides(db), (I{16, 4, 1}));
}

TEST_F(SparseTest, ToDenseOfBlockedLayoutChargesTheResultOnce) {
  // The copy of Case 3) of Note [to_dense strides] replaces the blocks
  // buffer: the budget counts the result's 48 * 4 bytes once, as the LibTorch
  // backend does, so a total with room for one result is enough.
  Tensor b = tensor({3, 4, 4}, D(48, 1));
  SparseTensor s = must(to_sparse_bsr(ctx, b, {2, 1}));
  ctx.budget.max_total_bytes = ctx.budget.used + 48 * 4;
  Tensor db = must(to_dense(ctx, s));
  EXPECT_EQ(strides(db), (I{16, 4, 1}));  // the copy, not a view
  EXPECT_EQ(ctx.budget.used, ctx.budget.max_total_bytes);
  EXPECT_EQ(kind(to_dense(ctx, s)), ErrorKind::kResourceLimit);  // no room for a second
}

TEST_F(SparseTest, ToSparseCsrOfBatchRequiresEqualNnzPerBatch) {
  // b.to_sparse_csr() for b = [[[1,0],[0,2]], [[0,3],[4,0]]]:
  // crow [[0,1,2],[0,1,2]], col [[0,1],[1,0]], values [[1,2],[3,4]]
  Tensor b = tensor({2, 2, 2}, {1, 0, 0, 2, 0, 3, 4, 0});
  SparseTensor s = must(to_sparse_csr(ctx, b));
  EXPECT_EQ(s->batch_dim(), 1);
  EXPECT_EQ(s->nnz(), 2);
  EXPECT_EQ(sizes(s->compressed_indices), (I{2, 3}));
  EXPECT_EQ(elems(s->compressed_indices), (D{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(elems(s->plain_indices), (D{0, 1, 1, 0}));
  EXPECT_EQ(elems(s->values), (D{1, 2, 3, 4}));
  EXPECT_EQ(elems(must(to_dense(ctx, s))), elems(b));
  // CSC of a batch densifies to strides (4, 1, 2).
  Tensor dc = must(to_dense(ctx, must(to_sparse_csc(ctx, b))));
  EXPECT_EQ(elems(dc), elems(b));
  EXPECT_EQ(strides(dc), (I{4, 1, 2}));
  // "Expect the same number of specified elements per batch."
  Tensor uneven = tensor({2, 2, 2}, {1, 0, 0, 2, 0, 3, 0, 0});
  EXPECT_EQ(kind(to_sparse_csr(ctx, uneven)), ErrorKind::kInvalidArgument);
  // "to_sparse_csr: Expected product of batch dimensions to be non-zero."
  auto r = to_sparse_bsc(ctx, must(zeros(ctx, Ints{0, 2, 2}, DType::kF32)), {1, 2});
  EXPECT_EQ(kind(r), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(r).find("product of batch dimensions"), std::string::npos) << message(r);
}

TEST_F(SparseTest, ToSparseBsrBlocksizeErrorsInOneThirteenOrder) {
  Tensor y = y44();
  // "blocksize needs to be non zero, but got [0, 2]" (also for negatives)
  EXPECT_EQ(kind(to_sparse_bsr(ctx, y, {0, 2})), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(to_sparse_bsc(ctx, y, {-1, 2})), ErrorKind::kInvalidArgument);
  // "Tensor size(-2) 4 needs to be divisible by blocksize[0] 3"
  auto r = to_sparse_bsr(ctx, y, {3, 2});
  EXPECT_EQ(kind(r), ErrorKind::kShapeMismatch);
  EXPECT_NE(message(r).find("size(-2) 4 needs to be divisible by blocksize[0] 3"),
            std::string::npos);
  auto c = to_sparse_bsc(ctx, y, {2, 3});
  EXPECT_EQ(kind(c), ErrorKind::kShapeMismatch);
  EXPECT_NE(message(c).find("size(-1) 4 needs to be divisible by blocksize[1] 3"),
            std::string::npos);
  // The blocksize is checked before the rank: a 1-d input with blocksize 0
  // fails on the blocksize, with blocksize 2 on dim -2.
  Tensor v = tensor({4}, {1, 1, 1, 1});
  EXPECT_EQ(kind(to_sparse_bsr(ctx, v, {0, 2})), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(to_sparse_bsr(ctx, v, {2, 2})), ErrorKind::kDimOutOfRange);
  // A 0-element input only needs divisibility: torch.zeros(0, 4).to_sparse_bsr((3, 2))
  SparseTensor e = must(to_sparse_bsr(ctx, must(zeros(ctx, Ints{0, 4}, DType::kF32)), {3, 2}));
  EXPECT_EQ(e->nnz(), 0);
  EXPECT_EQ(sizes(e->values), (I{0, 3, 2}));
}

TEST_F(SparseTest, ToSparseCompressedOfRankBelowTwoFailsWhere113Fails) {
  // csr of 1-d: expand(... [1, 3] ..., size=[3]) error; csr of 0-d:
  // "Dimension specified as -1"; csc of 1-d: "Dimension out of range".
  EXPECT_EQ(kind(to_sparse_csr(ctx, tensor({3}, {1, 1, 1}))), ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(to_sparse_csr(ctx, tensor({}, {1}))), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind(to_sparse_csc(ctx, tensor({3}, {1, 1, 1}))), ErrorKind::kDimOutOfRange);
  EXPECT_EQ(kind(to_sparse_bsc(ctx, tensor({}, {1}), {1, 1})), ErrorKind::kDimOutOfRange);
}

// === sparse_coo_tensor, to_dense, coalesce ===============================================

TEST_F(SparseTest, DuplicatesSumInToDenseAndCoalesce) {
  // s = torch.sparse_coo_tensor([[1,0,1],[2,0,2]], [1.,2,3], (2,3)):
  // not coalesced; to_dense [[2,0,0],[0,0,4]]; coalesce: [[0,1],[0,2]], [2,4]
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({2, 3}, {1, 0, 1, 2, 0, 2}),
                                          tensor({3}, {1, 2, 3}), Ints{2, 3}));
  EXPECT_FALSE(s->coalesced);
  EXPECT_EQ(s->nnz(), 3);
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{2, 0, 0, 0, 0, 4}));
  SparseTensor c = must(coalesce(ctx, s));
  EXPECT_TRUE(c->coalesced);
  EXPECT_EQ(c->nnz(), 2);
  EXPECT_EQ(elems(c->indices), (D{0, 1, 0, 2}));
  EXPECT_EQ(elems(c->values), (D{2, 4}));
  EXPECT_NE(c->values->storage, s->values->storage);
  EXPECT_EQ(elems(must(to_dense(ctx, c))), (D{2, 0, 0, 0, 0, 4}));
  EXPECT_EQ(must(coalesce(ctx, c)), c) << "a coalesced tensor's coalesce() is itself";
}

TEST_F(SparseTest, HybridDuplicatesSumWholeDenseSlices) {
  // sparse_coo_tensor([[1,0,1]], [[1.,2],[3,4],[5,6]], (2,2)):
  // to_dense [[3,4],[6,8]]; coalesce values [[3,4],[6,8]]
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({1, 3}, {1, 0, 1}),
                                          tensor({3, 2}, {1, 2, 3, 4, 5, 6}), Ints{2, 2}));
  EXPECT_EQ(s->sparse_dim, 1);
  EXPECT_EQ(s->dense_dim, 1);
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{3, 4, 6, 8}));
  SparseTensor c = must(coalesce(ctx, s));
  EXPECT_EQ(elems(c->indices), (D{0, 1}));
  EXPECT_EQ(elems(c->values), (D{3, 4, 6, 8}));
  EXPECT_EQ(strides(c->values), (I{2, 1}));
}

// A 0-d value is expanded to one value per index through a bounds-checked
// view: an emptied one (R2) raises out_of_bounds, as LibTorch's expand does
// (regression: corpus/regressions/sparse-coo-of-emptied-0d-values.sc).
TEST_F(SparseTest, CooOfAnEmptiedZeroDimValueIsOutOfBounds) {
  Tensor v = tensor({}, {2.5});
  SparseTensor ok = must(sparse_coo_tensor(ctx, longs({1, 1}, {3}), v, Ints{10}));
  EXPECT_EQ(elems(ok->values), (D{2.5}));
  ASSERT_TRUE(shrink(v).ok());
  Result<SparseTensor> r = sparse_coo_tensor(ctx, longs({1, 1}, {3}), v, Ints{10});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kOutOfBounds);
}

TEST_F(SparseTest, CoalesceNarrowsBuffersSizedForTheOldNnz) {
  // sparse_coo_tensor([[1,0,1],[0,0,0]], ones(3,2), (2,2,2)).coalesce():
  // _indices [2, 2] strides (3, 1) over 48 bytes; _values [2, 2] over 24 bytes
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({2, 3}, {1, 0, 1, 0, 0, 0}),
                                          tensor({3, 2}, D(6, 1)), Ints{2, 2, 2}));
  SparseTensor c = must(coalesce(ctx, s));
  EXPECT_EQ(sizes(c->indices), (I{2, 2}));
  EXPECT_EQ(strides(c->indices), (I{3, 1}));
  EXPECT_EQ(c->indices->storage->nbytes(), 48);
  EXPECT_EQ(elems(c->indices), (D{0, 1, 0, 0}));
  EXPECT_EQ(sizes(c->values), (I{2, 2}));
  EXPECT_EQ(strides(c->values), (I{2, 1}));
  EXPECT_EQ(c->values->storage->nbytes(), 24);
  EXPECT_EQ(elems(c->values), (D{1, 1, 2, 2}));
}

TEST_F(SparseTest, SparseDimZeroSumsEveryValueIntoOne) {
  // sparse_coo_tensor(zeros(0, 3), [[1.,2],[3,4],[5,6]], (2,)): nnz 3,
  // not coalesced, to_dense [9, 12]; coalesce: nnz 1, indices [0, 1]
  SparseTensor s =
      must(sparse_coo_tensor(ctx, longs({0, 3}, {}), tensor({3, 2}, {1, 2, 3, 4, 5, 6}), Ints{2}));
  EXPECT_FALSE(s->coalesced);
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{9, 12}));
  SparseTensor c = must(coalesce(ctx, s));
  EXPECT_EQ(c->nnz(), 1);
  EXPECT_EQ(sizes(c->indices), (I{0, 1}));
  EXPECT_EQ(elems(c->values), (D{9, 12}));
}

TEST_F(SparseTest, DuplicateSumsUseTheDtypeArithmetic) {
  // u8 [200, 100] at one index: 44 (wraps); bool [True, True]: True
  SparseTensor u = must(
      sparse_coo_tensor(ctx, longs({1, 2}, {1, 1}), tensor({2}, {200, 100}, DType::kU8), Ints{2}));
  EXPECT_EQ(elems(must(to_dense(ctx, u))), (D{0, 44}));
  EXPECT_EQ(elems(must(coalesce(ctx, u))->values), (D{44}));
  SparseTensor b = must(
      sparse_coo_tensor(ctx, longs({1, 2}, {1, 1}), tensor({2}, {1, 1}, DType::kBool), Ints{2}));
  EXPECT_EQ(elems(must(to_dense(ctx, b))), (D{0, 1}));
}

TEST_F(SparseTest, SparseCooTensorIsCoalescedOnlyBelowTwoValues) {
  // 1.13: nnz 0 and nnz 1 are coalesced; sorted unique nnz 2 is not.
  SparseTensor s0 = must(sparse_coo_tensor(ctx, longs({2, 0}, {}), tensor({0}, {}), Ints{2, 3}));
  EXPECT_TRUE(s0->coalesced);
  EXPECT_EQ(s0->nnz(), 0);
  EXPECT_EQ(elems(must(to_dense(ctx, s0))), (D{0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(
      must(sparse_coo_tensor(ctx, longs({2, 1}, {0, 1}), tensor({1}, {5}), Ints{2, 2}))->coalesced);
  EXPECT_FALSE(
      must(sparse_coo_tensor(ctx, longs({2, 2}, {0, 1, 0, 1}), tensor({2}, {1, 1}), Ints{2, 2}))
          ->coalesced);
}

TEST_F(SparseTest, SparseCooTensorAliasesItsInputsS3) {
  Tensor i = longs({2, 2}, {0, 1, 1, 0});
  Tensor v = tensor({2}, {1, 2});
  SparseTensor s = must(sparse_coo_tensor(ctx, i, v, Ints{2, 2}));
  EXPECT_EQ(s->indices->storage, i->storage);
  EXPECT_EQ(s->values->storage, v->storage);
  ASSERT_TRUE(fill_(v, Scalar::integer(7)).ok());
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{0, 7, 7, 0}));
}

TEST_F(SparseTest, SparseCooTensorExpandsZeroDimValues) {
  // sparse_coo_tensor([[0],[1]], tensor(5.), (2,2))._values(): size [1], stride (0,)
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({2, 1}, {0, 1}), tensor({}, {5}), Ints{2, 2}));
  EXPECT_EQ(sizes(s->values), (I{1}));
  EXPECT_EQ(strides(s->values), (I{0}));
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{0, 5, 0, 0}));
}

TEST_F(SparseTest, SparseCooTensorValidatesInOneThirteenOrder) {
  Tensor v2 = tensor({2}, {1, 1});
  // "indices must be sparse_dim x nnz, but got: [2]"
  EXPECT_EQ(kind(sparse_coo_tensor(ctx, longs({2}, {0, 1}), v2, Ints{2, 2})),
            ErrorKind::kInvalidArgument);
  // "number of dimensions must be sparse_dim (2) + dense_dim (0), but got 3"
  EXPECT_EQ(kind(sparse_coo_tensor(ctx, longs({2, 1}, {0, 1}), tensor({1}, {1}), Ints{2, 2, 2})),
            ErrorKind::kShapeMismatch);
  // "found negative index -1 for dim 0"
  auto neg = sparse_coo_tensor(ctx, longs({2, 2}, {0, -1, 1, 0}), v2, Ints{2, 2});
  EXPECT_EQ(kind(neg), ErrorKind::kIndexOutOfRange);
  EXPECT_NE(message(neg).find("found negative index -1 for dim 0"), std::string::npos)
      << message(neg);
  // dim 1 holds both -1 and 5: the negative index is reported first.
  auto both = sparse_coo_tensor(ctx, longs({2, 2}, {0, 2, -1, 5}), v2, Ints{3, 2});
  EXPECT_NE(message(both).find("found negative index -1 for dim 1"), std::string::npos)
      << message(both);
  // "size is inconsistent with indices: for dim 0, size is 2 but found index 2"
  EXPECT_EQ(kind(sparse_coo_tensor(ctx, longs({2, 2}, {0, 2, 1, 0}), v2, Ints{2, 2})),
            ErrorKind::kIndexOutOfRange);
  // A negative size with nnz 0: "numel: integer multiplication overflow"
  EXPECT_EQ(kind(sparse_coo_tensor(ctx, longs({1, 0}, {}), tensor({0}, {}), Ints{-2})),
            ErrorKind::kStorageSizeOverflow);
  // "indices and values must have same nnz, but got nnz from indices: 2, nnz from values: 3"
  EXPECT_EQ(
      kind(sparse_coo_tensor(ctx, longs({2, 2}, {0, 1, 1, 0}), tensor({3}, {1, 1, 1}), Ints{2, 2})),
      ErrorKind::kShapeMismatch);
  // "values has incorrect size, expected [2, 3], got [2, 4]"
  EXPECT_EQ(
      kind(sparse_coo_tensor(ctx, longs({1, 2}, {0, 1}), tensor({2, 4}, D(8, 1)), Ints{2, 3})),
      ErrorKind::kShapeMismatch);
  // C++'s at::sparse_coo_tensor takes int64 indices only.
  EXPECT_EQ(
      kind(sparse_coo_tensor(ctx, tensor({1, 1}, {0}, DType::kI32), tensor({1}, {1}), Ints{2})),
      ErrorKind::kInvalidArgument);
}

// === Accessors (S3) ============================================================================

TEST_F(SparseTest, WritingThroughValuesChangesToDenseS3) {
  // s = x.to_sparse(); s.values().fill_(7); s.to_dense() == [[0,7,0],[7,0,7]]
  SparseTensor s = must(to_sparse_coo(ctx, x23(), 2));
  Tensor v = must(values(s));
  EXPECT_NE(v, s->values) << "an alias, not the part itself";
  EXPECT_EQ(v->storage, s->values->storage);
  EXPECT_EQ(v->version, s->version) << "shares the sparse tensor's version counter (S2)";
  ASSERT_TRUE(fill_(v, Scalar::integer(7)).ok());
  EXPECT_EQ(*s->version, 1);
  EXPECT_EQ(*must(indices(s))->version, 1) << "every accessor's view sees the write (S2)";
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{0, 7, 0, 7, 0, 7}));
  // The same through a CSR tensor's values().
  SparseTensor c = must(to_sparse_csr(ctx, x23()));
  ASSERT_TRUE(fill_(must(values(c)), Scalar::integer(7)).ok());
  EXPECT_EQ(elems(must(to_dense(ctx, c))), (D{0, 7, 0, 7, 0, 7}));
}

TEST_F(SparseTest, IndexAccessorsAliasTheirParts) {
  SparseTensor s = must(to_sparse_coo(ctx, x23(), 2));
  EXPECT_EQ(must(indices(s))->storage, s->indices->storage);
  SparseTensor r = must(to_sparse_bsr(ctx, y44(), {2, 2}));
  EXPECT_EQ(must(crow_indices(r))->storage, r->compressed_indices->storage);
  EXPECT_EQ(must(col_indices(r))->storage, r->plain_indices->storage);
  SparseTensor c = must(to_sparse_csc(ctx, x23()));
  EXPECT_EQ(must(ccol_indices(c))->storage, c->compressed_indices->storage);
  EXPECT_EQ(must(row_indices(c))->storage, c->plain_indices->storage);
}

TEST_F(SparseTest, IndicesAndValuesOfUncoalescedCooRaiseUnlikeUnderscoreVariants) {
  // "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
  SparseTensor s =
      must(sparse_coo_tensor(ctx, longs({1, 2}, {1, 1}), tensor({2}, {1, 2}), Ints{2}));
  auto i = indices(s);
  EXPECT_EQ(kind(i), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(i).find("uncoalesced"), std::string::npos) << message(i);
  EXPECT_EQ(kind(values(s)), ErrorKind::kInvalidArgument);
  EXPECT_EQ(must(indices_unchecked(s))->storage, s->indices->storage);
  EXPECT_EQ(must(values_unchecked(s))->storage, s->values->storage);
}

TEST_F(SparseTest, AccessorOfWrongLayoutRaisesNamingTheLayout) {
  SparseTensor coo = must(to_sparse_coo(ctx, x23(), 2));
  SparseTensor csr = must(to_sparse_csr(ctx, x23()));
  SparseTensor csc = must(to_sparse_csc(ctx, x23()));
  // "Could not run 'aten::crow_indices' with arguments from the 'SparseCPU' backend"
  auto a = crow_indices(coo);
  EXPECT_EQ(kind(a), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(a).find("'aten::crow_indices' with arguments from the 'SparseCPU' backend"),
            std::string::npos)
      << message(a);
  // "\"ccol_indices\" expected sparse column compressed tensor layout but got SparseCsr"
  auto b = ccol_indices(csr);
  EXPECT_EQ(kind(b), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(b).find("expected sparse column compressed tensor layout but got SparseCsr"),
            std::string::npos)
      << message(b);
  EXPECT_EQ(kind(col_indices(csc)), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(row_indices(coo)), ErrorKind::kInvalidArgument);
  auto c = indices(csr);
  EXPECT_NE(message(c).find("'SparseCsrCPU' backend"), std::string::npos) << message(c);
  EXPECT_EQ(kind(values_unchecked(csr)), ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(indices_unchecked(csc)), ErrorKind::kInvalidArgument);
  // coalesce is COO-only: "Could not run 'aten::is_coalesced' ... 'SparseCsrCPU'"
  EXPECT_EQ(kind(coalesce(ctx, csr)), ErrorKind::kInvalidArgument);
}

// === sparse_compressed_tensor ============================================================

TEST_F(SparseTest, SparseCompressedTensorAcceptsInt32IndicesAndHybridValues) {
  Tensor crow = tensor({3}, {0, 1, 2}, DType::kI32);
  Tensor col = tensor({2}, {0, 1}, DType::kI32);
  SparseTensor s = must(sparse_compressed_tensor(ctx, crow, col, tensor({2}, {3, 4}), Ints{2, 2},
                                                 SparseLayout::kCsr));
  EXPECT_EQ(s->index_dtype, DType::kI32);
  EXPECT_EQ(s->compressed_indices->storage, crow->storage);
  EXPECT_EQ(elems(must(to_dense(ctx, s))), (D{3, 0, 0, 4}));
  // A hybrid CSR (dense_dim 1) is valid, but 1.13 cannot densify it.
  SparseTensor h =
      must(sparse_compressed_tensor(ctx, longs({3}, {0, 1, 2}), longs({2}, {0, 1}),
                                    tensor({2, 3}, D(6, 1)), Ints{2, 2, 3}, SparseLayout::kCsr));
  EXPECT_EQ(h->dense_dim, 1);
  auto d = to_dense(ctx, h);
  EXPECT_EQ(kind(d), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(d).find("Hybrid tensors are not supported"), std::string::npos) << message(d);
  // BSR from parts: one 2x2 block.
  SparseTensor b = must(sparse_compressed_tensor(ctx, longs({2}, {0, 1}), longs({1}, {0}),
                                                 tensor({1, 2, 2}, {1, 2, 3, 4}), Ints{2, 2},
                                                 SparseLayout::kBsr));
  EXPECT_EQ((b->blocksize), (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(elems(must(to_dense(ctx, b))), (D{1, 2, 3, 4}));
}

TEST_F(SparseTest, SparseCompressedTensorValidatesInOneThirteenOrder) {
  auto csr = [&](Tensor c, Tensor p, Tensor v, Ints sz) {
    return sparse_compressed_tensor(ctx, c, p, v, sz, SparseLayout::kCsr);
  };
  Tensor v2 = tensor({2}, {1, 1});
  // "crow_indices.shape[-1] must be equal to the number of rows + 1 (=3), but got 4"
  EXPECT_EQ(kind(csr(longs({4}, {0, 1, 2, 2}), longs({2}, {0, 1}), v2, {2, 2})),
            ErrorKind::kShapeMismatch);
  // "crow_indices and col_indices must have the same dtype"
  EXPECT_EQ(kind(csr(tensor({3}, {0, 1, 2}, DType::kI32), longs({2}, {0, 1}), v2, {2, 2})),
            ErrorKind::kInvalidArgument);
  // "expected values to be a strided and contiguous tensor"
  EXPECT_EQ(kind(csr(longs({3}, {0, 1, 2}), longs({2}, {0, 1}), must(t(tensor({3, 2}, D(6, 1)))),
                     {2, 2, 2})),
            ErrorKind::kInvalidArgument);
  // "`crow_indices[..., 0] == 0` is not satisfied."
  auto first = csr(longs({3}, {1, 1, 2}), longs({2}, {0, 1}), v2, {2, 2});
  EXPECT_EQ(kind(first), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(first).find("`crow_indices[..., 0] == 0` is not satisfied"), std::string::npos);
  // Bounds of the plain indices come first: "`0 <= col_indices < ncols`".
  auto oob = csr(longs({3}, {1, 1, 2}), longs({2}, {0, 5}), v2, {2, 2});
  EXPECT_EQ(kind(oob), ErrorKind::kIndexOutOfRange);
  EXPECT_NE(message(oob).find("`0 <= col_indices < ncols`"), std::string::npos) << message(oob);
  // "col_indices[...] ... are sorted and distinct"
  EXPECT_EQ(kind(csr(longs({3}, {0, 2, 2}), longs({2}, {1, 0}), v2, {2, 2})),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(kind(csr(longs({3}, {0, 2, 2}), longs({2}, {1, 1}), v2, {2, 2})),
            ErrorKind::kInvalidArgument);
  // "tensor shape[0] (=3) must be divisible with blocksize[0] (=2)"
  EXPECT_EQ(
      kind(sparse_compressed_tensor(ctx, longs({2}, {0, 1}), longs({1}, {0}),
                                    tensor({1, 2, 2}, D(4, 1)), Ints{3, 2}, SparseLayout::kBsr)),
      ErrorKind::kShapeMismatch);
  EXPECT_EQ(kind(sparse_compressed_tensor(ctx, longs({3}, {0, 1, 2}), longs({2}, {0, 1}), v2,
                                          Ints{2, 2}, SparseLayout::kCoo)),
            ErrorKind::kInvalidArgument);
}

TEST_F(SparseTest, ToDenseOfAZeroCompressedDimWithEntriesRaisesAsOneThirteen) {
  // Note [PyTorch 1.13 sparse conversions], 6): compressed indices [0] and
  // one plain index build (no row checks the index), and 1.13's to_dense
  // raises for each layout; with nnz 0 it gives zeros.
  auto build = [&](SparseLayout l, Tensor v, Ints sz) {
    return must(sparse_compressed_tensor(ctx, longs({1}, {0}), longs({1}, {0}), v, sz, l));
  };
  auto csr = to_dense(ctx, build(SparseLayout::kCsr, tensor({1}, {5}), {0, 4}));
  EXPECT_EQ(kind(csr), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(csr).find("cannot reshape tensor of 0 elements into shape [-1, 0, 4]"),
            std::string::npos)
      << message(csr);
  // CSC's result is built transposed: [-1, 0, 4] for sizes [4, 0] too.
  auto csc = to_dense(ctx, build(SparseLayout::kCsc, tensor({1}, {5}), {4, 0}));
  EXPECT_EQ(kind(csc), ErrorKind::kInvalidArgument);
  EXPECT_NE(message(csc).find("[-1, 0, 4]"), std::string::npos) << message(csc);
  for (SparseLayout l : {SparseLayout::kBsr, SparseLayout::kBsc}) {
    auto b = to_dense(ctx, build(l, tensor({1, 2, 2}, D(4, 1)),
                                 l == SparseLayout::kBsr ? Ints{0, 4} : Ints{4, 0}));
    EXPECT_EQ(kind(b), ErrorKind::kIndexOutOfRange);
    EXPECT_NE(message(b).find("select(): index 0 out of range"), std::string::npos) << message(b);
  }
  SparseTensor empty = must(sparse_compressed_tensor(
      ctx, longs({1}, {0}), longs({0}, {}), tensor({0}, {}), Ints{0, 4}, SparseLayout::kCsr));
  Tensor zeros = must(to_dense(ctx, empty));
  EXPECT_EQ(zeros->geom.sizes[0], 0);
  EXPECT_EQ(zeros->geom.sizes[1], 4);
}

// === Fake conversion (F4) =====================================================================

TEST_F(SparseTest, FakePyTorchModeGivesCooWithNnzZeroKeepingDimsAndCoalescedF4) {
  // MetaConverter()(s) for an uncoalesced hybrid s: nnz 0, is_coalesced()
  // False, sparse_dim 1, dense_dim 1, _indices [1, 0], _values [0, 2]
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({1, 3}, {1, 0, 1}),
                                          tensor({3, 2}, {1, 2, 3, 4, 5, 6}), Ints{2, 2}));
  SparseMeta m = must(sparse_to_meta(s, SparseFakeMode::kPyTorch));
  EXPECT_EQ(m.layout, SparseLayout::kCoo);
  EXPECT_EQ(m.sizes, (I{2, 2}));
  EXPECT_EQ(m.dtype, DType::kF32);
  EXPECT_EQ(m.nnz, 0);
  EXPECT_FALSE(m.coalesced);
  EXPECT_EQ(m.sparse_dim, 1);
  EXPECT_EQ(m.dense_dim, 1);
  ASSERT_TRUE(m.indices.present);
  EXPECT_EQ(sizes(m.indices.geom), (I{1, 0}));
  EXPECT_EQ(m.indices.dtype, DType::kI64);
  EXPECT_EQ(sizes(m.values.geom), (I{0, 2}));
  EXPECT_EQ(strides(m.values.geom), (I{2, 1}));
  EXPECT_EQ(m.values.storage_nbytes, 0);
  EXPECT_FALSE(m.compressed_indices.present);
  // A coalesced input stays coalesced.
  EXPECT_TRUE(
      must(sparse_to_meta(must(to_sparse_coo(ctx, x23(), 2)), SparseFakeMode::kPyTorch)).coalesced);
}

TEST_F(SparseTest, FakeFaithfulModeKeepsNnzAndPartGeometryF4) {
  // Values over a transposed view: strides (1, 3), kept as they are (F1).
  Tensor vt = must(t(tensor({2, 3}, {1, 2, 3, 4, 5, 6})));
  SparseTensor s = must(sparse_coo_tensor(ctx, longs({1, 3}, {0, 1, 1}), vt, Ints{2, 2}));
  SparseMeta m = must(sparse_to_meta(s, SparseFakeMode::kFaithful));
  EXPECT_EQ(m.nnz, 3);
  EXPECT_FALSE(m.coalesced);
  EXPECT_EQ(sizes(m.indices.geom), (I{1, 3}));
  EXPECT_EQ(sizes(m.values.geom), (I{3, 2}));
  EXPECT_EQ(strides(m.values.geom), (I{1, 3}));
  EXPECT_EQ(m.values.storage_nbytes, 24);
}

TEST_F(SparseTest, FakeCompressedKeepsDenseDimBlocksizeAndIndexDtypeF4) {
  // BSR: PyTorch 2.x's _sparse_compressed_tensor_with_dims(0, 0, (4,4), (2,2), int64):
  // crow [3], col [0], values [0, 2, 2]
  SparseTensor r = must(to_sparse_bsr(ctx, y44(), {2, 2}));
  SparseMeta m = must(sparse_to_meta(r, SparseFakeMode::kPyTorch));
  EXPECT_EQ(m.layout, SparseLayout::kBsr);
  EXPECT_EQ(m.nnz, 0);
  EXPECT_EQ((m.blocksize), (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(m.index_dtype, DType::kI64);
  EXPECT_EQ(sizes(m.compressed_indices.geom), (I{3}));
  EXPECT_EQ(sizes(m.plain_indices.geom), (I{0}));
  EXPECT_EQ(sizes(m.values.geom), (I{0, 2, 2}));
  EXPECT_FALSE(m.indices.present);
  // BSC (1, 2) of a 4x4: compressed over the 2 block columns: ccol [3].
  SparseMeta c =
      must(sparse_to_meta(must(to_sparse_bsc(ctx, y44(), {1, 2})), SparseFakeMode::kPyTorch));
  EXPECT_EQ(sizes(c.compressed_indices.geom), (I{3}));
  EXPECT_EQ(sizes(c.values.geom), (I{0, 1, 2}));
  // Hybrid CSR with int32 indices: dense_dim 1 and i32 kept, values [0, 3].
  SparseTensor h = must(sparse_compressed_tensor(
      ctx, tensor({3}, {0, 1, 2}, DType::kI32), tensor({2}, {0, 1}, DType::kI32),
      tensor({2, 3}, D(6, 1)), Ints{2, 2, 3}, SparseLayout::kCsr));
  SparseMeta hm = must(sparse_to_meta(h, SparseFakeMode::kPyTorch));
  EXPECT_EQ(hm.dense_dim, 1);
  EXPECT_EQ(hm.index_dtype, DType::kI32);
  EXPECT_EQ(hm.compressed_indices.dtype, DType::kI32);
  EXPECT_EQ(sizes(hm.values.geom), (I{0, 3}));
  // Faithful: nnz and the parts as they are.
  SparseMeta hf = must(sparse_to_meta(h, SparseFakeMode::kFaithful));
  EXPECT_EQ(hf.nnz, 2);
  EXPECT_EQ(sizes(hf.values.geom), (I{2, 3}));
  EXPECT_EQ(hf.plain_indices.storage_nbytes, 8);
}

TEST_F(SparseTest, FakeConversionOfUnsupportedInputsIsUnsupportedFakeTensorF4) {
  SparseTensor s = must(to_sparse_coo(ctx, x23(), 2));
  auto bad = std::make_shared<SparseTensorImpl>(*s);
  bad->layout = static_cast<SparseLayout>(42);
  auto r = sparse_to_meta(bad, SparseFakeMode::kPyTorch);
  EXPECT_EQ(kind(r), ErrorKind::kUnsupportedFakeTensor);
  EXPECT_NE(message(r).find("unknown layout value 42"), std::string::npos) << message(r);
  bad->layout = SparseLayout::kStrided;
  EXPECT_EQ(kind(sparse_to_meta(bad, SparseFakeMode::kFaithful)),
            ErrorKind::kUnsupportedFakeTensor);
  auto no_values = std::make_shared<SparseTensorImpl>(*s);
  no_values->values = nullptr;
  EXPECT_EQ(kind(sparse_to_meta(no_values, SparseFakeMode::kPyTorch)),
            ErrorKind::kUnsupportedFakeTensor);
  // FakeTensorConverter()(mode, s.values()): "meta converter nyi"
  Status v = sparse_view_to_meta(must(values(s)), *s);
  EXPECT_EQ(kind(v), ErrorKind::kUnsupportedFakeTensor);
  EXPECT_NE(v.error().message.find("view of the values of a sparse_coo tensor"), std::string::npos)
      << v.error().message;
  SparseTensor c = must(to_sparse_csr(ctx, x23()));
  Status cv = sparse_view_to_meta(must(crow_indices(c)), *c);
  EXPECT_NE(cv.error().message.find("crow_indices"), std::string::npos) << cv.error().message;
}

// === Harness policies ===========================================================================

TEST_F(SparseTest, AllocationBeyondTheBudgetIsResourceLimitAndChargesNothing) {
  Tensor x = tensor({4, 4}, D(16, 1));
  const int64_t before = ctx.budget.used;
  ctx.budget.max_total_bytes = before + 300;  // indices (256 bytes) fit, then values (64) do not
  EXPECT_EQ(kind(to_sparse_coo(ctx, x, 2)), ErrorKind::kResourceLimit);
  EXPECT_EQ(ctx.budget.used, before) << "the indices' 256 bytes are given back";
  ctx.budget.max_total_bytes = before + 136;  // crow (40 bytes) and col (128) do not both fit
  EXPECT_EQ(kind(to_sparse_csr(ctx, x)), ErrorKind::kResourceLimit);
  EXPECT_EQ(ctx.budget.used, before);
}

TEST_F(SparseTest, ReadingAnEmptiedPartOrInputIsUndefinedS8) {
  Tensor x = x23();
  SparseTensor s = must(to_sparse_coo(ctx, x, 2));
  ASSERT_TRUE(shrink(x).ok());
  EXPECT_EQ(kind(to_sparse_csr(ctx, x)), ErrorKind::kUndefinedBehavior);
  ASSERT_TRUE(shrink(must(values(s))).ok());  // empties the values part through its alias
  EXPECT_EQ(kind(to_dense(ctx, s)), ErrorKind::kUndefinedBehavior);
}

TEST_F(SparseTest, IndexWrittenOutOfRangeThroughAnAliasIsUndefinedInToDenseS8) {
  SparseTensor s = must(to_sparse_coo(ctx, x23(), 2));
  ASSERT_TRUE(fill_(must(indices_unchecked(s)), Scalar::integer(5)).ok());
  const int64_t before = ctx.budget.used;
  EXPECT_EQ(kind(to_dense(ctx, s)), ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(ctx.budget.used, before);
}

}  // namespace
}  // namespace storcheck
