#include "oracles/layout_policy.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "oracles/backend.h"

namespace storcheck {

std::string_view layout_name(Layout l) {
  switch (l) {
    case Layout::kStrided: return "strided";
    case Layout::kSparseCoo: return "sparse_coo";
    case Layout::kSparseCsr: return "sparse_csr";
    case Layout::kSparseCsc: return "sparse_csc";
    case Layout::kSparseBsr: return "sparse_bsr";
    case Layout::kSparseBsc: return "sparse_bsc";
  }
  return "unknown";
}

namespace {

// Note [Layout policy]
// A variable holds a strided or a sparse tensor (COO, CSR, CSC, BSR, BSC;
// SEMANTICS F4), real or meta/fake. Before a step runs, every backend asks
// check_layouts; the first case that refuses is the step's error:
//   Case 1) Sparse constructors (to_sparse_coo/csr/csc/bsr/bsc,
//      sparse_coo_tensor, sparse_csr/csc/bsr/bsc_tensor) take real strided
//      tensors only: LibTorch 1.13's
//      conversions between sparse layouts and its sparse kernels on the
//      meta device are not modelled (kUnsupportedLayout).
//   Case 2) to_sparse_bsr/bsc take a blocksize of exactly two entries
//      (kInvalidArgument; LibTorch's own message for other lengths varies).
//   Case 3) Sparse readers take a real sparse tensor of the layouts that
//      have the part they read: to_dense and values any sparse layout,
//      coalesce and indices COO, crow_indices and col_indices CSR and BSR,
//      ccol_indices and row_indices CSC and BSC (kUnsupportedLayout; LibTorch
//      raises "Could not run ..." dispatcher errors that name no reason).
//   Case 4) meta and fake take any layout; a meta or fake sparse input is
//      already converted (kUnsupportedFakeTensor, as for strided ones, F4).
//      to_meta takes a real sparse tensor (F8); fake_from_meta takes strided
//      meta tensors only (F5 is not modelled for sparse ones).
//   Case 5) drop takes any variable.
//   Case 6) Every other op takes strided tensors only (kUnsupportedLayout).
//   Case 7) cuda and cpu take real strided tensors only (kUnsupportedLayout:
//      moving meta, fake and sparse tensors between devices is not
//      modelled), and sparse_coo_tensor and sparse_csr/csc/bsr/bsc_tensor
//      take their parts on one device (kDeviceMismatch; LibTorch's message varies by version).
//   Case 8) view_dtype takes i32, i64 and u8 tensors to i32, i64 or u8 only
//      (kUnsupportedLayout, the operand policy's one kind): reinterpreted
//      float bits would be compared exactly where float values have a
//      tolerance (a sum's order), and a byte other than 0 or 1 read as bool
//      is undefined behaviour (S8). Note [view_dtype] in impl/ops.cpp.
// LibTorch's own errors on valid layouts (a bad sparse_dim, a blocksize
// that does not divide the sizes, indices() of an uncoalesced tensor) are
// not policy: both backends run the op and the comparator matches the kinds.

Error refuse(const Step& s, int k, const OperandLayout& in, const std::string& takes) {
  return make_error(ErrorKind::kUnsupportedLayout,
                    std::string(s.info().name) + ": argument " + std::to_string(k) +
                        " is a " + (in.meta ? "meta " : "") + std::string(layout_name(in.layout)) +
                        " tensor; storcheck's language gives this op " + takes);
}

/// Case 3): the layouts whose tensors have the part `op` reads.
bool reads_layout(OpId op, Layout l) {
  switch (op) {
    case OpId::kToDense:
    case OpId::kValues: return is_sparse(l);
    case OpId::kCoalesce:
    case OpId::kIndices: return l == Layout::kSparseCoo;
    case OpId::kCrowIndices:
    case OpId::kColIndices: return l == Layout::kSparseCsr || l == Layout::kSparseBsr;
    case OpId::kCcolIndices:
    case OpId::kRowIndices: return l == Layout::kSparseCsc || l == Layout::kSparseBsc;
    default: return false;
  }
}

const char* read_layouts(OpId op) {
  switch (op) {
    case OpId::kToDense:
    case OpId::kValues: return "real sparse tensors only (any sparse layout)";
    case OpId::kCoalesce:
    case OpId::kIndices: return "real sparse_coo tensors only";
    case OpId::kCrowIndices:
    case OpId::kColIndices: return "real sparse_csr and sparse_bsr tensors only";
    default: return "real sparse_csc and sparse_bsc tensors only";
  }
}

}  // namespace

bool blocked_tiling_overflows(const Step& s, const int64_t* sizes, int rank) {
  if (s.op != OpId::kToSparseBsr && s.op != OpId::kToSparseBsc) return false;
  if (rank < 2 || s.args[1].list.size() != 2) return false;
  const int64_t b0 = s.args[1].list[0], b1 = s.args[1].list[1];
  const int64_t rows = sizes[rank - 2], cols = sizes[rank - 1];
  if (b0 <= 0 || b1 <= 0 || rows % b0 != 0 || cols % b1 != 0) return false;  // LibTorch raises
  std::vector<int64_t> tiled(sizes, sizes + rank - 2);
  for (int64_t x : {rows / b0, b0, cols / b1, b1}) tiled.push_back(x);
  int64_t p = 1;  // the first dim's stride: the product of the others
  for (size_t k = 1; k < tiled.size(); ++k)
    if (__builtin_mul_overflow(p, std::max<int64_t>(tiled[k], 1), &p)) return true;
  return false;
}

bool coo_dims_overflow(const Step& s, const int64_t* indices_sizes, int indices_rank,
                       int values_rank) {
  if (s.op != OpId::kSparseCooTensor || indices_rank != 2) return false;
  const int64_t dense_dim = std::max(values_rank, 1) - 1;
  int64_t sum = 0;
  return __builtin_add_overflow(indices_sizes[0], dense_dim, &sum);
}

bool copy_overlap_undetected(const Geometry& dst, const Geometry& src, bool same_tensor,
                             bool same_dtype) {
  if (same_tensor || (same_dtype && same_layout(dst, src))) return false;  // no pass
  const MemOverlapStatus st = overlap_status(dst, src, /*same_storage=*/true, same_tensor);
  const bool undetected = st == MemOverlapStatus::kTooHard ||
                          (st == MemOverlapStatus::kFull && !(same_dtype && same_layout(dst, src)));
  return undetected && elements_intersect(dst, src);
}

bool scalar_out_overlap_undetected(const Geometry& out, const Geometry& x,
                                   const Geometry& resized_out, bool resize) {
  const MemOverlapStatus os = overlap_status(out, x, /*same_storage=*/true, /*same_tensor=*/false);
  const bool hazard = (os == MemOverlapStatus::kTooHard ||
                       (os == MemOverlapStatus::kFull && !same_layout(out, x))) &&
                      elements_intersect(out, x);
  if (hazard) return true;
  return resize && os != MemOverlapStatus::kPartial && elements_intersect(resized_out, x) &&
         !same_layout(resized_out, x);
}

bool compressed_dims_overflow(const Step& s, int compressed_rank, const int64_t* values_sizes,
                              int values_rank) {
  if (!is_compressed_from_parts(s.op) || compressed_rank < 1) return false;
  const bool by_row = s.op == OpId::kSparseCsrTensor || s.op == OpId::kSparseBsrTensor;
  const bool blocked = s.op == OpId::kSparseBsrTensor || s.op == OpId::kSparseBscTensor;
  const int at = compressed_rank - 1 + (by_row ? 0 : 1);  // batch dims, then rows, columns
  const IntList& sizes = s.args[3].list;
  if (at >= sizes.size()) return false;  // LibTorch raises on the dimensionality first
  int64_t block = 1;
  if (blocked) {
    const int b = compressed_rank + (by_row ? 0 : 1);  // values: batch, nnz, block rows, block cols
    if (b >= values_rank) return false;  // raises on the values' dimensionality first
    block = std::max<int64_t>(1, values_sizes[b]);
  }
  return sizes[at] / block == std::numeric_limits<int64_t>::max();
}

bool copies_symint_pointer_stride(const Step& s, const int64_t* strides, int rank) {
  if (s.op == OpId::kTranspose) {
    auto wrap = [&](int64_t d) { return d < 0 ? d + rank : d; };
    const int64_t d0 = wrap(s.args[1].i), d1 = wrap(s.args[2].i);
    if (d0 < 0 || d0 >= rank || d1 < 0 || d1 >= rank || d0 == d1)
      return false;  // raises, or no copy
  } else if (s.op != OpId::kClone) {
    return false;
  }
  return std::any_of(strides, strides + rank, is_symint_pointer);
}

int expand_size_not_allowed(const int64_t* in, int in_rank, const int64_t* sizes, int n) {
  if (n < in_rank) return -1;  // ATen: the number of sizes provided
  if (in_rank == 0) {
    for (int k = 0; k < n; ++k)
      if (sizes[k] < 0) return k;
    return -1;
  }
  for (int k = n - 1; k >= 0; --k) {
    const int dim = in_rank - (n - k);
    const int64_t size = dim >= 0 ? in[dim] : 1;
    int64_t target = sizes[k];
    if (target == -1) {
      if (dim < 0) return -1;  // ATen: a leading, non-existing dimension
      target = size;
    } else if (target < -1 && size == 1) {
      return k;
    }
    if (size != target && size != 1) return -1;  // ATen: must match the existing size
  }
  return -1;
}

bool builds_sparse_from_strided(OpId op) {
  switch (op) {
    case OpId::kToSparseCoo:
    case OpId::kToSparseCsr:
    case OpId::kToSparseCsc:
    case OpId::kToSparseBsr:
    case OpId::kToSparseBsc:
    case OpId::kSparseCooTensor:
    case OpId::kSparseCsrTensor:
    case OpId::kSparseCscTensor:
    case OpId::kSparseBsrTensor:
    case OpId::kSparseBscTensor: return true;
    default: return false;
  }
}

Error check_layouts(const Step& s, const std::array<OperandLayout, kMaxArgs>& in) {
  for (int k = 0; k < s.nargs; ++k) {
    if (s.args[k].kind != ArgKind::kVar) continue;
    const OperandLayout& x = in[static_cast<size_t>(k)];
    if (builds_sparse_from_strided(s.op)) {  // Case 1)
      if (is_sparse(x.layout) || x.meta) return refuse(s, k, x, "real strided tensors only");
      continue;
    }
    switch (s.op) {
      case OpId::kToDense:
      case OpId::kCoalesce:
      case OpId::kIndices:
      case OpId::kValues:
      case OpId::kCrowIndices:
      case OpId::kColIndices:
      case OpId::kCcolIndices:
      case OpId::kRowIndices:  // Case 3)
        if (!reads_layout(s.op, x.layout) || x.meta) return refuse(s, k, x, read_layouts(s.op));
        break;
      case OpId::kMeta:
      case OpId::kFake:  // Case 4)
        if (is_sparse(x.layout) && x.meta)
          return make_error(ErrorKind::kUnsupportedFakeTensor,
                            std::string(s.info().name) + ": the input is already a meta or fake " +
                                std::string(layout_name(x.layout)) + " tensor");
        break;
      case OpId::kToMeta:
        if (is_sparse(x.layout) && x.meta)
          return refuse(s, k, x, "strided tensors and real sparse tensors only");
        break;
      case OpId::kFakeFromMeta:
        if (is_sparse(x.layout)) return refuse(s, k, x, "strided meta tensors only");
        break;
      case OpId::kDrop: break;  // Case 5)
      case OpId::kCuda:
      case OpId::kCpu:  // Case 7)
        if (is_sparse(x.layout) || x.meta) return refuse(s, k, x, "real strided tensors only");
        break;
      default:                  // Case 6)
        if (is_sparse(x.layout)) return refuse(s, k, x, "strided tensors only");
        break;
    }
  }
  auto name = [](Device d) { return d == Device::kCuda ? "cuda" : "cpu"; };
  if (s.op == OpId::kSparseCooTensor && in[0].device != in[1].device)  // Case 7)
    return make_error(ErrorKind::kDeviceMismatch,
                      std::string("sparse_coo_tensor: indices on ") + name(in[0].device) +
                          " and values on " + name(in[1].device) + "; they must be on one device");
  if (is_compressed_from_parts(s.op) &&
      (in[0].device != in[2].device || in[1].device != in[2].device))
    return make_error(ErrorKind::kDeviceMismatch,
                      std::string(s.info().name) + ": compressed indices on " + name(in[0].device) +
                          ", plain indices on " + name(in[1].device) + " and values on " +
                          name(in[2].device) + "; they must be on one device");
  if (s.op == OpId::kViewDtype) {  // Case 8)
    const DType to = to_dtype(s.args[1].dtype);
    if (!is_integral(in[0].dtype) || !is_integral(to))
      return make_error(ErrorKind::kUnsupportedLayout,
                        "view_dtype of an input of dtype " + std::string(dtype_name(in[0].dtype)) +
                            " as " + std::string(dtype_name(to)) +
                            "; storcheck's language views i32, i64 and u8 tensors as i32, i64 "
                            "or u8 only (float bits would be compared exactly, a bool byte "
                            "other than 0 or 1 is undefined)");
  }
  if ((s.op == OpId::kToSparseBsr || s.op == OpId::kToSparseBsc) && s.args[1].list.size() != 2)
    return make_error(ErrorKind::kInvalidArgument,  // Case 2)
                      std::string(s.info().name) + ": blocksize has " +
                          std::to_string(s.args[1].list.size()) +
                          " entries; it must be [rows, cols]");
  return Error{};
}

}  // namespace storcheck
