// Which layouts (and, for view_dtype, which dtypes) each op of the language
// takes: the one predicate that every
// backend applies before it runs a step, so that a sparse operand given to
// an op that does not take it (or a strided one given to a sparse-only op)
// is refused identically everywhere, and LibTorch never sees it.
//
// Invariant: check_layouts depends on the step and on its operands' layouts
// only (never on a backend), so the reference and LibTorch refuse the same
// steps with the same ErrorKind and message. See Note [Layout policy] in
// layout_policy.cpp for the cases.
//
//   std::array<OperandLayout, kMaxArgs> in{};
//   in[0] = {Layout::kSparseCsr, /*meta=*/false};
//   Error e = check_layouts(step, in);   // step `add_ t3 1`: kUnsupportedLayout
#pragma once

#include <array>

#include "impl/error.h"
#include "impl/geometry.h"
#include "oracles/observation.h"
#include "program/ir.h"

namespace storcheck {

/// What check_layouts needs to know of one tensor operand.
struct OperandLayout {
  Layout layout = Layout::kStrided;
  bool meta = false;  ///< a meta or fake tensor (no data)
  Device device = Device::kCpu;  ///< a real tensor's device (cpu or cuda)
  DType dtype = DType::kF32;     ///< for view_dtype's operand (Case 8)
};

/// Case 1) of Note [Layout policy]: the ops that build a sparse tensor from
/// real strided tensors (to_sparse_*, sparse_coo_tensor,
/// sparse_{csr,csc,bsr,bsc}_tensor). The nnz of their
/// result comes from the data (the fake twin treats them as factories).
bool builds_sparse_from_strided(OpId op);

/// S8 before to_sparse_bsr/bsc of a real tensor of sizes `sizes[0..rank)`:
/// LibTorch (1.13 and 2.x) tiles the input as batch + [rows/b0, b0,
/// cols/b1, b1] and computes that shape's contiguous strides with max(1,
/// size) per dim in int64; for a 0-element input and a huge blocksize they
/// overflow (signed overflow: undefined behaviour; found by fake_fuzzer:
/// [0,4] with [INT64_MAX,2]). False for other ops and for blocksizes that
/// LibTorch rejects first. Over-approximates: a few such inputs that
/// LibTorch survives are refused too. The LibTorch backend refuses these
/// steps and the emitted reproducers stop at them.
bool blocked_tiling_overflows(const Step& s, const int64_t* sizes, int rank);

/// S8 before sparse_coo_tensor(indices, values, sizes): LibTorch (1.13 and
/// 2.x) adds sparse_dim (the indices' size(0)) and dense_dim (the values'
/// rank - 1, 0 for 0-dim values, which it expands to [1]) in int64 before
/// it compares the sum with the sizes' length; a 2-D indices tensor of 0
/// elements with size(0) near 2^63 overflows (signed overflow: undefined
/// behaviour; found by fake_fuzzer with UBSan in the reference: indices
/// [2^63-1, 0], values [2^63-1, 0]). False for other ops and for indices
/// that are not 2-D (LibTorch raises first). The LibTorch backend refuses
/// these steps, the emitted reproducers stop at them, and the PyTorch
/// backend refuses them (case 7).
bool coo_dims_overflow(const Step& s, const int64_t* indices_sizes, int indices_rank,
                       int values_rank);

/// S8 for copy_(dst, src) with dst and src over one storage: LibTorch
/// copies the same elements (one tensor, or the same geometry and dtype)
/// without a pass, and rejects a partial overlap; an overlap it does not
/// detect (get_overlap_status kTooHard, or kFull with another geometry)
/// whose elements do intersect makes the result depend on iteration order.
/// The LibTorch backend refuses these steps, and so does the PyTorch
/// backend (case 4); impl/ops.cpp's copy_ has the same rule.
bool copy_overlap_undetected(const Geometry& dst, const Geometry& src, bool same_tensor,
                             bool same_dtype);

/// S8 for add_out/mul_out with out and the input x over one storage, not
/// one tensor (Note [out=] rule 2 in impl/ops.cpp): an overlap LibTorch does
/// not detect whose elements intersect, or, when out is resized
/// (`resize`: x's sizes differ from out's), a new geometry `resized_out`
/// (resized_out_geometry) that shares bytes with x in another layout,
/// unless LibTorch rejects the partial overlap first. The LibTorch and
/// PyTorch backends refuse these steps.
bool scalar_out_overlap_undetected(const Geometry& out, const Geometry& x,
                                   const Geometry& resized_out, bool resize);

/// S8 before sparse_{csr,csc,bsr,bsc}_tensor(compressed, plain, values,
/// sizes): LibTorch 1.13 compares the compressed indices' last size with
/// the number of compressed rows (columns) + 1, computed in int64, which
/// overflows when that number is 2^63 - 1 (a size of INT64_MAX, blocksize
/// 1; PyTorch 1.13 then reports "+ 1 (=0)"). Over-approximates: such sizes
/// are refused even where an earlier check would raise. False for other
/// ops. The LibTorch backend refuses these steps, the emitted reproducers
/// stop at them, and the PyTorch backend refuses them (case 7).
bool compressed_dims_overflow(const Step& s, int compressed_rank, const int64_t* values_sizes,
                              int values_rank);

/// S8 before clone or transpose of a tensor of strides `strides[0..rank)` on
/// LibTorch 1.13: true when the op copies the strides as c10::SymInt
/// without a range check (clone, through empty_strided; transpose of two
/// distinct valid dims) and one lies in [-2^63, -2^62), the range where 1.13
/// keeps a symbolic int's node pointer: it is dereferenced (a segfault;
/// found by cow_fuzzer on the wrapped contiguous stride of a numel-0
/// [0,3,2^62-1000] tensor). The other ops of the language check the range
/// and raise (known divergence symint-range-1.13). The LibTorch 1.13 backend
/// refuses these steps and the emitted reproducers stop at them.
bool copies_symint_pointer_stride(const Step& s, const int64_t* strides, int rank);
/// Case 5 of Note [Torch backend policy checks] for expand of a
/// tensor of sizes `in[0..in_rank)` to `sizes[0..n)`: the index of the first
/// size that LibTorch 1.13 would take although it is not allowed (below -1
/// in a size-1 or new leading dim; below 0, -1 too, on a 0-dim tensor:
/// 1.13 builds a tensor with a negative size), or -1 when there is none or
/// ATen raises first. ATen checks the number of sizes, then the dims from
/// the last to the first (impl/ops.cpp expand follows the same order). The
/// LibTorch backend rejects such a step (kInvalidArgument, as the
/// reference), the PyTorch backend refuses it.
int expand_size_not_allowed(const int64_t* in, int in_rank, const int64_t* sizes, int n);
/// A value in [-2^63, -2^62): what LibTorch 1.13 takes for a SymInt's node
/// pointer (copies_symint_pointer_stride; PyTorch 1.13's Python reads every
/// stride that way).
inline bool is_symint_pointer(int64_t v) { return v < -(int64_t{1} << 62); }

/// The error of a step whose operands' layouts its op does not take in
/// storcheck's language (kUnsupportedLayout, or kUnsupportedFakeTensor /
/// kInvalidArgument for the cases Note [Layout policy] names); kind kNone
/// when the step may run. `in[k]` is read for the variable arguments only.
Error check_layouts(const Step& s, const std::array<OperandLayout, kMaxArgs>& in);

/// False when check_layouts cannot refuse step `s`, whose operands are all
/// real strided tensors unless `sparse_or_meta_operand`: the ops of no case
/// refuse them (Cases 2 and 3 and 7's device checks are sparse ops'; Cases
/// 1, 4 and 7 refuse sparse or meta operands only, 5 and 6 sparse ones),
/// except view_dtype (Case 8). Most steps; the reference backend skips the
/// call for them (issue 8). layout_policy_test checks the two agree.
inline bool layouts_can_refuse(const Step& s, bool sparse_or_meta_operand) {
  return sparse_or_meta_operand || s.info().category == OpCategory::kSparse ||
         s.op == OpId::kViewDtype;
}

}  // namespace storcheck
