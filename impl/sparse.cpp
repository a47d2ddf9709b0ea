#include "impl/sparse.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "impl/ops.h"
#include "impl/pool.h"

namespace storcheck {

// Note [PyTorch 1.13 sparse conversions]
// What 1.13 does, and so what the reference does (each case checked against
// torch 1.13 on CPU):
// 1) to_sparse(sparse_dim) keeps a sparse slice iff one of its elements is
//    nonzero (nonzero(), then unique_dim over the sparse rows), so indices
//    come sorted and the result is marked coalesced. sparse_dim must be > 0
//    unless the tensor is 0-d: 1.13 rejects sparse_dim == 0 on a tensor of
//    rank > 0 ("sparse_dim must be >0 if dimensionality > 0").
// 2) to_sparse_{csr,csc}() take no dense_dim in 1.13 (2.0 added it): every
//    dim before the last two is a batch dim, the batch must be non-empty and
//    every batch must hold the same nnz. Index dtype is always i64.
// 3) to_sparse_{bsr,bsc}(blocksize) check blocksize > 0 before the rank, then
//    divisibility of size(-2), then of size(-1).
// 4) Parts of results are contiguous, except where 1.13's are not: the
//    indices of a hybrid to_sparse (unique_dim's strides [1, sparse_dim],
//    kept where is_contiguous() accepts them) and coalesce's parts (narrowed
//    from buffers sized for the old nnz). Constructors alias their inputs.
// 5) to_dense of a hybrid compressed tensor raises ("Hybrid tensors are not
//    supported"); sparse_compressed_tensor accepts dense dims (and, as 1.13
//    does, does not compare the values' dense sizes with `sizes`).
// 6) to_dense of a compressed tensor whose compressed dim is 0 (CSR and BSR
//    rows, CSC and BSC columns) but whose nnz is not (sparse_csr_tensor
//    accepts compressed indices [0] with one plain index: no row to check
//    it against) raises in 1.13: CSR and CSC reshape the 0-element result
//    to [-1, R, C] ("cannot reshape tensor of 0 elements ...",
//    invalid_argument), BSR and BSC select block 0 of none ("select():
//    index 0 out of range", index_out_of_range). With nnz 0 both give
//    zeros. Checked in PyTorch 1.13 on each layout, batched too; found by
//    fake_fuzzer (-seed=1000): the reference observed the values of such a
//    tensor where LibTorch cannot densify it.
//
// Note [Sparse check order]
// As in ops.cpp (Note [Check order]): harness policies first (S8 on every
// part that the op reads, rank and allocation limits), then PyTorch's
// argument checks in 1.13's order, then the checks that read data. An
// index outside the sizes met while writing the dense result (possible only
// after writing through an accessor alias) is S8: LibTorch would write out
// of bounds, so the reference reports kUndefinedBehavior and writes nothing.

namespace detail {
namespace {

using std::to_string;

Error err(ErrorKind k, std::string msg) { return make_error(k, std::move(msg)); }

std::string ints(const std::vector<int64_t>& v) {
  return format_ints(IntSpan(v.data(), static_cast<int>(v.size())));
}

/// c10's printing of a layout in messages ("Sparse", "SparseCsr", ...).
std::string c10_layout_name(SparseLayout l) {
  switch (l) {
    case SparseLayout::kStrided:
      return "Strided";
    case SparseLayout::kCoo:
      return "Sparse";
    case SparseLayout::kCsr:
      return "SparseCsr";
    case SparseLayout::kCsc:
      return "SparseCsc";
    case SparseLayout::kBsr:
      return "SparseBsr";
    case SparseLayout::kBsc:
      return "SparseBsc";
  }
  return "layout value " + to_string(static_cast<int>(l));
}

/// The CPU dispatch key of a tensor of layout `l`, as "Could not run ..." names it.
std::string cpu_backend_name(SparseLayout l) {
  if (l == SparseLayout::kStrided) return "CPU";
  if (l == SparseLayout::kCoo) return "SparseCPU";
  if (is_compressed_layout(l)) return "SparseCsrCPU";
  return "unknown (layout value " + to_string(static_cast<int>(l)) + ")";
}

std::string layout_name(SparseLayout l) { return std::string(sparse_layout_name(l)); }

bool row_compressed(SparseLayout l) { return l == SparseLayout::kCsr || l == SparseLayout::kBsr; }

/// "crow_indices" / "ccol_indices" and "col_indices" / "row_indices".
std::string compressed_name(SparseLayout l) {
  return row_compressed(l) ? "crow_indices" : "ccol_indices";
}
std::string plain_name(SparseLayout l) { return row_compressed(l) ? "col_indices" : "row_indices"; }

std::vector<int64_t> sizes_of(const TensorImpl& t) {
  return std::vector<int64_t>(t.geom.sizes.begin(), t.geom.sizes.begin() + t.geom.rank);
}

/// Product of sizes[from, to); the sizes are those of an existing tensor.
/// The product of s[from, to), wrapping (no signed overflow: a 0-element
/// tensor's other sizes may multiply past int64, [2^63-1, 2, 0]); callers
/// use it where the elements it counts exist, or where a size-0 dim in the
/// range makes it 0.
int64_t prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  uint64_t n = 1;
  for (size_t k = from; k < to; ++k) n *= static_cast<uint64_t>(s[k]);
  return static_cast<int64_t>(n);
}

/// S8: the op reads `t` (a part or an input), so its storage must hold it.
Status check_readable(const TensorImpl& t, const char* op, const std::string& what) {
  if (storage_covers(t)) return {};
  int64_t need = -1;
  t.geom.required_bytes(&need);
  return err(ErrorKind::kUndefinedBehavior,
             std::string(op) + ": not executed: undefined (S8): " + what + " (sizes " +
                 format_sizes(t.geom) + ", strides " + format_strides(t.geom) + ", offset " +
                 to_string(t.geom.offset) + ") needs " + to_string(need) + " bytes, storage has " +
                 to_string(t.storage->nbytes()));
}

Status rank_policy(int64_t rank, const char* op, const std::string& what) {
  if (rank > kGeometryMaxDims)
    return err(ErrorKind::kResourceLimit,
               std::string(op) + ": " + what + " would have rank " + to_string(rank) +
                   ", more than storcheck's limit of " + to_string(kGeometryMaxDims) + " dims");
  return {};
}

/// The allocations of one step: charged to the budget as they happen and
/// given back unless the step commits (a failed step allocates nothing).
class StepAllocs {
 public:
  StepAllocs(Context& ctx, const char* op) : ctx_(ctx), op_(op) {}
  ~StepAllocs() {
    if (!committed_) ctx_.budget.used -= charged_;
  }
  StepAllocs(const StepAllocs&) = delete;
  StepAllocs& operator=(const StepAllocs&) = delete;

  /// A zero-filled contiguous tensor (version 0, fresh storage): ops'
  /// zeros, its errors prefixed with this step's op.
  Result<Tensor> zeros(const std::vector<int64_t>& sizes, DType d) {
    SC_ASSERT(sizes.size() <= static_cast<size_t>(kGeometryMaxDims),
              std::string(op_) + ": rank " + to_string(sizes.size()) + " not policy-checked");
    auto t = storcheck::zeros(ctx_, IntSpan(sizes.data(), static_cast<int>(sizes.size())), d);
    if (!t.ok()) return err(t.error().kind, std::string(op_) + ": " + t.error().message);
    charged_ += t.value()->storage->nbytes();
    return t;
  }
  void commit() { committed_ = true; }

 private:
  Context& ctx_;
  const char* op_;
  int64_t charged_ = 0;
  bool committed_ = false;
};

/// The elements of `t` in row-major order, itemsize bytes each, every one
/// even where a view repeats offsets (read_elements, the observations' read,
/// gives such a view of more than kObserveAllElements elements by distinct
/// offset: to_sparse_csr of an unfold of 199,998 elements over 100,000 read
/// past it; found by fake_fuzzer under ASan). A read: never materializes a
/// COW storage (C3). The caller checked S8 and bounded the count.
std::vector<uint8_t> elements(const TensorImpl& t) {
  std::vector<uint8_t> b;
  read_row_major_elements(t.storage->read_data(), t.geom, &b);
  return b;
}

std::vector<int64_t> int_elements(const TensorImpl& t) {
  std::vector<uint8_t> b = elements(t);
  const int64_t is = itemsize(t.dtype);
  std::vector<int64_t> out(b.size() / static_cast<size_t>(is));
  for (size_t k = 0; k < out.size(); ++k) out[k] = load_as_int(b.data() + k * is, t.dtype);
  return out;
}

/// PyTorch's `x != 0`: nan is nonzero, -0.0 is zero.
bool is_nonzero(const uint8_t* p, DType d) {
  return is_floating(d) ? load_as_double(p, d) != 0.0 : load_as_int(p, d) != 0;
}

/// *acc += *x in dtype d's arithmetic, as add_ does.
void accumulate(uint8_t* acc, const uint8_t* x, DType d) { binop(acc, acc, x, d, BinOp::kAdd); }

/// Raw pointer to element k of a fresh contiguous tensor (offset 0).
uint8_t* at_w(const TensorImpl& t, int64_t k) {
  return t.storage->mutable_data() + k * t.geom.itemsize;
}

/// Every part the layout has is present (a hand-built SparseTensorImpl may lack one).
Status check_parts(const SparseTensorImpl& s, const char* op) {
  auto missing = [&](const char* part) {
    return err(ErrorKind::kInvalidArgument, std::string(op) + ": the " + layout_name(s.layout) +
                                                " tensor has no " + part + " part");
  };
  if (s.layout == SparseLayout::kCoo) {
    if (!s.indices) return missing("indices");
  } else if (is_compressed_layout(s.layout)) {
    if (!s.compressed_indices) return missing(compressed_name(s.layout).c_str());
    if (!s.plain_indices) return missing(plain_name(s.layout).c_str());
  }
  if (!s.values) return missing("values");
  return {};
}

/// S8 for every part of `s`, in the order the op reads them.
Status check_parts_readable(const SparseTensorImpl& s, const char* op) {
  if (s.layout == SparseLayout::kCoo) {
    Status st = check_readable(*s.indices, op, "indices");
    if (!st.ok()) return st;
  } else {
    Status st = check_readable(*s.compressed_indices, op, compressed_name(s.layout));
    if (!st.ok()) return st;
    st = check_readable(*s.plain_indices, op, plain_name(s.layout));
    if (!st.ok()) return st;
  }
  return check_readable(*s.values, op, "values");
}

// --- strided -> compressed ---------------------------------------------------------

const char* to_sparse_op(SparseLayout l) {
  switch (l) {
    case SparseLayout::kCsr:
      return "to_sparse_csr";
    case SparseLayout::kCsc:
      return "to_sparse_csc";
    case SparseLayout::kBsr:
      return "to_sparse_bsr";
    default:
      return "to_sparse_bsc";
  }
}

/// The errors 1.13 raises for inputs of rank < 2: each conversion first
/// touches a different dim (see Note [PyTorch 1.13 sparse conversions]).
Error low_rank_error(SparseLayout l, const TensorImpl& t) {
  std::string op = std::string(to_sparse_op(l)) + " of a tensor of sizes " + format_sizes(t.geom) +
                   " (rank >= 2 needed): ";
  if (l == SparseLayout::kCsr) {
    if (t.rank() == 0)
      return err(ErrorKind::kDimOutOfRange,
                 op + "Dimension specified as -1 but tensor has no dimensions");
    return err(ErrorKind::kShapeMismatch,
               op + "expand(torch.LongTensor{[1, " + to_string(t.size(0)) + "]}, size=[" +
                   to_string(t.size(0)) +
                   "]): the number of sizes provided (1) must be greater or equal to the number of "
                   "dimensions in the tensor (2)");
  }
  if (l == SparseLayout::kCsc)
    return err(ErrorKind::kDimOutOfRange,
               op + "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  if (t.rank() == 0)
    return err(ErrorKind::kDimOutOfRange,
               op + "Dimension specified as -2 but tensor has no dimensions");
  return err(ErrorKind::kDimOutOfRange,
             op + "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
}

Result<SparseTensor> dense_to_compressed(Context& ctx, const Tensor& t, SparseLayout layout,
                                         std::array<int64_t, 2> bs) {
  const char* op = to_sparse_op(layout);
  const bool blocked = is_blocked_layout(layout);
  // Policies: S8 on the input, the rank of the blocked values.
  Status st = check_readable(*t, op, "the input");
  if (st.ok()) st = check_step_reads(ctx, *t, op);  // Note [Elements a step reads] (impl/ops.h)
  if (!st.ok()) return st.error();
  if (blocked) {
    st = rank_policy(t->rank() + 1, op, "values");
    if (!st.ok()) return st.error();
  }
  // 1.13's argument checks (Note [PyTorch 1.13 sparse conversions], 3).
  if (blocked && !(bs[0] > 0 && bs[1] > 0))
    return err(ErrorKind::kInvalidArgument, std::string(op) +
                                                ": blocksize needs to be non zero, but got [" +
                                                to_string(bs[0]) + ", " + to_string(bs[1]) + "]");
  if (t->rank() < 2) return low_rank_error(layout, *t);
  const int r = t->rank();
  const int64_t rows = t->size(r - 2), cols = t->size(r - 1);
  if (blocked) {
    if (rows % bs[0] != 0)
      return err(ErrorKind::kShapeMismatch,
                 std::string(op) + ": Tensor size(-2) " + to_string(rows) +
                     " needs to be divisible by blocksize[0] " + to_string(bs[0]));
    if (cols % bs[1] != 0)
      return err(ErrorKind::kShapeMismatch,
                 std::string(op) + ": Tensor size(-1) " + to_string(cols) +
                     " needs to be divisible by blocksize[1] " + to_string(bs[1]));
  } else {
    bs = {1, 1};
  }
  const std::vector<int64_t> sizes = sizes_of(*t);
  const int n_batch_dim = r - 2;
  if (std::find(sizes.begin(), sizes.begin() + n_batch_dim, 0) != sizes.begin() + n_batch_dim)
    return err(ErrorKind::kInvalidArgument,
               std::string(op) + ": Expected product of batch dimensions to be non-zero (sizes " +
                   ints(sizes) + ")");
  // The batch count of a 0-element input can be past int64, or huge: its
  // compressed indices then overflow (as oracles/torch_backend.cpp's
  // check_compressed_indices says) or break the allocation limit below;
  // nothing is stored, so no per-batch table is built (a [2^40, 1, 0]
  // input made one of 2^40 entries: std::bad_alloc).
  int64_t n_batch = 1;
  bool batch_overflow = false;
  for (int d = 0; d < n_batch_dim; ++d)
    batch_overflow |= __builtin_mul_overflow(n_batch, sizes[static_cast<size_t>(d)], &n_batch);
  if (batch_overflow)
    return err(ErrorKind::kStorageSizeOverflow,
               std::string(op) + ": the compressed indices of sizes " + ints(sizes) +
                   " overflow int64 bytes");
  const bool no_elements = t->numel() == 0;

  // The stored blocks of each batch as (compressed, plain) positions, found
  // by scanning the elements (never the positions: a 0-element input may
  // have a huge grid).
  const bool by_row = row_compressed(layout);
  const int64_t grid_cols = cols / bs[1];
  const int64_t n_comp = by_row ? rows / bs[0] : grid_cols;
  std::vector<uint8_t> buf = elements(*t);
  const int64_t is = itemsize(t->dtype);
  const int64_t matrix = no_elements ? 0 : rows * cols;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> stored(
      no_elements ? 1 : static_cast<size_t>(n_batch));
  for (int64_t e = 0; matrix > 0 && e < n_batch * matrix; ++e) {
    if (!is_nonzero(buf.data() + e * is, t->dtype)) continue;
    const int64_t in = e % matrix;
    const int64_t gr = in / cols / bs[0], gc = in % cols / bs[1];
    stored[static_cast<size_t>(e / matrix)].push_back(by_row ? std::make_pair(gr, gc)
                                                             : std::make_pair(gc, gr));
  }
  for (auto& v : stored) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  const int64_t nnz = static_cast<int64_t>(stored[0].size());
  for (const auto& v : stored)
    if (static_cast<int64_t>(v.size()) != nnz)
      return err(ErrorKind::kInvalidArgument,
                 std::string(op) +
                     ": Expect the same number of specified elements per batch (batch 0 has " +
                     to_string(nnz) + ", another has " + to_string(v.size()) + ")");

  std::vector<int64_t> batch(sizes.begin(), sizes.begin() + n_batch_dim);
  std::vector<int64_t> comp_sizes = batch, plain_sizes = batch, value_sizes = batch;
  // n_comp + 1 entries per batch: past int64 for a 0-element [2^63-1, 0]
  // input, where 1.13 wraps (signed overflow, S8) and raises about a SymInt.
  // Both backends call it a storage size overflow (oracles/torch_backend.cpp,
  // check_compressed_indices; found by fake_fuzzer under UBSan).
  int64_t comp_len = 0;
  if (__builtin_add_overflow(n_comp, int64_t{1}, &comp_len))
    return err(ErrorKind::kStorageSizeOverflow,
               std::string(op) + ": the compressed indices of sizes " + ints(sizes) +
                   " overflow int64 bytes");
  // Note [The plain index of an empty input]
  // For a 0-element input 1.13 allocates an int64 index of the plain dim's
  // positions (the block columns for CSR/BSR, the block rows for CSC/BSC)
  // whatever the input holds, and frees it: a [0, 2^62] input asks for 2^61
  // * 8 bytes (a storage size overflow), a [1, 0, 2^40] one for 4 TiB
  // (found by fake_fuzzer, where the reference made no such index). Both
  // backends check it as a transient allocation, after the compressed
  // indices' length check and before their allocation. Inputs with elements
  // are not checked: their plain positions are at most numel.
  if (no_elements && !t->is_meta()) {
    const int64_t plain = by_row ? grid_cols : rows / bs[0];
    int64_t plain_bytes = 0;
    if (__builtin_mul_overflow(plain, int64_t{8}, &plain_bytes))
      return err(ErrorKind::kStorageSizeOverflow, std::string(op) + ": an int64 index of " +
                                                      to_string(plain) +
                                                      " plain positions overflows int64 bytes");
    Status charged = ctx.budget.charge(plain_bytes, op);
    if (!charged.ok()) return charged.error();
    ctx.budget.used -= plain_bytes;  // freed within the step
  }
  comp_sizes.push_back(comp_len);
  plain_sizes.push_back(nnz);
  value_sizes.push_back(nnz);
  if (blocked) {
    value_sizes.push_back(bs[0]);
    value_sizes.push_back(bs[1]);
  }
  StepAllocs allocs(ctx, op);
  auto comp = allocs.zeros(comp_sizes, DType::kI64);
  if (!comp.ok()) return comp.error();
  auto plain = allocs.zeros(plain_sizes, DType::kI64);
  if (!plain.ok()) return plain.error();
  auto vals = allocs.zeros(value_sizes, t->dtype);
  if (!vals.ok()) return vals.error();

  // Read only for stored blocks, which lie in the matrix, so the product is
  // at most rows * cols then; with nothing stored a blocksize may be any
  // size that divides 0 (found by fake_fuzzer: [INT64_MAX, 2] overflowed).
  const int64_t block_numel = nnz > 0 ? bs[0] * bs[1] : 0;
  for (int64_t b = 0; b < n_batch; ++b) {
    const auto& v = stored[static_cast<size_t>(b)];
    int64_t k = 0;
    for (int64_t i = 0; i <= n_comp; ++i) {
      while (k < nnz && v[static_cast<size_t>(k)].first < i) ++k;
      store_int(at_w(*comp.value(), b * (n_comp + 1) + i), DType::kI64, k);
    }
    for (k = 0; k < nnz; ++k) {
      const auto [ci, pi] = v[static_cast<size_t>(k)];
      store_int(at_w(*plain.value(), b * nnz + k), DType::kI64, pi);
      const int64_t gr = by_row ? ci : pi, gc = by_row ? pi : ci;
      for (int64_t a = 0; a < bs[0]; ++a)
        for (int64_t c = 0; c < bs[1]; ++c) {
          const int64_t src = b * matrix + (gr * bs[0] + a) * cols + gc * bs[1] + c;
          std::memcpy(at_w(*vals.value(), (b * nnz + k) * block_numel + a * bs[1] + c),
                      buf.data() + src * is, static_cast<size_t>(is));
        }
    }
  }
  allocs.commit();
  auto s = std::make_shared<SparseTensorImpl>();
  s->layout = layout;
  s->sizes = sizes;
  s->dtype = t->dtype;
  s->sparse_dim = 2;
  s->dense_dim = 0;
  s->blocksize = blocked ? bs : std::array<int64_t, 2>{1, 1};
  s->index_dtype = DType::kI64;
  s->compressed_indices = std::move(comp).value();
  s->plain_indices = std::move(plain).value();
  s->values = std::move(vals).value();
  return s;
}

// --- accessors ------------------------------------------------------------------------

/// "<op>(): Could not run 'aten::<aten>' with arguments from the '<backend>'
/// backend", and which layouts `op` is for.
Error not_for_layout(const SparseTensorImpl& s, const std::string& op, const std::string& aten,
                     const std::string& hint) {
  return err(ErrorKind::kInvalidArgument,
             op + "(): Could not run 'aten::" + aten + "' with arguments from the '" +
                 cpu_backend_name(s.layout) + "' backend: " + op + "() is for " + hint +
                 " tensors, this one is " + layout_name(s.layout));
}

Result<Tensor> part_alias(const SparseTensorImpl& s, const Tensor& part,
                          const std::string& accessor) {
  if (!part)
    return err(ErrorKind::kInvalidArgument, accessor + "(): the " + layout_name(s.layout) +
                                                " tensor has no such part (built by hand?)");
  Result<Tensor> a = alias(part);  // S3: shares the part's storage
  if (!a.ok()) return a;
  if (!s.version) s.version = make_pooled<int64_t>(0);
  a.value()->version = s.version;  // S2: a view of the sparse tensor
  return a;
}

/// crow_indices/col_indices (row) and ccol_indices/row_indices (column).
Result<Tensor> compressed_part(const SparseTensor& s, bool want_row, bool compressed,
                               const std::string& accessor) {
  if (!is_compressed_layout(s->layout))
    return not_for_layout(*s, accessor, accessor,
                          want_row ? "sparse_csr and sparse_bsr" : "sparse_csc and sparse_bsc");
  if (row_compressed(s->layout) != want_row)
    return err(ErrorKind::kInvalidArgument,
               "\"" + accessor + "\" expected sparse " + (want_row ? "row" : "column") +
                   " compressed tensor layout but got " + c10_layout_name(s->layout) + " (use " +
                   (want_row ? "ccol_indices()/row_indices()" : "crow_indices()/col_indices()") +
                   " for " + layout_name(s->layout) + ")");
  return part_alias(*s, compressed ? s->compressed_indices : s->plain_indices, accessor);
}

// --- meta -------------------------------------------------------------------------------

Error unsupported(const std::string& why) {
  return err(ErrorKind::kUnsupportedFakeTensor, "fake conversion of a sparse tensor: " + why);
}

/// A fresh contiguous meta part (PyTorch's at::empty on the meta device).
SparsePartMeta empty_part(const std::vector<int64_t>& sizes, DType d) {
  SparsePartMeta p;
  p.present = true;
  p.dtype = d;
  p.geom.rank = static_cast<int>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), p.geom.sizes.begin());
  contiguous_strides(p.geom.rank, p.geom.sizes.data(), p.geom.strides.data());
  p.geom.itemsize = itemsize(d);
  int64_t numel = 0;
  p.geom.numel(&numel);
  p.storage_nbytes = numel * p.geom.itemsize;
  return p;
}

/// The metadata of an existing part, geometry-exact (F1).
SparsePartMeta part_meta(const TensorImpl& t) {
  SparsePartMeta p;
  p.present = true;
  p.geom = t.geom;
  p.dtype = t.dtype;
  p.storage_nbytes = t.storage->nbytes();
  return p;
}

// Note [Values layout of to_sparse]
// 1.13's dense_to_sparse takes the values as
// self.index(indices.chunk(sparse_dim)).squeeze(0).clone(preserve_format).
// The index is a TensorIterator over the shape [1, nnz, dense sizes...]
// whose operands are the output (undefined: skipped), the input restrided
// by AdvancedIndex (stride 0 on the two index dims, its own strides on the
// dense dims) and the index tensors: each a [1, nnz] chunk of the indices
// reshaped to [1, nnz, 1...] (a view: every stride s1 = the indices' dim-1
// stride, dim 0 nnz * s1). compute_strides zeroes an operand's stride only
// where it broadcasts (its size 1, the shape's not); a size-1 dim of the
// shape keeps the operand's own stride. reorder_dimensions orders the dims
// by those strides (layout_order's rule over several operands), and the
// output is allocated in that order: contiguous when the order is the plain
// one. squeeze(0) and clone(preserve_format) of that dense result keep its
// strides. So the values follow the input's dense-dims layout, size-1 dims
// included (found by fake_fuzzer twice: values of to_sparse_coo(t, 2) of a
// [1,1,2,3] tensor with strides [6,6,1,2] have strides [6,1,2], not
// [6,3,1]; a size-1 dim's stride 15, not 5).
void coo_values_strides(const TensorImpl& in, int64_t sparse_dim, int64_t nnz,
                        int64_t index_stride1, int64_t* out) {
  const int dense = in.rank() - static_cast<int>(sparse_dim);
  const int n = 2 + dense;
  std::array<int64_t, kGeometryMaxDims + 2> shape{}, src{}, idx{};
  const uint64_t is = static_cast<uint64_t>(itemsize(in.dtype));
  auto wrap = [](int64_t a, uint64_t b) {  // LibTorch's int64 arithmetic
    return static_cast<int64_t>(static_cast<uint64_t>(a) * b);
  };
  shape[0] = 1;
  shape[1] = nnz;
  idx[0] = wrap(wrap(nnz, static_cast<uint64_t>(index_stride1)), 8);
  idx[1] = wrap(index_stride1, 8);
  for (int j = 0; j < dense; ++j) {
    const int d = static_cast<int>(sparse_dim) + j;
    const size_t k = static_cast<size_t>(2 + j);
    shape[k] = in.size(d);
    src[k] = wrap(in.stride(d), is);
    idx[k] = in.size(d) == 1 ? idx[1] : 0;  // broadcast where the dense size is not 1
  }
  auto should_swap = [&](int d0, int d1) {
    for (const auto* op : {&src, &idx}) {
      const int64_t s0 = (*op)[static_cast<size_t>(d0)], s1 = (*op)[static_cast<size_t>(d1)];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[static_cast<size_t>(d0)] > shape[static_cast<size_t>(d1)]) return 1;
    }
    return 0;
  };
  std::array<int, kGeometryMaxDims + 2> perm{};
  for (int k = 0; k < n; ++k) perm[static_cast<size_t>(k)] = n - 1 - k;
  for (int i = 1; i < n; ++i) {  // insertion sort, as reorder_dimensions
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
      if (c > 0) {
        std::swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  bool plain = true;
  for (int k = 0; k < n; ++k) plain &= perm[static_cast<size_t>(k)] == n - 1 - k;
  std::array<int64_t, kGeometryMaxDims + 2> strides{};
  if (plain) {
    contiguous_strides(n, shape.data(), strides.data());
  } else {
    int64_t next = 1;
    for (int k = 0; k < n; ++k) {
      const size_t d = static_cast<size_t>(perm[static_cast<size_t>(k)]);
      strides[d] = next;
      next = wrap(next, static_cast<uint64_t>(shape[d]));
    }
  }
  for (int k = 1; k < n; ++k) out[k - 1] = strides[static_cast<size_t>(k)];  // squeeze(0)
}

}  // namespace
}  // namespace detail

using namespace detail;  // NOLINT: this file implements detail's users

std::string_view sparse_layout_name(SparseLayout l) {
  switch (l) {
    case SparseLayout::kStrided:
      return "strided";
    case SparseLayout::kCoo:
      return "sparse_coo";
    case SparseLayout::kCsr:
      return "sparse_csr";
    case SparseLayout::kCsc:
      return "sparse_csc";
    case SparseLayout::kBsr:
      return "sparse_bsr";
    case SparseLayout::kBsc:
      return "sparse_bsc";
  }
  return "unknown";
}

bool is_compressed_layout(SparseLayout l) {
  return l == SparseLayout::kCsr || l == SparseLayout::kCsc || l == SparseLayout::kBsr ||
         l == SparseLayout::kBsc;
}

bool is_blocked_layout(SparseLayout l) {
  return l == SparseLayout::kBsr || l == SparseLayout::kBsc;
}

int64_t SparseTensorImpl::nnz() const {
  if (layout == SparseLayout::kCoo) return values && values->rank() > 0 ? values->size(0) : 0;
  if (plain_indices && plain_indices->rank() > 0)
    return plain_indices->size(plain_indices->rank() - 1);
  return 0;
}

int64_t SparseTensorImpl::batch_dim() const {
  if (!is_compressed_layout(layout)) return 0;
  return compressed_indices ? compressed_indices->rank() - 1 : rank() - 2 - dense_dim;
}

// Note [Compressed parts are the inputs]
// 1.13's sparse_{csr,csc,bsr,bsc}_tensor keeps the tensors it is given as
// its parts (SparseCsrTensorImpl::set_member_tensors: no shallow copy, where
// sparse_coo_tensor's parts are aliases of their own), and derives
// dense_dim (values.dim() - batch_dim - block_dim - 1, batch_dim from the
// compressed indices' rank) and nnz (the plain indices' last size) from
// them on every call; the sizes stay. An in-place metadata change of an
// input (unsqueeze_, resize_, set_, ...) changes the sparse tensor's parts
// and what it reports: dense_dim -1 after unsqueeze_ of a CSR tensor's
// 1-d compressed indices (checked in PyTorch 1.13). The reference shares
// the inputs' TensorImpls and computes the same; the kernels then see parts
// that fail the construction checks (S8, Note [Sparse indices written
// through an accessor] in oracles/torch_backend.cpp).
int64_t SparseTensorImpl::current_dense_dim() const {
  if (!is_compressed_layout(layout) || !values || !compressed_indices) return dense_dim;
  return values->rank() - (compressed_indices->rank() - 1) - (is_blocked_layout(layout) ? 2 : 0) -
         1;
}

std::array<int64_t, 2> SparseTensorImpl::current_blocksize() const {
  if (!is_blocked_layout(layout) || !values) return {1, 1};
  const int64_t at = rank() - 2 - current_dense_dim() + 1;
  if (at < 0 || at + 1 >= values->rank()) return {0, 0};
  return {values->size(static_cast<int>(at)), values->size(static_cast<int>(at + 1))};
}

// --- Strided -> sparse ---------------------------------------------------------

Result<SparseTensor> to_sparse_coo(Context& ctx, const Tensor& t, int64_t sparse_dim) {
  const char* op = "to_sparse";
  Status st = check_readable(*t, op, "the input");
  if (st.ok()) st = check_step_reads(ctx, *t, op);  // Note [Elements a step reads] (impl/ops.h)
  if (!st.ok()) return st.error();
  const int64_t dims = t->rank();
  const std::string args = "to_sparse(sparse_dim=" + to_string(sparse_dim) +
                           ") of a tensor of sizes " + format_sizes(t->geom) + ": ";
  // Note [PyTorch 1.13 sparse conversions], 1).
  if (!(sparse_dim > 0 || dims == 0))
    return err(
        ErrorKind::kDimOutOfRange,
        args + "sparse_dim must be >0 if dimensionality > 0 (expected 1.." + to_string(dims) + ")");
  if (sparse_dim > dims)
    return err(
        ErrorKind::kDimOutOfRange,
        args + "sparse_dim must be less than or equal to self.dim() (" + to_string(dims) + ")");
  const std::vector<uint8_t> buf = elements(*t);
  const int64_t is = itemsize(t->dtype);
  if (sparse_dim < 0) {
    // A 0-d tensor: 1.13 fails later, differently for a zero and a nonzero value.
    if (is_nonzero(buf.data(), t->dtype))
      return err(ErrorKind::kShapeMismatch, args + "start (0) + length (" + to_string(sparse_dim) +
                                                ") exceeds dimension size (0).");
    return err(ErrorKind::kInvalidArgument,
               args + "Trying to create tensor with negative dimension " + to_string(sparse_dim) +
                   ": [" + to_string(sparse_dim) + ", 0]");
  }
  const std::vector<int64_t> sizes = sizes_of(*t);
  const size_t sd = static_cast<size_t>(sparse_dim);
  const int64_t dense_numel = prod(sizes, sd, sizes.size());
  const int64_t numel = t->numel();
  // Row-major order of elements is lexicographic order of sparse slices, so
  // the stored slices come sorted and unique (what unique_dim gives 1.13).
  std::vector<int64_t> slices;
  for (int64_t e = 0; e < numel; ++e) {
    if (!is_nonzero(buf.data() + e * is, t->dtype)) continue;
    const int64_t slice = e / dense_numel;
    if (slices.empty() || slices.back() != slice) slices.push_back(slice);
  }
  const int64_t nnz = static_cast<int64_t>(slices.size());
  std::vector<int64_t> value_sizes{nnz};
  value_sizes.insert(value_sizes.end(), sizes.begin() + static_cast<std::ptrdiff_t>(sd),
                     sizes.end());
  StepAllocs allocs(ctx, op);
  auto idx = allocs.zeros({sparse_dim, nnz}, DType::kI64);
  if (!idx.ok()) return idx.error();
  auto vals = allocs.zeros(value_sizes, t->dtype);
  if (!vals.ok()) return vals.error();
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t rest = slices[static_cast<size_t>(k)];
    for (int64_t d = sparse_dim - 1; d >= 0; --d) {
      store_int(at_w(*idx.value(), d * nnz + k), DType::kI64, rest % sizes[static_cast<size_t>(d)]);
      rest /= sizes[static_cast<size_t>(d)];
    }
    if (dense_numel > 0)
      std::memcpy(at_w(*vals.value(), k * dense_numel),
                  buf.data() + slices[static_cast<size_t>(k)] * dense_numel * is,
                  static_cast<size_t>(dense_numel * is));
  }
  // 1.13 takes a hybrid tensor's indices from unique_dim, which gives
  // strides [1, sparse_dim], and keeps them where is_contiguous() accepts
  // them (sparse_dim 1, or nnz 1); the offsets written above are the same.
  if (sparse_dim < dims && nnz > 0) {
    Geometry g = idx.value()->geom;
    g.strides[0] = 1;
    g.strides[1] = sparse_dim;
    if (g.is_contiguous()) idx.value()->geom = g;
  }
  // Note [Values layout of to_sparse]: the row-major values written above
  // move to the input's dense-dims layout (same bytes: a dense permutation).
  if (nnz > 0 && sparse_dim < dims) {
    TensorImpl& v = *vals.value();
    std::array<int64_t, kGeometryMaxDims> st{};
    coo_values_strides(*t, sparse_dim, nnz, idx.value()->geom.strides[1], st.data());
    if (!std::equal(st.begin(), st.begin() + v.rank(), v.geom.strides.begin())) {
      Geometry g = v.geom;
      for (int d = 0; d < g.rank; ++d) g.strides[d] = st[static_cast<size_t>(d)];
      const std::vector<uint8_t> rows = elements(v);
      int64_t e = 0;
      uint8_t* base = v.storage->mutable_data();
      for_each_offset(g, [&](int64_t o) {
        std::memcpy(base + o * is, rows.data() + e * is, static_cast<size_t>(is));
        ++e;
      });
      v.geom = g;
    }
  }
  allocs.commit();
  auto s = std::make_shared<SparseTensorImpl>();
  s->layout = SparseLayout::kCoo;
  s->sizes = sizes;
  s->dtype = t->dtype;
  s->sparse_dim = sparse_dim;
  s->dense_dim = dims - sparse_dim;
  s->coalesced = true;
  s->indices = std::move(idx).value();
  s->values = std::move(vals).value();
  return s;
}

Result<SparseTensor> to_sparse_csr(Context& ctx, const Tensor& t) {
  return dense_to_compressed(ctx, t, SparseLayout::kCsr, {1, 1});
}

Result<SparseTensor> to_sparse_csc(Context& ctx, const Tensor& t) {
  return dense_to_compressed(ctx, t, SparseLayout::kCsc, {1, 1});
}

Result<SparseTensor> to_sparse_bsr(Context& ctx, const Tensor& t,
                                   std::array<int64_t, 2> blocksize) {
  return dense_to_compressed(ctx, t, SparseLayout::kBsr, blocksize);
}

Result<SparseTensor> to_sparse_bsc(Context& ctx, const Tensor& t,
                                   std::array<int64_t, 2> blocksize) {
  return dense_to_compressed(ctx, t, SparseLayout::kBsc, blocksize);
}

// --- Construction from parts -----------------------------------------------------

Result<SparseTensor> sparse_coo_tensor(Context& ctx, const Tensor& indices, const Tensor& values_in,
                                       IntSpan sizes) {
  const char* op = "sparse_coo_tensor";
  Status st = rank_policy(sizes.size, op, "the tensor");
  if (!st.ok()) return st.error();
  if (indices->numel() > 0) {
    st = check_readable(*indices, op, "indices");
    if (!st.ok()) return st.error();
  }
  // expand_values_if_needed: a 0-d value is one value for one index.
  Tensor values = values_in;
  if (values_in->rank() == 0) {
    // A view, bounds-checked: an emptied 0-d value raises here, as
    // LibTorch's expand does (found by fake_fuzzer: `.value()` of that error
    // ended the process).
    const int64_t one[] = {1};
    Result<Tensor> e = expand(values_in, one);
    if (!e.ok()) return e.error();
    values = std::move(e).value();
  }
  const std::string sz = format_ints(sizes);
  if (indices->rank() != 2)
    return err(ErrorKind::kInvalidArgument,
               std::string(op) +
                   ": indices must be sparse_dim x nnz, but got: " + format_sizes(indices->geom));
  const int64_t sparse_dim = indices->size(0), nnz = indices->size(1);
  const int64_t dense_dim = values->rank() - 1;
  // LibTorch adds the two in int64: an indices size(0) near 2^63 overflows
  // (undefined there: the LibTorch backend refuses the step, S8,
  // coo_dims_overflow); the reference compares without overflowing (found
  // by fake_fuzzer with UBSan: indices [2^63-1, 0]) and raises the mismatch.
  if (sparse_dim != static_cast<int64_t>(sizes.size) - dense_dim)
    return err(ErrorKind::kShapeMismatch,
               std::string(op) + ": number of dimensions must be sparse_dim (" +
                   to_string(sparse_dim) + ") + dense_dim (" + to_string(dense_dim) +
                   "), but got " + to_string(sizes.size) + " (sizes " + sz + ")");
  const bool long_indices = indices->dtype == DType::kI64;
  const std::string not_long = std::string(op) + ": indices must be an int64 tensor, got " +
                               std::string(dtype_torch_name(indices->dtype));
  if (indices->numel() > 0) {
    if (!long_indices) return err(ErrorKind::kInvalidArgument, not_long);
    const std::vector<int64_t> idx = int_elements(*indices);
    for (int64_t d = 0; d < sparse_dim; ++d) {
      auto row = idx.begin() + d * nnz;
      const auto [lo, hi] = std::minmax_element(row, row + nnz);
      if (*lo < 0)
        return err(ErrorKind::kIndexOutOfRange, std::string(op) + ": found negative index " +
                                                    to_string(*lo) + " for dim " + to_string(d));
      if (*hi >= sizes[static_cast<int>(d)])
        return err(ErrorKind::kIndexOutOfRange,
                   std::string(op) + ": size is inconsistent with indices: for dim " +
                       to_string(d) + ", size is " + to_string(sizes[static_cast<int>(d)]) +
                       " but found index " + to_string(*hi) + " (sizes " + sz + ")");
    }
  }
  // The sparse tensor's numel (1.13 computes it, unsigned, when it sets the
  // sizes: a negative size is an overflow there).
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
  if (overflow || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return err(ErrorKind::kStorageSizeOverflow,
               std::string(op) + ": numel: integer multiplication overflow (sizes " + sz + ")");
  if (!long_indices) return err(ErrorKind::kInvalidArgument, not_long);
  if (values->size(0) != nnz)
    return err(ErrorKind::kShapeMismatch,
               std::string(op) +
                   ": indices and values must have same nnz, but got nnz from indices: " +
                   to_string(nnz) + ", nnz from values: " + to_string(values->size(0)));
  std::vector<int64_t> expected{nnz};
  expected.insert(expected.end(), sizes.begin() + sparse_dim, sizes.end());
  if (sizes_of(*values) != expected)
    return err(ErrorKind::kShapeMismatch,
               std::string(op) + ": values has incorrect size, expected " + ints(expected) +
                   ", got " + format_sizes(values->geom));
  (void)ctx;  // aliases its inputs: allocates nothing
  auto s = std::make_shared<SparseTensorImpl>();
  s->layout = SparseLayout::kCoo;
  s->sizes.assign(sizes.begin(), sizes.end());
  s->dtype = values->dtype;
  s->sparse_dim = sparse_dim;
  s->dense_dim = dense_dim;
  s->coalesced = nnz < 2;  // 1.13: a new tensor with nnz 0 or 1 is coalesced
  // Parts of their own that alias the inputs (S3: same storage and version
  // counter), not the inputs' objects: LibTorch's sparse tensor keeps its
  // parts when the input tensor's metadata changes in place (transpose_ of
  // the indices tensor; found by the CI fuzz smoke run of fake_fuzzer).
  s->indices = make_pooled<TensorImpl>(*indices);
  s->values = make_pooled<TensorImpl>(*values);
  return s;
}

Result<SparseTensor> sparse_compressed_tensor(Context& ctx, const Tensor& compressed_indices,
                                              const Tensor& plain_indices, const Tensor& values,
                                              IntSpan sizes, SparseLayout layout) {
  const char* op = "sparse_compressed_tensor";
  if (!is_compressed_layout(layout))
    return err(ErrorKind::kInvalidArgument, std::string(op) +
                                                ": expected a sparse compressed layout "
                                                "(sparse_csr, sparse_csc, sparse_bsr, "
                                                "sparse_bsc) but got " +
                                                layout_name(layout));
  Status st = rank_policy(sizes.size, op, "the tensor");
  if (!st.ok()) return st.error();
  const Tensor& ci = compressed_indices;
  const Tensor& pi = plain_indices;
  if (pi->numel() > 0) {  // the index invariants read both index parts
    st = check_readable(*ci, op, compressed_name(layout));
    if (!st.ok()) return st.error();
    st = check_readable(*pi, op, plain_name(layout));
    if (!st.ok()) return st.error();
  }
  const std::string cname = compressed_name(layout), pname = plain_name(layout);
  const std::string pre =
      std::string(op) + " (" + layout_name(layout) + ", sizes " + format_ints(sizes) + "): ";
  // _validate_sparse_compressed_tensor_args in 1.13's order.
  if (!pi->geom.is_contiguous())
    return err(ErrorKind::kInvalidArgument,
               pre + "expected " + pname + " to be a strided and contiguous tensor");
  if (!ci->geom.is_contiguous())
    return err(ErrorKind::kInvalidArgument,
               pre + "expected " + cname + " to be a strided and contiguous tensor");
  if (!values->geom.is_contiguous())
    return err(ErrorKind::kInvalidArgument,
               pre + "expected values to be a strided and contiguous tensor");
  const int batch_ndim = ci->rank() - 1;
  const int block_ndim = is_blocked_layout(layout) ? 2 : 0;
  const int dense_ndim = values->rank() - batch_ndim - block_ndim - 1;
  if (batch_ndim < 0)
    return err(ErrorKind::kShapeMismatch,
               pre + cname + " must have dimensionality >= 1 but got " + to_string(ci->rank()));
  if (ci->rank() != pi->rank())
    return err(ErrorKind::kShapeMismatch,
               pre + cname + " and " + pname + " dimensionalities must be equal but got " +
                   to_string(ci->rank()) + " and " + to_string(pi->rank()) + ", respectively");
  if (dense_ndim < 0)
    return err(ErrorKind::kShapeMismatch,
               pre +
                   "values must have dimensionality > sum of batch and block dimensionalities (=" +
                   to_string(batch_ndim) + " + " + to_string(block_ndim) + ") but got " +
                   to_string(values->rank()));
  if (sizes.size != batch_ndim + 2 + dense_ndim)
    return err(
        ErrorKind::kShapeMismatch,
        pre + "tensor dimensionality must be sum of batch, base, and dense dimensionalities (=" +
            to_string(batch_ndim) + " + 2 + " + to_string(dense_ndim) + ") but got " +
            to_string(sizes.size));
  std::array<int64_t, 2> bs{1, 1};
  if (block_ndim == 2)
    bs = {std::max<int64_t>(1, values->size(batch_ndim + 1)),
          std::max<int64_t>(1, values->size(batch_ndim + 2))};
  const std::vector<int64_t> batch(sizes.begin(), sizes.begin() + batch_ndim);
  auto lead = [&](const TensorImpl& p) {
    return std::vector<int64_t>(p.geom.sizes.begin(), p.geom.sizes.begin() + batch_ndim);
  };
  if (lead(*ci) != batch || lead(*pi) != batch || lead(*values) != batch)
    return err(ErrorKind::kShapeMismatch,
               pre + "all batch dimensions of " + cname + " (=" + ints(lead(*ci)) + "), " + pname +
                   " (=" + ints(lead(*pi)) + "), and values (=" + ints(lead(*values)) +
                   ") must be equal to tensor batch dimensions (=" + ints(batch) + ")");
  for (int i = 0; i < block_ndim; ++i)
    if (sizes[batch_ndim + i] % bs[static_cast<size_t>(i)] != 0)
      return err(ErrorKind::kShapeMismatch,
                 pre + "tensor shape[" + to_string(batch_ndim + i) + "] (=" +
                     to_string(sizes[batch_ndim + i]) + ") must be divisible with blocksize[" +
                     to_string(i) + "] (=" + to_string(bs[static_cast<size_t>(i)]) +
                     ") as defined by values shape");
  const int64_t nrows = sizes[batch_ndim] / bs[0], ncols = sizes[batch_ndim + 1] / bs[1];
  const bool by_row = row_compressed(layout);
  const int64_t cdim = by_row ? nrows : ncols, pdim = by_row ? ncols : nrows;
  // 1.13 adds the 1 in int64: for cdim 2^63 - 1 (sizes of INT64_MAX) that
  // overflows, which the LibTorch backend refuses (S8,
  // compressed_dims_overflow in oracles/layout_policy.h); the reference says
  // 2^63, which no size equals.
  if (cdim == std::numeric_limits<int64_t>::max() || ci->size(batch_ndim) != cdim + 1)
    return err(ErrorKind::kShapeMismatch,
               pre + cname + ".shape[-1] must be equal to the number of " +
                   (by_row ? "rows" : "columns") + " + 1 (=" +
                   (cdim == std::numeric_limits<int64_t>::max() ? std::string("9223372036854775808")
                                                                 : to_string(cdim + 1)) +
                   "), but got " + to_string(ci->size(batch_ndim)));
  const int64_t nnz = values->numel() > 0 ? values->size(batch_ndim) : 0;
  if (pi->size(batch_ndim) != nnz)
    return err(ErrorKind::kShapeMismatch,
               pre + pname + ".shape[-1] must be equal to nnz (=" + to_string(nnz) +
                   ") as defined by values.shape[" + to_string(batch_ndim) + "], but got " +
                   to_string(pi->size(batch_ndim)));
  if (ci->dtype != pi->dtype)
    return err(ErrorKind::kInvalidArgument,
               pre + cname + " and " + pname + " must have the same dtype, but got " +
                   std::string(dtype_scalar_type_name(ci->dtype)) + " and " +
                   std::string(dtype_scalar_type_name(pi->dtype)) + ", respectively");
  if (ci->dtype != DType::kI32 && ci->dtype != DType::kI64)
    return err(ErrorKind::kInvalidArgument, pre + cname + " and " + pname +
                                                " dtype must be Int or Long, but got " +
                                                std::string(dtype_scalar_type_name(ci->dtype)));
  if (pi->numel() > 0) {
    // _validate_compressed_sparse_indices (1.13's CPU order): every plain
    // index in bounds, then per batch and compressed position i: first is
    // 0, last is nnz, 0 <= c[i+1] - c[i] <= pdim, plain sorted and distinct
    // within [c[i], c[i+1]). 1.13 compares in the index dtype.
    const int64_t pbound = ci->dtype == DType::kI32 ? static_cast<int32_t>(pdim) : pdim;
    const std::vector<int64_t> c = int_elements(*ci), p = int_elements(*pi);
    const std::string pdim_name = by_row ? "ncols" : "nrows";
    for (int64_t v : p)
      if (v < 0 || v >= pbound)
        return err(ErrorKind::kIndexOutOfRange,
                   pre + "`0 <= " + pname + " < " + pdim_name + "` is not satisfied (" + pname +
                       " " + to_string(v) + ", " + pdim_name + " " + to_string(pdim) + ")");
    const int64_t n_batch = cdim + 1 > 0 ? static_cast<int64_t>(c.size()) / (cdim + 1) : 0;
    auto invariant = [&](const std::string& what) {
      return err(ErrorKind::kInvalidArgument, pre + "`" + what + "` is not satisfied.");
    };
    for (int64_t b = 0; b < n_batch; ++b) {
      const int64_t* cb = c.data() + b * (cdim + 1);
      const int64_t* pb = p.data() + b * nnz;
      for (int64_t i = 0; i < cdim; ++i) {
        if (cb[0] != 0) return invariant(cname + "[..., 0] == 0");
        if (cb[cdim] != nnz) return invariant(cname + "[..., -1] == nnz");
        const int64_t diff = cb[i + 1] - cb[i];
        if (diff < 0 || diff > pdim)
          return invariant("0 <= " + cname + "[..., 1:] - " + cname + "[..., :-1] <= " + pdim_name);
        // 1.13 reads [c[i], c[i+1]) unchecked against nnz; the reference clamps.
        for (int64_t k = std::max<int64_t>(cb[i], 0) + 1; k < std::min(cb[i + 1], nnz); ++k)
          if (!(pb[k - 1] < pb[k]))
            return invariant(pname + "[..., " + cname + "[..., i - 1]:" + cname +
                             "[..., i]] for all i = 1, ..., " + (by_row ? "nrows" : "ncols") +
                             " are sorted and distinct along the last dimension values");
      }
    }
  }
  // The sparse tensor's numel, unsigned, when 1.13 sets its sizes after the
  // checks (as sparse_coo_tensor: [3, -4] with nnz 0 overflows, [0, -4]
  // does not).
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t x : sizes) overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(x), &n);
  if (overflow || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return err(ErrorKind::kStorageSizeOverflow, pre + "numel: integer multiplication overflow");
  (void)ctx;  // aliases its inputs: allocates nothing
  auto s = std::make_shared<SparseTensorImpl>();
  s->layout = layout;
  s->sizes.assign(sizes.begin(), sizes.end());
  s->dtype = values->dtype;
  s->sparse_dim = 2;
  s->dense_dim = dense_ndim;
  if (block_ndim == 2) s->blocksize = {values->size(batch_ndim + 1), values->size(batch_ndim + 2)};
  s->index_dtype = ci->dtype;
  s->compressed_indices = ci;
  s->plain_indices = pi;
  s->values = values;
  return s;
}

// --- Sparse -> strided, coalesce ---------------------------------------------------

// Note [to_dense strides]
// The reference gives to_dense results 1.13's strides, so that observations
// of them match LibTorch:
// Case 1) COO and CSR: zeros(sizes).add_(s), contiguous.
// Case 2) CSC: densified as a CSR tensor of the transposed sizes and
//         returned transposed: sizes [.., m, n] get strides [.., 1, m].
// Case 3) BSR and BSC: the blocks are index_add_-ed into zeros viewed as
//         [batch, blocks, bs0, bs1], which is then unflattened to
//         [batch, m/bs0, n/bs1, bs0, bs1], transposed (2, 3) and reshaped to
//         the sizes: a view where the strides allow one (a (2, 1) blocksize
//         on a 2x2 matrix gives strides [1, 2]), else a contiguous copy (a
//         second allocation, as in LibTorch).
// Case 4) Parts on the meta device: the same result geometry on the meta
//         device (fake when the parts are), and nothing read or checked.
Result<Tensor> to_dense(Context& ctx, const SparseTensor& s) {
  const char* op = "to_dense";
  if (s->layout != SparseLayout::kCoo && !is_compressed_layout(s->layout))
    return err(ErrorKind::kInvalidArgument,
               std::string(op) + ": not a sparse layout: " + layout_name(s->layout) +
                   " (layout value " + to_string(static_cast<int>(s->layout)) + ")");
  Status st = check_parts(*s, op);
  if (!st.ok()) return st.error();
  st = rank_policy(s->rank(), op, "the result");
  if (!st.ok()) return st.error();
  st = check_parts_readable(*s, op);
  if (!st.ok()) return st.error();
  const DType d = s->dtype;
  const int64_t is = itemsize(d);
  const int r = s->rank();
  auto out_of_bounds = [&](const std::string& what) {
    return err(ErrorKind::kUndefinedBehavior,
               std::string(op) + ": not executed: undefined (S8): " + what + " for a " +
                   layout_name(s->layout) + " tensor of sizes " + ints(s->sizes) +
                   " (LibTorch would write out of bounds)");
  };
  // Case 4), with Note [Meta execution] (ops.cpp): meta parts (a fake twin's,
  // oracles/fake_twin_backend.cpp) give a meta result.
  DeviceScope device(ctx, *s->values);
  const bool meta = s->values->is_meta();
  StepAllocs allocs(ctx, op);

  if (s->layout == SparseLayout::kCoo) {
    auto out = allocs.zeros(s->sizes, d);
    if (!out.ok()) return out.error();
    if (meta) return out;
    const TensorImpl& o = *out.value();
    const std::vector<int64_t> idx = int_elements(*s->indices);
    const std::vector<uint8_t> vals = elements(*s->values);
    const int64_t nnz = s->indices->size(1), sd = s->indices->size(0);
    const int64_t dense_numel = prod(s->sizes, static_cast<size_t>(sd), s->sizes.size());
    for (int64_t k = 0; k < nnz; ++k) {
      int64_t base = 0;
      for (int64_t dd = 0; dd < sd; ++dd) {
        const int64_t i = idx[static_cast<size_t>(dd * nnz + k)];
        if (i < 0 || i >= s->sizes[static_cast<size_t>(dd)])
          return out_of_bounds("index " + to_string(i) + " of entry " + to_string(k) +
                               " is outside dim " + to_string(dd));
        base += i * o.geom.strides[static_cast<size_t>(dd)];
      }
      for (int64_t j = 0; j < dense_numel; ++j)
        accumulate(at_w(o, base + j), vals.data() + (k * dense_numel + j) * is, d);
    }
    allocs.commit();
    return out;
  }

  // Compressed. Note [PyTorch 1.13 sparse conversions], 5).
  const int64_t batch_ndim = s->compressed_indices->rank() - 1;
  if (r - batch_ndim != 2)
    return err(ErrorKind::kInvalidArgument,
               std::string(op) +
                   ": sparse_compressed_to_dense: Hybrid tensors are not supported (" +
                   layout_name(s->layout) + " of sizes " + ints(s->sizes) + " has dense_dim " +
                   to_string(r - batch_ndim - 2) + ")");
  const bool by_row = row_compressed(s->layout);
  const bool blocked = is_blocked_layout(s->layout);
  const int64_t compressed_dim = batch_ndim + (by_row ? 0 : 1),
                plain_dim = batch_ndim + (by_row ? 1 : 0);
  if (s->plain_indices->size(batch_ndim) > 0 &&
      s->sizes[static_cast<size_t>(compressed_dim)] == 0) {  // 6)
    if (blocked)
      return err(ErrorKind::kIndexOutOfRange,
                 std::string(op) + ": select(): index 0 out of range for tensor of size [0, " +
                     to_string(s->values->size(batch_ndim + 1)) + ", " +
                     to_string(s->values->size(batch_ndim + 2)) + "] at dimension 0");
    const int64_t rc[] = {-1, s->sizes[static_cast<size_t>(compressed_dim)],
                          s->sizes[static_cast<size_t>(plain_dim)]};
    return err(ErrorKind::kInvalidArgument,
               std::string(op) + ": cannot reshape tensor of 0 elements into shape " +
                   format_ints(IntSpan(rc)) +
                   " because the unspecified dimension size -1 can be any value and is ambiguous");
  }
  std::vector<int64_t> alloc_sizes = s->sizes;
  if (s->layout == SparseLayout::kCsc)
    std::swap(alloc_sizes[batch_ndim], alloc_sizes[batch_ndim + 1]);
  auto out = allocs.zeros(alloc_sizes, d);
  if (!out.ok()) return out.error();
  Tensor o = out.value();
  if (s->layout == SparseLayout::kCsc) {  // Case 2) of Note [to_dense strides]
    std::swap(o->geom.sizes[batch_ndim], o->geom.sizes[batch_ndim + 1]);
    std::swap(o->geom.strides[batch_ndim], o->geom.strides[batch_ndim + 1]);
  }
  const int64_t bs0 = blocked ? s->values->size(batch_ndim + 1) : 1;
  const int64_t bs1 = blocked ? s->values->size(batch_ndim + 2) : 1;
  const int64_t n_batch = prod(s->sizes, 0, static_cast<size_t>(batch_ndim));
  const int64_t rows = s->sizes[batch_ndim], cols = s->sizes[batch_ndim + 1];
  const IntSpan sizes(s->sizes.data(), r);
  // Where element (a, e) of block (gr, gc) of batch b goes.
  std::function<int64_t(int64_t, int64_t, int64_t, int64_t, int64_t)> offset;
  Tensor blocks;  // Case 3) of Note [to_dense strides]: [n_batch, blocks, bs0, bs1]
  if (blocked) {
    Tensor batched = o;
    if (r == 2) {
      batched = unsqueeze(o, 0).value();
    } else if (r > 3) {
      auto f = flatten(ctx, o, 0, batch_ndim - 1);  // a view: o is contiguous
      if (!f.ok()) return f.error();
      batched = f.value();
    }
    if (n_batch == 0) {
      auto e = reshape(ctx, batched, sizes);
      if (e.ok()) allocs.commit();
      return e;
    }
    const int64_t shape4[] = {n_batch, -1, bs0, bs1};
    auto b4 = reshape(ctx, batched, shape4);  // kInvalidArgument for a 0 blocksize, as 1.13
    if (!b4.ok()) return b4.error();
    blocks = b4.value();
    const Geometry& g = blocks->geom;
    offset = [g, bs1, cols](int64_t b, int64_t gr, int64_t gc, int64_t a, int64_t e) {
      return g.offset + b * g.strides[0] + (gr * (cols / bs1) + gc) * g.strides[1] +
             a * g.strides[2] + e * g.strides[3];
    };
  } else {
    const Geometry g = o->geom;
    const int64_t bd = batch_ndim;
    offset = [g, bd, sizes_v = s->sizes](int64_t b, int64_t gr, int64_t gc, int64_t, int64_t) {
      int64_t off = gr * g.strides[bd] + gc * g.strides[bd + 1];
      for (int64_t dd = bd - 1; dd >= 0; --dd) {
        off += b % sizes_v[static_cast<size_t>(dd)] * g.strides[dd];
        b /= sizes_v[static_cast<size_t>(dd)];
      }
      return off;
    };
  }
  const Tensor& target = blocked ? blocks : o;
  if (!meta) {  // Case 4)
    const std::vector<int64_t> c = int_elements(*s->compressed_indices),
                               p = int_elements(*s->plain_indices);
    const std::vector<uint8_t> vals = elements(*s->values);
    const int64_t cdim = s->compressed_indices->size(batch_ndim) - 1;
    const int64_t nnz = s->plain_indices->size(batch_ndim);
    for (int64_t b = 0; b < n_batch; ++b) {
      const int64_t* cb = c.data() + b * (cdim + 1);
      for (int64_t i = 0; i < cdim; ++i) {
        // An empty range reads nothing, wherever it points (ccol_indices filled
        // with 3 on an nnz-0 tensor: LibTorch gives zeros; found by fake_fuzzer).
        if (cb[i] > cb[i + 1] || (cb[i] < cb[i + 1] && (cb[i] < 0 || cb[i + 1] > nnz)))
          return out_of_bounds(compressed_name(s->layout) + " [" + to_string(cb[i]) + ", " +
                               to_string(cb[i + 1]) + ") at position " + to_string(i) +
                               " is not within nnz " + to_string(nnz));
        for (int64_t k = cb[i]; k < cb[i + 1]; ++k) {
          const int64_t pk = p[static_cast<size_t>(b * nnz + k)];
          const int64_t gr = by_row ? i : pk, gc = by_row ? pk : i;
          if (pk < 0 || (gr + 1) * bs0 > rows || (gc + 1) * bs1 > cols)
            return out_of_bounds(plain_name(s->layout) + " " + to_string(pk) + " of entry " +
                                 to_string(k) + " is outside the " + (by_row ? "columns" : "rows"));
          for (int64_t a = 0; a < bs0; ++a)
            for (int64_t e = 0; e < bs1; ++e)
              accumulate(at_w(*target, offset(b, gr, gc, a, e)),
                         vals.data() + (((b * nnz + k) * bs0 + a) * bs1 + e) * is, d);
        }
      }
    }
  }
  if (blocked) {
    const int64_t grid[] = {rows / bs0, cols / bs1};
    // The budget counts the result's bytes once (Note [Torch backend policy
    // checks] Case 1 in oracles/torch_backend.cpp): the reshape's copy, when
    // the strides allow no view, replaces the blocks buffer already charged
    // (a BSC [2,100000] failed the program total here where LibTorch ran;
    // found by fake_fuzzer).
    Context unbudgeted = ctx;
    unbudgeted.budget.max_total_bytes = std::numeric_limits<int64_t>::max();
    auto dense =
        reshape(unbudgeted, transpose(unflatten(blocks, 1, grid).value(), 2, 3).value(), sizes);
    if (!dense.ok()) return dense.error();
    allocs.commit();
    return dense;
  }
  allocs.commit();
  return o;
}

Result<SparseTensor> coalesce(Context& ctx, const SparseTensor& s) {
  const char* op = "coalesce";
  if (s->layout != SparseLayout::kCoo) return not_for_layout(*s, op, "is_coalesced", "sparse_coo");
  if (s->coalesced) return s;  // PyTorch returns self
  Status st = check_parts(*s, op);
  if (!st.ok()) return st.error();
  st = check_parts_readable(*s, op);
  if (!st.ok()) return st.error();
  const int64_t sd = s->indices->size(0), nnz = s->indices->size(1);
  const std::vector<int64_t> idx = int_elements(*s->indices);
  const std::vector<uint8_t> vals = elements(*s->values);
  const int64_t is = itemsize(s->dtype);
  const int64_t dense_numel = prod(s->sizes, static_cast<size_t>(sd), s->sizes.size());
  auto key_less = [&](int64_t a, int64_t b) {
    for (int64_t dd = 0; dd < sd; ++dd) {
      const int64_t x = idx[static_cast<size_t>(dd * nnz + a)],
                    y = idx[static_cast<size_t>(dd * nnz + b)];
      if (x != y) return x < y;
    }
    return false;
  };
  // A stable order: duplicates are summed in storage order (LibTorch's sort
  // need not be stable; for integers and exact sums the result is the same).
  std::vector<int64_t> order(static_cast<size_t>(nnz));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), key_less);
  std::vector<int64_t> firsts;  // positions in `order` that start a group
  for (int64_t k = 0; k < nnz; ++k)
    if (k == 0 || key_less(order[static_cast<size_t>(k - 1)], order[static_cast<size_t>(k)]))
      firsts.push_back(k);
  const int64_t out_nnz = static_cast<int64_t>(firsts.size());
  // 1.13 allocates for the old nnz and narrows to the new one.
  std::vector<int64_t> value_sizes{nnz};
  value_sizes.insert(value_sizes.end(), s->sizes.begin() + sd, s->sizes.end());
  StepAllocs allocs(ctx, op);
  auto oi = allocs.zeros({sd, nnz}, DType::kI64);
  if (!oi.ok()) return oi.error();
  auto ov = allocs.zeros(value_sizes, s->dtype);
  if (!ov.ok()) return ov.error();
  oi.value()->geom.sizes[1] = out_nnz;
  ov.value()->geom.sizes[0] = out_nnz;
  for (int64_t g = 0; g < out_nnz; ++g) {
    const int64_t from = firsts[static_cast<size_t>(g)];
    const int64_t to = g + 1 < out_nnz ? firsts[static_cast<size_t>(g + 1)] : nnz;
    const int64_t lead = order[static_cast<size_t>(from)];
    for (int64_t dd = 0; dd < sd; ++dd)
      store_int(at_w(*oi.value(), dd * nnz + g), DType::kI64,
                idx[static_cast<size_t>(dd * nnz + lead)]);
    for (int64_t m = from; m < to; ++m) {
      const int64_t src = order[static_cast<size_t>(m)];
      for (int64_t j = 0; j < dense_numel; ++j)
        accumulate(at_w(*ov.value(), g * dense_numel + j),
                   vals.data() + (src * dense_numel + j) * is, s->dtype);
    }
  }
  allocs.commit();
  auto c = std::make_shared<SparseTensorImpl>(*s);
  c->coalesced = true;
  c->indices = std::move(oi).value();
  c->values = std::move(ov).value();
  return c;
}

// --- Accessors ------------------------------------------------------------------------

Result<Tensor> indices(const SparseTensor& s) {
  if (s->layout != SparseLayout::kCoo)
    return not_for_layout(*s, "indices", "indices",
                          "sparse_coo (compressed layouts have crow_indices()/col_indices() or "
                          "ccol_indices()/row_indices())");
  if (!s->coalesced)
    return err(
        ErrorKind::kInvalidArgument,
        "indices(): Cannot get indices on an uncoalesced tensor, please call .coalesce() first "
        "(or use _indices())");
  return part_alias(*s, s->indices, "indices");
}

Result<Tensor> indices_unchecked(const SparseTensor& s) {
  if (s->layout != SparseLayout::kCoo)
    return not_for_layout(*s, "_indices", "_indices", "sparse_coo");
  return part_alias(*s, s->indices, "_indices");
}

Result<Tensor> values(const SparseTensor& s) {
  if (s->layout == SparseLayout::kCoo) {
    if (!s->coalesced)
      return err(
          ErrorKind::kInvalidArgument,
          "values(): Cannot get values on an uncoalesced tensor, please call .coalesce() first "
          "(or use _values())");
  } else if (!is_compressed_layout(s->layout)) {
    return not_for_layout(*s, "values", "values", "sparse");
  }
  return part_alias(*s, s->values, "values");
}

Result<Tensor> values_unchecked(const SparseTensor& s) {
  if (s->layout != SparseLayout::kCoo)
    return not_for_layout(*s, "_values", "_values", "sparse_coo");
  return part_alias(*s, s->values, "_values");
}

Result<Tensor> crow_indices(const SparseTensor& s) {
  return compressed_part(s, true, true, "crow_indices");
}
Result<Tensor> col_indices(const SparseTensor& s) {
  return compressed_part(s, true, false, "col_indices");
}
Result<Tensor> ccol_indices(const SparseTensor& s) {
  return compressed_part(s, false, true, "ccol_indices");
}
Result<Tensor> row_indices(const SparseTensor& s) {
  return compressed_part(s, false, false, "row_indices");
}

// --- Fake conversion (F4) ---------------------------------------------------------------

// Note [Fake conversion of sparse tensors]
// Case 1) COO, kPyTorch: 1.13's MetaConverter calls
//         _sparse_coo_tensor_with_dims(sparse_dim, dense_dim, sizes) on the
//         meta device and copies is_coalesced(): nnz 0, indices [sparse_dim, 0]
//         and values [0, dense sizes...], fresh and contiguous.
// Case 2) Compressed, kPyTorch: 1.13's converter does not convert them (it
//         hands back the real tensor, and FakeTensorConverter raises
//         UnsupportedFakeTensorException "meta converter nyi"). SEMANTICS F4
//         picks PyTorch 2.x's behaviour instead:
//         _sparse_compressed_tensor_with_dims(nnz=0, dense_dim, sizes,
//         blocksize, index_dtype): compressed [batch..., n_compressed + 1],
//         plain [batch..., 0], values [batch..., 0, (blocksize...), dense
//         sizes...], fresh and contiguous. The oracle's known-divergence list
//         records 1.13's refusal.
// Case 3) kFaithful (any layout): nnz, the coalesced flag and every part's
//         sizes, strides, offset, dtype and storage bytes, as the real parts
//         have them (what F8's to_meta keeps for COO, and more).
// Case 4) Unsupported (kUnsupportedFakeTensor, naming the reason): a layout
//         value that is not sparse (strided, or not a SparseLayout at all), a
//         tensor missing a part, a kPyTorch compressed tensor that
//         _sparse_compressed_tensor_with_dims would reject; and views whose
//         base is a sparse tensor (sparse_view_to_meta), which 1.13's
//         converter refuses ("t._is_view() and t._base.is_sparse").
Result<SparseMeta> sparse_to_meta(const SparseTensor& s, SparseFakeMode mode) {
  SC_ASSERT(s != nullptr, "Incorrect usage: sparse_to_meta of a null SparseTensor");
  if (s->layout == SparseLayout::kStrided)  // Case 4)
    return unsupported(
        "layout strided is not a sparse layout (a strided tensor converts through "
        "MetaConverter)");
  if (s->layout != SparseLayout::kCoo && !is_compressed_layout(s->layout))
    return unsupported("unknown layout value " + to_string(static_cast<int>(s->layout)) +
                       " (expected sparse_coo, sparse_csr, sparse_csc, sparse_bsr or sparse_bsc)");
  Status st = check_parts(*s, "sparse_to_meta");
  if (!st.ok()) return unsupported(st.error().message);
  SparseMeta m;
  m.layout = s->layout;
  m.sizes = s->sizes;
  m.dtype = s->dtype;
  m.sparse_dim = s->sparse_dim;
  m.dense_dim = s->dense_dim;
  m.coalesced = s->coalesced;
  m.blocksize = s->blocksize;
  m.index_dtype = s->index_dtype;
  if (mode == SparseFakeMode::kFaithful) {  // Case 3)
    m.nnz = s->nnz();
    if (s->layout == SparseLayout::kCoo) {
      m.indices = part_meta(*s->indices);
    } else {
      m.compressed_indices = part_meta(*s->compressed_indices);
      m.plain_indices = part_meta(*s->plain_indices);
    }
    m.values = part_meta(*s->values);
    return m;
  }
  m.nnz = 0;
  const size_t r = s->sizes.size();
  for (int64_t v : s->sizes)
    if (v < 0) return unsupported("negative size in " + ints(s->sizes));
  if (s->layout == SparseLayout::kCoo) {  // Case 1)
    std::vector<int64_t> vs{0};
    vs.insert(vs.end(), s->sizes.begin() + std::min<size_t>(static_cast<size_t>(s->sparse_dim), r),
              s->sizes.end());
    m.indices = empty_part({s->sparse_dim, 0}, DType::kI64);
    m.values = empty_part(vs, s->dtype);
    return m;
  }
  // Case 2)
  const int64_t batch = static_cast<int64_t>(r) - 2 - s->dense_dim;
  if (batch < 0)
    return unsupported(
        "sparse_compressed_tensor_with_dims: dimensionality must be at least dense_dim(=" +
        to_string(s->dense_dim) + ") + sparse_dim(=2), but got " + to_string(r));
  const bool blocked = is_blocked_layout(s->layout);
  const bool by_row = row_compressed(s->layout);
  const std::array<int64_t, 2> bs = blocked ? s->blocksize : std::array<int64_t, 2>{1, 1};
  if (blocked && !(bs[0] > 0 && bs[1] > 0))
    return unsupported(
        "sparse_compressed_tensor_with_dims: blocksize needs to be positive, but got [" +
        to_string(bs[0]) + ", " + to_string(bs[1]) + "]");
  const int64_t rows = s->sizes[static_cast<size_t>(batch)],
                cols = s->sizes[static_cast<size_t>(batch) + 1];
  if (rows % bs[0] != 0 || cols % bs[1] != 0)
    return unsupported("sparse_compressed_tensor_with_dims: sizes " + ints(s->sizes) +
                       " are not multiples of the blocksize");
  std::vector<int64_t> lead(s->sizes.begin(), s->sizes.begin() + batch);
  std::vector<int64_t> cs = lead, ps = lead, vs = lead;
  cs.push_back((by_row ? rows / bs[0] : cols / bs[1]) + 1);
  ps.push_back(0);
  vs.push_back(0);
  if (blocked) vs.insert(vs.end(), bs.begin(), bs.end());
  vs.insert(vs.end(), s->sizes.begin() + batch + 2, s->sizes.end());
  Status rk = rank_policy(static_cast<int64_t>(vs.size()), "sparse_to_meta", "values");
  if (!rk.ok()) return unsupported(rk.error().message);
  m.compressed_indices = empty_part(cs, s->index_dtype);
  m.plain_indices = empty_part(ps, s->index_dtype);
  m.values = empty_part(vs, s->dtype);
  return m;
}

Status sparse_view_to_meta(const Tensor& t, const SparseTensorImpl& base) {
  std::string part = "a part";
  const std::pair<const Tensor*, std::string> parts[] = {
      {&base.indices, "indices"},
      {&base.compressed_indices, compressed_name(base.layout)},
      {&base.plain_indices, plain_name(base.layout)},
      {&base.values, "values"}};
  for (const auto& [p, name] : parts)
    if (*p && (*p)->storage == t->storage) part = "the " + name;
  // Case 4) of Note [Fake conversion of sparse tensors].
  return unsupported(
      "the tensor (sizes " + format_sizes(t->geom) + ") is a view of " + part + " of a " +
      layout_name(base.layout) +
      " tensor; a view of a sparse base is not a sparse tensor and "
      "PyTorch's MetaConverter does not convert it (meta converter nyi). Convert the sparse "
      "tensor itself, or take _values()/_indices(), which are not views");
}

}  // namespace storcheck
