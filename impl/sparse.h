// Sparse layouts of the reference: COO and the compressed layouts (CSR, CSC,
// BSR, BSC), their conversions to and from strided tensors, the accessors of
// their parts, and the metadata the fake converter gives them (F4), with
// PyTorch 1.13's semantics (aten/src/ATen/native/sparse/SparseTensor.cpp,
// SparseCsrTensor.cpp, TensorConversions.cpp; torch/_subclasses/meta_utils.py).
//
// Invariant: a SparseTensor is sizes, a dtype and its parts, which are
// ordinary strided Tensors (impl/tensor.h). The accessors (values(),
// indices(), crow_indices(), ...) return aliases of the parts: they share the
// parts' storages and version counters, so a write through one is seen by
// to_dense (S3), and one version counter, the sparse tensor's (S2). COO: indices [sparse_dim, nnz] of i64, values
// [nnz, dense sizes...]. Compressed: compressed_indices
// [batch..., n_compressed + 1], plain_indices [batch..., nnz] of i64 or i32,
// values [batch..., nnz, (blocksize...), dense sizes...]. Every allocation
// is charged to the Context's AllocBudget; a failed step charges nothing.
//
//   Context ctx;
//   Tensor t = arange(ctx, {2, 3}, DType::kF32).value();        // [[0,1,2],[3,4,5]]
//   SparseTensor s = to_sparse_coo(ctx, t, 2).value();           // nnz 5, coalesced
//   Tensor v = values(s).value();                                 // shares s's values storage
//   Status w = fill_(v, Scalar::integer(7));                       // S3: seen below
//   Tensor d = to_dense(ctx, s).value();                          // [[0,7,7],[7,7,7]]
//   SparseMeta m = sparse_to_meta(s, SparseFakeMode::kPyTorch).value();  // m.nnz == 0 (F4)
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "impl/tensor.h"

namespace storcheck {

/// PyTorch's torch.layout values that the reference models.
enum class SparseLayout : uint8_t { kStrided, kCoo, kCsr, kCsc, kBsr, kBsc };

/// "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
/// "sparse_bsc" (torch.layout's names); "unknown" for any other value.
std::string_view sparse_layout_name(SparseLayout l);
/// CSR, CSC, BSR or BSC.
bool is_compressed_layout(SparseLayout l);
/// BSR or BSC.
bool is_blocked_layout(SparseLayout l);

/// A sparse tensor. See the file comment for the parts' shapes.
struct SparseTensorImpl {
  SparseLayout layout = SparseLayout::kCoo;
  std::vector<int64_t> sizes;  ///< the logical (dense) sizes
  DType dtype = DType::kF32;   ///< == values->dtype
  int64_t sparse_dim = 0;      ///< COO: indices.size(0); compressed: 2
  int64_t dense_dim = 0;       ///< trailing dims stored densely in each value
  bool coalesced = false;      ///< COO only: indices sorted and unique (a flag, not a check)
  /// BSR/BSC: the block's rows and columns (values' dims after nnz); {1, 1}
  /// for the other layouts.
  std::array<int64_t, 2> blocksize{1, 1};
  DType index_dtype = DType::kI64;  ///< kI64, or kI32 for compressed layouts

  Tensor indices;             ///< COO: [sparse_dim, nnz], i64
  Tensor compressed_indices;  ///< CSR/BSR: crow_indices; CSC/BSC: ccol_indices
  Tensor plain_indices;       ///< CSR/BSR: col_indices; CSC/BSC: row_indices
  Tensor values;
  /// S2: the accessors' results are views of the sparse tensor, so they all
  /// share this one version counter (PyTorch: a write through values() bumps
  /// s._version and every accessor's). Made by the first accessor call.
  mutable Rc<int64_t> version;

  int rank() const { return static_cast<int>(sizes.size()); }
  /// Specified elements (blocks for BSR/BSC); per batch for compressed layouts.
  int64_t nnz() const;
  /// Compressed layouts: leading dims before the two sparse dims; COO: 0.
  int64_t batch_dim() const;
  /// dense_dim as 1.13 reports it: COO's is fixed; a compressed tensor
  /// computes it from its parts (values' rank - batch_dim - block dims - 1),
  /// which sparse_{csr,...}_tensor keeps as the input tensors themselves, so
  /// an in-place metadata change of one (unsqueeze_ of the compressed
  /// indices) changes it (Note [Compressed parts are the inputs] in sparse.cpp).
  int64_t current_dense_dim() const;
  /// BSR/BSC: the values' two sizes after rank - 2 - current_dense_dim()
  /// batch dims and nnz, {0, 0} when the values have no such dims (after a
  /// part's metadata changed); {1, 1} for the other layouts. What every
  /// backend observes as the blocksize.
  std::array<int64_t, 2> current_blocksize() const;
};
using SparseTensor = std::shared_ptr<SparseTensorImpl>;

// --- Strided -> sparse ---------------------------------------------------------
// See Note [PyTorch 1.13 sparse conversions] in sparse.cpp.

/// t.to_sparse(sparse_dim): the first `sparse_dim` dims become sparse, the
/// rest dense; a sparse slice is stored iff some element of it is nonzero.
/// Coalesced, indices sorted lexicographically. PyTorch 1.13 requires
/// 0 < sparse_dim <= rank, or sparse_dim == 0 for a 0-d tensor
/// (kDimOutOfRange). `to_sparse_coo(ctx, t, t->rank())` is t.to_sparse().
Result<SparseTensor> to_sparse_coo(Context& ctx, const Tensor& t, int64_t sparse_dim);
/// t.to_sparse_csr(): rank >= 2; leading dims are batch dims, which must be
/// non-empty and hold the same nnz each. 1.13 has no dense_dim argument.
Result<SparseTensor> to_sparse_csr(Context& ctx, const Tensor& t);
/// t.to_sparse_csc(): as to_sparse_csr, compressed along columns.
Result<SparseTensor> to_sparse_csc(Context& ctx, const Tensor& t);
/// t.to_sparse_bsr(blocksize): blocksize entries > 0 and dividing the last
/// two sizes; a block is stored iff one of its elements is nonzero.
Result<SparseTensor> to_sparse_bsr(Context& ctx, const Tensor& t, std::array<int64_t, 2> blocksize);
/// t.to_sparse_bsc(blocksize): as to_sparse_bsr, blocks ordered by column.
Result<SparseTensor> to_sparse_bsc(Context& ctx, const Tensor& t, std::array<int64_t, 2> blocksize);

// --- Construction from parts -----------------------------------------------------

/// at::sparse_coo_tensor(indices, values, sizes) with its validation: the
/// result aliases `indices` and `values` (no copy); coalesced iff nnz < 2
/// (1.13 marks nothing else coalesced, even sorted unique indices).
/// Duplicates, unsorted indices, nnz 0 and hybrid (dense_dim > 0) tensors
/// are all valid. A 0-d `values` is expanded to [1].
Result<SparseTensor> sparse_coo_tensor(Context& ctx, const Tensor& indices, const Tensor& values,
                                       IntSpan sizes);
/// at::sparse_{csr,csc,bsr,bsc}_tensor(compressed, plain, values, sizes)
/// with 1.13's validation (contiguous parts, shapes, index dtype i32/i64 and
/// the index invariants); aliases its parts. Allows batch and dense dims.
Result<SparseTensor> sparse_compressed_tensor(Context& ctx, const Tensor& compressed_indices,
                                              const Tensor& plain_indices, const Tensor& values,
                                              IntSpan sizes, SparseLayout layout);

// --- Sparse -> strided, coalesce ---------------------------------------------------

/// s.to_dense(): a fresh strided tensor of s's sizes and dtype, duplicates
/// summed (in the dtype's arithmetic, in storage order), with 1.13's
/// strides: contiguous for COO, CSR and most blocksizes; CSC gives the
/// transpose of a contiguous tensor (see Note [to_dense strides] in
/// sparse.cpp). Hybrid compressed tensors raise, as in 1.13.
Result<Tensor> to_dense(Context& ctx, const SparseTensor& s);
/// s.coalesce() (COO): indices sorted and unique, duplicates' values summed;
/// a coalesced `s` is returned itself, as PyTorch does. As in 1.13 the new
/// parts are the first nnz' columns/rows of buffers sized for the old nnz
/// (indices strides [old nnz, 1]).
Result<SparseTensor> coalesce(Context& ctx, const SparseTensor& s);

// --- Accessors: aliases of the parts (S3) ----------------------------------------------
// Each returns a new Tensor sharing the part's storage and the sparse
// tensor's version counter (SparseTensorImpl::version; S2).
// The wrong layout raises kInvalidArgument with PyTorch's message.

/// s.indices(): COO; raises on an uncoalesced tensor, as PyTorch does.
Result<Tensor> indices(const SparseTensor& s);
/// s._indices(): COO, without the coalesced check.
Result<Tensor> indices_unchecked(const SparseTensor& s);
/// s.values(): every sparse layout; COO raises when uncoalesced.
Result<Tensor> values(const SparseTensor& s);
/// s._values(): COO, without the coalesced check.
Result<Tensor> values_unchecked(const SparseTensor& s);
/// CSR and BSR.
Result<Tensor> crow_indices(const SparseTensor& s);
Result<Tensor> col_indices(const SparseTensor& s);
/// CSC and BSC.
Result<Tensor> ccol_indices(const SparseTensor& s);
Result<Tensor> row_indices(const SparseTensor& s);

// --- Fake conversion (F4) --------------------------------------------------------------
// See Note [Fake conversion of sparse tensors] in sparse.cpp.

/// kPyTorch: what PyTorch's MetaConverter builds (COO: an empty sparse tensor
/// with the same sizes, sparse_dim, dense_dim and coalesced flag, nnz 0;
/// compressed: PyTorch 2.x's _sparse_compressed_tensor_with_dims with nnz 0).
/// kFaithful: nnz and every part's geometry kept.
enum class SparseFakeMode : uint8_t { kPyTorch, kFaithful };

/// One part of a sparse meta tensor: its geometry and dtype over a meta
/// storage of `storage_nbytes`.
struct SparsePartMeta {
  bool present = false;  ///< false for the parts the layout has not
  Geometry geom;
  DType dtype = DType::kF32;
  int64_t storage_nbytes = 0;
};

/// A sparse meta tensor: the metadata of a SparseTensor, no data.
struct SparseMeta {
  SparseLayout layout = SparseLayout::kCoo;
  std::vector<int64_t> sizes;
  DType dtype = DType::kF32;
  int64_t sparse_dim = 0;
  int64_t dense_dim = 0;
  int64_t nnz = 0;
  bool coalesced = false;
  std::array<int64_t, 2> blocksize{1, 1};
  DType index_dtype = DType::kI64;
  SparsePartMeta indices;             ///< COO
  SparsePartMeta compressed_indices;  ///< compressed layouts
  SparsePartMeta plain_indices;       ///< compressed layouts
  SparsePartMeta values;
};

/// F4: the meta metadata of `s`. kUnsupportedFakeTensor, naming the reason,
/// for what the converter cannot convert: a layout value that is not a
/// sparse layout (strided or out of range), a sparse tensor missing a part.
Result<SparseMeta> sparse_to_meta(const SparseTensor& s, SparseFakeMode mode);
/// F4: the fake conversion of `t`, a view whose base is the sparse tensor
/// `base` (the result of values(), indices(), crow_indices(), ... or a view
/// of one: PyTorch sets its _base to the sparse tensor). PyTorch's
/// MetaConverter does not convert such views: always kUnsupportedFakeTensor,
/// naming the part whose storage `t` shares. The results of
/// values_unchecked()/indices_unchecked() (_values(), _indices()) are not
/// views in PyTorch and convert as ordinary strided tensors.
Status sparse_view_to_meta(const Tensor& t, const SparseTensorImpl& base);

}  // namespace storcheck
