// What a backend reports after a step: the step's outcome and, for every
// variable, everything observable about it (DESIGN.md "Observations").
//
// Invariant: fields a backend cannot observe are marked unknown (the
// `*_known` flags), never guessed; the comparator skips them.
// Element values are the tensor's elements in row-major logical order, each
// `itemsize(dtype)` bytes in the dtype's C++ representation (S4).
//
//   Observation obs;
//   backend.observe(&obs);                 // after run_step
//   const VarObs& v = obs.vars[t1];        // t1 a VarId
//   if (v.live) std::cout << v.rank;
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "impl/dtype.h"
#include "impl/error.h"
#include "impl/fake.h"
#include "impl/geometry.h"

namespace storcheck {

/// Largest rank a tensor may reach at run time (the language's lists are
/// bounded by Limits::max_rank; unsqueeze/unfold/unflatten can grow past it
/// up to this bound, beyond which every backend raises kResourceLimit).
inline constexpr int kMaxDims = 16;

/// torch.layout: kStrided, or one of the sparse layouts (impl/sparse.h).
enum class Layout : uint8_t { kStrided, kSparseCoo, kSparseCsr, kSparseCsc, kSparseBsr, kSparseBsc };
/// "strided", "sparse_coo", ... (torch.layout's names).
std::string_view layout_name(Layout l);
enum class Device : uint8_t { kCpu, kCuda, kMeta };

/// One variable after a step.
struct VarObs {
  bool live = false;  ///< bound and not dropped
  int rank = 0;
  std::array<int64_t, kMaxDims> sizes{};
  std::array<int64_t, kMaxDims> strides{};
  int64_t offset = 0;
  DType dtype = DType::kF32;
  Layout layout = Layout::kStrided;
  /// Sparse layouts only (F4); see Note [Observing a sparse variable]. A
  /// sparse tensor has no storage of its own: strides 0, offset 0,
  /// storage_nbytes -1, alias_class and data_class -1, version unknown, and
  /// its values are its to_dense() elements (none for meta and fake ones).
  int64_t sparse_dim = 0;
  int64_t dense_dim = 0;
  int64_t nnz = 0;        ///< specified elements (blocks for BSR/BSC), per batch
  bool coalesced = false; ///< COO only
  std::array<int64_t, 2> blocksize{1, 1};  ///< BSR/BSC; {1, 1} otherwise
  DType index_dtype = DType::kI64;
  /// kMeta for meta tensors; a fake tensor reports the device it stands for
  /// (F1) and has `fake` set; both have a meta storage (no data).
  Device device = Device::kCpu;
  bool fake = false;
  int64_t storage_nbytes = 0;
  bool data_null = false;  ///< S1: the storage's data pointer is null
  /// Smallest live VarId whose tensor shares this variable's storage (S3).
  int32_t alias_class = -1;
  /// Smallest live VarId bound to the very same tensor object (contiguous()
  /// of a contiguous tensor returns its input).
  int32_t identity_class = -1;
  bool version_known = false;
  int64_t version = 0;
  bool values_known = false;
  /// numel * itemsize bytes, row-major; for a view observed_by_offset(),
  /// the elements at its distinct offsets (Note [Observing overlapping views]).
  std::vector<uint8_t> values;
  // Copy-on-write (group C), where the backend can observe it:
  bool is_cow = false;
  /// Smallest live VarId whose storage's data pointer is this one's (the
  /// data-address class; -1 for a null pointer). Read without materializing.
  int32_t data_class = -1;
  /// The data pointer changed at this step (live before and after).
  bool data_moved = false;
  int64_t cow_refs = 0;  ///< sharers of the data block (reference only)
  bool foreign = false;  ///< data of a foreign owner (reference only, not compared)
};

// Note [Observing a sparse variable]
// A sparse variable (layout != kStrided) is observed by its F4 metadata:
// layout, sizes, dtype, sparse_dim, dense_dim, nnz, coalesced (COO),
// blocksize (BSR/BSC) and index dtype, and by its identity (F2: the same
// live sparse tensor converts to the same fake). Its parts' storages belong
// to the accessors' results, which are strided variables (S3), so the
// storage fields are "none" on every backend: strides and offset 0,
// storage_nbytes -1, data_null false, alias_class -1, data_class -1, not COW,
// version unknown. A real sparse variable's values are the bytes of its
// to_dense() (row-major); a meta or fake one has none.

/// Sets rank, sizes and strides. Keeps the invariant that every dim at or
/// past the rank is zero (so whole arrays compare equal) by zeroing only the
/// dims the previous rank used: this runs for every variable after every
/// step, where zeroing whole arrays was the costliest part (issue 8).
inline void set_observed_dims(VarObs* v, int rank, const int64_t* sizes, const int64_t* strides) {
  for (int d = 0; d < rank; ++d) {
    v->sizes[d] = sizes[d];
    v->strides[d] = strides[d];
  }
  for (int d = rank; d < v->rank; ++d) {
    v->sizes[d] = 0;
    v->strides[d] = 0;
  }
  v->rank = rank;
}

/// True for a sparse layout.
inline bool is_sparse(Layout l) { return l != Layout::kStrided; }

/// Note [Observing a sparse variable]: sizes (strides and offset 0) and
/// dtype, and every storage field set to "no storage". Backends then fill
/// the layout, device, F4 metadata, identity and values.
inline void observe_sparse_storage_none(VarObs* v, int rank, const int64_t* sizes, DType dtype) {
  v->rank = rank;
  v->sizes = {};
  v->strides = {};
  for (int d = 0; d < rank && d < kMaxDims; ++d) v->sizes[d] = sizes[d];
  v->offset = 0;
  v->dtype = dtype;
  v->storage_nbytes = -1;
  v->data_null = false;
  v->alias_class = -1;
  v->data_class = -1;
  v->data_moved = false;
  v->is_cow = false;
  v->cow_refs = 0;
  v->foreign = false;
  v->version_known = false;
  v->version = 0;
}

/// The variable's geometry (sizes, strides, offset, itemsize).
inline Geometry observed_geometry(const VarObs& v) {
  Geometry g(v.rank);
  for (int d = 0; d < v.rank; ++d) {
    g.sizes[d] = v.sizes[d];
    g.strides[d] = v.strides[d];
  }
  g.offset = v.offset;
  g.itemsize = itemsize(v.dtype);
  return g;
}

/// Product of the sizes: 0 with a size-0 dim, whatever the others multiply
/// to ([2^63-1, 2, 0]; Geometry::numel's rule, TensorImpl::numel's).
inline int64_t observed_numel(const VarObs& v) {
  int64_t n = 0;
  observed_geometry(v).numel(&n);
  return n;
}

/// Note [Observing overlapping views] (impl/geometry.h): `values` holds the
/// elements at the view's distinct offsets, in increasing offset order.
inline bool observed_by_offset(const VarObs& v) {
  return !is_sparse(v.layout) && observe_by_offset(observed_geometry(v));
}

/// On a meta storage (meta and fake tensors): no data, no values.
inline bool observed_meta(const VarObs& v) { return v.device == Device::kMeta || v.fake; }

/// SEMANTICS R2: live, numel > 0, and a storage of 0 bytes that holds data
/// (not on the meta device).
inline bool observed_emptied(const VarObs& v) {
  return v.live && observed_numel(v) > 0 && v.storage_nbytes == 0 && !observed_meta(v);
}

/// The outcome of one step and the state of every variable after it.
struct Observation {
  ErrorKind error = ErrorKind::kNone;
  std::string error_message;
  bool skipped = false;  ///< the step used an unbound variable: not run
  int64_t cow_copies = 0;  ///< materializations that copied, since begin (reference only)
  /// The program's converters' memos (F3) after the step: the FakeTensorConverter
  /// (`fake`) and the MetaConverter (`meta`), where the backend has them.
  bool memo_known = false;
  MemoStats fake_memo, meta_memo;
  /// What the backend met in the step beyond its outcome, for the
  /// known-divergence list: the PyTorch backend names a conversion that a
  /// stale memo entry of PyTorch's converters answers (Note [Stale converter
  /// memo entries] in oracles/python_backend.py); "" when nothing.
  std::string step_note;
  std::vector<VarObs> vars;  ///< indexed by VarId
};

}  // namespace storcheck
