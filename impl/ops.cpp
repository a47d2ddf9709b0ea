#include "impl/ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "impl/fault.h"
#include "impl/pool.h"
#include "impl/rand.h"

namespace storcheck {

// Note [Check order]
// Each op checks in the order LibTorch 1.13 checks, so that when several
// arguments are wrong both report the same first error. Harness policies
// (allocation limits, S8, S9 checked offsets, negative sizes that LibTorch
// would turn into a negative-size tensor, result-list and rank bounds) come
// before everything: the LibTorch backend applies them before it calls
// LibTorch at all.

namespace detail {
namespace {

using std::to_string;

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

Error err(ErrorKind k, std::string msg) { return make_error(k, std::move(msg)); }

/// wrap_dim's error (out of line and cold: the check itself is a few
/// instructions on every view op's path; issue 8).
[[gnu::cold, gnu::noinline]] void dim_error(Error* e, int64_t dim, int64_t ndim) {
  if (ndim <= 0) {
    *e = err(ErrorKind::kDimOutOfRange,
             Msg() << "Dimension specified as " << dim << " but tensor has no dimensions");
    return;
  }
  *e = err(ErrorKind::kDimOutOfRange, Msg() << "Dimension out of range (expected to be in "
                                               "range of ["
                                            << -ndim << ", " << ndim - 1 << "], but got " << dim
                                            << ")");
}

/// c10::maybe_wrap_dim.
bool wrap_dim(int64_t dim, int64_t ndim, int64_t* out, Error* e, bool wrap_scalar = true) {
  if (ndim <= 0) {
    if (!wrap_scalar) {
      dim_error(e, dim, ndim);
      return false;
    }
    ndim = 1;
  }
  if (dim < -ndim || dim > ndim - 1) {
    dim_error(e, dim, ndim);
    return false;
  }
  *out = dim < 0 ? dim + ndim : dim;
  return true;
}

Geometry geom_from(IntSpan sizes, IntSpan strides, int64_t offset, int64_t itemsize) {
  Geometry g(sizes.size);
  for (int k = 0; k < sizes.size; ++k) {
    g.sizes[k] = sizes[k];
    g.strides[k] = k < strides.size ? strides[k] : 0;
  }
  g.offset = offset;
  g.itemsize = itemsize;
  return g;
}

Tensor make_view(const Tensor& base, const Geometry& g) {
  return make_pooled<TensorImpl>(*base, g);
}

Status rank_limit(int64_t rank, const char* op) {
  if (rank > kGeometryMaxDims)
    return err(ErrorKind::kResourceLimit, std::string(op) + ": result rank " + to_string(rank) +
                                              " exceeds storcheck's limit of " +
                                              to_string(kGeometryMaxDims) + " dims");
  return {};
}

bool numel_ok(const Geometry& g) { return safe_numel_ok(IntSpan(g.sizes.data(), g.rank)); }

Status negative_size_policy(IntSpan sizes, const char* op) {
  for (int64_t s : sizes)
    if (s < 0)
      return err(ErrorKind::kInvalidArgument,
                 std::string(op) + ": negative size in " + format_ints(sizes) +
                     " (storcheck refuses: LibTorch 1.13 can build a tensor with a negative size "
                     "here)");
  return {};
}

/// self.as_strided(sizes, strides, offset) as the view ops call it.
Result<Tensor> strided_view(const Tensor& t, const Geometry& g) {
  Status st = set_strided_checks(t->storage->nbytes(), g);
  if (!st.ok()) return st.error();
  return make_view(t, g);
}

Status check_compute_input(const TensorImpl& t, const char* op) {
  if (t.is_meta()) return {};  // a meta kernel reads no data: never undefined (F9)
  if (!storage_covers(t)) {
    int64_t need = -1;
    t.geom.required_bytes(&need);
    return err(ErrorKind::kUndefinedBehavior,
               Msg() << op << ": not executed: undefined (S8): sizes " << sizes_of(t.geom)
                     << ", strides " << strides_of(t.geom) << ", offset " << t.geom.offset
                     << " need " << need << " bytes, storage has " << t.storage->nbytes());
  }
  return {};
}

// Note [Meta execution]
// Meta and fake tensors (impl/fake.h) run through the same ops as real ones
// (F6): an op whose input is on the meta device (DeviceScope sets ctx.meta)
// makes every check eager makes (shapes, overlap, dtype casts, the scalar's
// range in fill_, S9 overflow; F9), then touches no data. Its fresh tensors
// get meta storages of the size eager would allocate, charged to no budget;
// S8 never applies (nothing is read), and neither does the restore rule R3
// (is_emptied is false on meta: a 0-byte meta storage holds nothing to
// restore). Outputs of ops on fake tensors are fake. copy_ out of a meta
// tensor into a real one raises, as LibTorch does; copy_ between fake and
// non-fake tensors raises, as FakeTensorMode does.

/// A fresh zero-filled tensor with the given geometry, in a storage sized
/// for it: offset 0, or (keep_offset) the geometry's offset with the
/// storage covering it too.
Result<Tensor> new_tensor(Context& ctx, const Geometry& geom, DType d, const char* op,
                          bool keep_offset = false) {
  // The geometry is copied once, into the tensor (a Geometry is 280 bytes;
  // a copy into a local first and the tensor's zeroed default were 30% of
  // this function's time, perf: issue 8).
  auto t = make_pooled<TensorImpl>(geom);
  Geometry& g = t->geom;
  if (!keep_offset) g.offset = 0;
  g.itemsize = itemsize(d);
  int64_t bytes;
  if (!g.required_bytes(&bytes) || !numel_ok(g))
    return err(ErrorKind::kStorageSizeOverflow,
               Msg() << op << ": Storage size calculation overflowed with sizes=" << sizes_of(g)
                     << " and strides=" << strides_of(g));
  if (ctx.meta) {  // Note [Meta execution]
    t->storage = Storage::make_meta(bytes);
  } else {
    auto s = Storage::allocate(&ctx.budget, bytes, op);
    if (!s.ok()) return s.error();
    t->storage = std::move(s).value();
  }
  t->storage->set_device(ctx.device);
  t->dtype = d;
  t->version = make_pooled<int64_t>(0);
  t->fake = ctx.fake;
  return t;
}

Result<Tensor> new_contiguous(Context& ctx, IntSpan sizes, DType d, const char* op) {
  for (int64_t s : sizes)
    if (s < 0)
      return err(ErrorKind::kInvalidArgument, "Trying to create tensor with negative dimension " +
                                                  to_string(s) + ": " + format_ints(sizes));
  Geometry g = geom_from(sizes, {}, 0, itemsize(d));
  contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
  return new_tensor(ctx, g, d, op);
}

/// An element pointer for writing; the caller has checked storage_covers.
/// Writes materialize a COW storage (C3, Note [COW materialization]).
uint8_t* elem_w(const TensorImpl& t, int64_t off) {
  return t.storage->mutable_data() + off * t.geom.itemsize;
}

std::string dtype_c_name(DType d) {
  switch (d) {
    case DType::kF32: return "float";
    case DType::kF64: return "double";
    case DType::kI32: return "int";
    case DType::kI64: return "int64_t";
    case DType::kU8: return "uint8_t";
    case DType::kBool: return "bool";
  }
  return "?";
}

/// Stores scalar `s` converted to dtype `d` at p.
void store_scalar(uint8_t* p, DType d, const Scalar& s) {
  if (s.kind == Scalar::Kind::kFloat)
    store_double(p, d, s.f);
  else
    store_int(p, d, s.i);
}

/// PyTorch's computeStride (view), or false when not expressible (S6).
bool compute_stride(const Geometry& old, IntSpan shape, int64_t* out) {
  int n = shape.size;
  if (old.rank == 0) {
    for (int k = 0; k < n; ++k) out[k] = 1;
    return true;
  }
  int64_t numel = 1;
  for (int d = 0; d < old.rank; ++d) numel = wrap_mul(numel, old.sizes[d]);
  if (numel == 0) {
    bool same = old.rank == n;
    for (int d = 0; same && d < n; ++d) same = old.sizes[d] == shape[d];
    if (same) {
      for (int d = 0; d < n; ++d) out[d] = old.strides[d];
      return true;
    }
    for (int d = n - 1; d >= 0; --d)
      out[d] = d == n - 1 ? 1 : wrap_mul(std::max<int64_t>(shape[d + 1], 1), out[d + 1]);
    return true;
  }
  int64_t view_d = n - 1;
  int64_t chunk_base_stride = old.strides[old.rank - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = old.rank - 1; td >= 0; --td) {
    tensor_numel = wrap_mul(tensor_numel, old.sizes[td]);
    if (td == 0 || (old.sizes[td - 1] != 1 &&
                    old.strides[td - 1] != wrap_mul(tensor_numel, chunk_base_stride))) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<int>(view_d)] == 1)) {
        out[view_d] = wrap_mul(view_numel, chunk_base_stride);
        view_numel = wrap_mul(view_numel, shape[static_cast<int>(view_d)]);
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base_stride = old.strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

/// PyTorch's infer_size: resolves one -1 against numel.
Status infer_size(IntSpan shape, int64_t numel, int64_t* out) {
  int64_t newsize = 1;
  int infer = -1;
  for (int d = 0; d < shape.size; ++d) {
    if (shape[d] == -1) {
      if (infer >= 0) return err(ErrorKind::kInvalidArgument, "only one dimension can be inferred");
      infer = d;
    } else if (shape[d] >= 0) {
      newsize = wrap_mul(newsize, shape[d]);
    } else {
      return err(ErrorKind::kInvalidArgument, "invalid shape dimension " + to_string(shape[d]));
    }
    out[d] = shape[d];
  }
  if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
    if (infer >= 0) {
      if (newsize == 0)
        return err(ErrorKind::kInvalidArgument,
                   "cannot reshape tensor of 0 elements into shape " + format_ints(shape) +
                       " because the unspecified dimension size -1 can be any value and is "
                       "ambiguous");
      out[infer] = numel / newsize;
    }
    return {};  // a wrapped product may match numel: see view_numel_ok
  }
  return err(ErrorKind::kShapeMismatch, "shape '" + format_ints(shape) +
                                            "' is invalid for input of size " + to_string(numel));
}

/// After infer_size and a compute_stride that found strides: a wrapped
/// product of the sizes can have matched numel, and the view's own numel is
/// then computed as LibTorch's set_sizes does (safe_compute_numel: an
/// unsigned product), which may overflow (S9; found by views_fuzzer on a
/// numel-0 input). In uint64 [2, 2^63-1, 0] does not: 2^64-2, then 0 (found
/// by views_fuzzer when this was a signed product). Checked only once the
/// strides are found: for a numel-1 input, [2^63-1, 2^63-1] (a product of 1
/// modulo 2^64) fails computeStride first, and LibTorch raises
/// view_incompatible (found by cow_fuzzer when this check was in infer_size).
Status view_numel_ok(IntSpan shape) {
  if (!safe_numel_ok(shape))
    return err(ErrorKind::kStorageSizeOverflow, "numel: integer multiplication overflow");
  return {};
}

constexpr const char* kViewIncompatibleMessage =
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead.";

/// Copies src's elements into fresh tensor `out` (same sizes), converting.
void copy_elements(const TensorImpl& src, const TensorImpl& out) {
  SC_ASSERT(src.rank() == out.rank() &&
                std::equal(src.geom.sizes.begin(), src.geom.sizes.begin() + src.rank(),
                           out.geom.sizes.begin()),
            "copy_elements into another shape");
  const uint8_t* in = src.storage->read_data();
  uint8_t* o = out.storage->mutable_data();
  if (src.dtype == out.dtype) {  // the bytes as they are
    visit_dtype(src.dtype, [&](auto tag) {
      using T = BitsOf<typename decltype(tag)::type>;
      for_each_offset2(src.geom, out.geom, [&](int64_t si, int64_t oi) {
        store_item<T>(o + oi * int64_t{sizeof(T)}, load_item<T>(in + si * int64_t{sizeof(T)}));
      });
    });
    return;
  }
  // convert_element's conversion in a loop typed for both dtypes (issue 8).
  visit_dtype(src.dtype, [&](auto ft) {
    using F = typename decltype(ft)::type;
    visit_dtype(out.dtype, [&](auto tt) {
      using T = typename decltype(tt)::type;
      for_each_offset2(src.geom, out.geom, [&](int64_t si, int64_t oi) {
        store_item<T>(o + oi * int64_t{sizeof(T)},
                      typed_convert<decltype(ft)::dtype, decltype(tt)::dtype, F, T>(
                          load_item<F>(in + si * int64_t{sizeof(F)})));
      });
    });
  });
}

/// TensorImpl::set_sizes_and_strides replaces a negative stride by the
/// stride that keeps strides monotonic: 1 for the last dim, else
/// max(size[d+1], 1) * stride[d+1] (wrapping, like LibTorch).
void replace_negative_strides(Geometry& g) {
  for (int d = g.rank - 1; d >= 0; --d) {
    if (g.strides[d] >= 0) continue;
    g.strides[d] =
        d == g.rank - 1 ? 1 : wrap_mul(std::max<int64_t>(g.sizes[d + 1], 1), g.strides[d + 1]);
  }
}

/// Output geometry of a unary TensorIterator op (add/mul with a scalar):
/// contiguous unless the input's strides ask for a permuted layout. `in`
/// is the operand as the iterator sees it (its strides and itemsize order
/// the dims), `out` has the output's sizes and itemsize. Writes out.strides.
/// A fresh output's negative (wrapped) strides are replaced as
/// set_sizes_and_strides does; `replace_negative` false keeps them (an out=
/// tensor's restride, Note [out=] 7, raises on them). Returns whether the
/// layout is permuted: TensorIterator restrides its output only then (for
/// the identity order it asks for a contiguous one, without strides).
bool iterator_output_strides(const Geometry& in, Geometry& out, bool replace_negative = true) {
  int n = in.rank;
  std::array<int, kGeometryMaxDims> perm{};
  // stride_bytes as TensorIterator computes them (wrapping, like LibTorch).
  layout_order(in, /*stride_bytes=*/true, perm.data());
  bool identity = true;
  for (int k = 0; k < n; ++k) identity &= perm[k] == n - 1 - k;
  if (identity) {
    contiguous_strides(n, in.sizes.data(), out.strides.data());
    return false;
  }
  // compatible_stride works in bytes and divides by the itemsize after: a
  // 0-element output's wrapped product differs from the element-unit one,
  // and a negative result goes through set_sizes_and_strides' replacement
  // (found by fake_fuzzer in CI on sizes [2^62,2,0]).
  int64_t next = out.itemsize;
  for (int k = 0; k < n; ++k) {
    out.strides[perm[k]] = next / out.itemsize;
    next = wrap_mul(next, in.sizes[perm[k]]);
  }
  if (replace_negative) replace_negative_strides(out);
  return true;
}


/// Gives back the budget of a tensor allocated by a step that then failed.
void refund(Context& ctx, const Tensor& t) {
  if (!t->is_meta()) ctx.budget.used -= t->storage->nbytes();
}

Result<Tensor> clone_with_strides(Context& ctx, const Tensor& t, const int64_t* strides,
                                  const char* op) {
  // LibTorch's order: the new allocation's size and limits, then S8.
  Geometry g = t->geom;
  for (int d = 0; d < g.rank; ++d) g.strides[d] = strides[d];
  auto out = new_tensor(ctx, g, t->dtype, op);
  if (!out.ok()) return out;
  Status st = check_compute_input(*t, op);
  if (!st.ok()) {
    refund(ctx, out.value());
    return st.error();
  }
  if (!t->is_meta()) copy_elements(*t, *out.value());
  return out;
}

Result<Tensor> clone_contiguous(Context& ctx, const Tensor& t, const char* op) {
  std::array<int64_t, kGeometryMaxDims> st{};
  contiguous_strides(t->rank(), t->geom.sizes.data(), st.data());
  return clone_with_strides(ctx, t, st.data(), op);
}

/// S8, then the order-dependence policy, then LibTorch's internal-overlap
/// check, for in-place arithmetic on `t`.
Status check_inplace_target(const TensorImpl& t, const char* op) {
  Status st = check_compute_input(t, op);
  if (!st.ok()) return st;
  MemOverlap mo = internal_overlap(t.geom);
  if (mo == MemOverlap::kTooHard && t.geom.has_overlap())
    return err(ErrorKind::kUndefinedBehavior,
               std::string(op) + ": not executed: undefined: the written tensor (sizes " +
                   format_sizes(t.geom) + ", strides " + format_strides(t.geom) +
                   ") has overlapping elements that LibTorch does not detect; the result "
                   "would depend on iteration order");
  if (mo == MemOverlap::kYes)
    return err(ErrorKind::kInternalOverlap,
               "unsupported operation: more than one element of the written-to tensor refers to "
               "a single memory location. Please clone() the tensor before performing the "
               "operation.");
  return {};
}

Status scalar_inplace(const Tensor& t, const Scalar& s, BinOp op, const char* name) {
  Status st = check_inplace_target(*t, name);
  if (!st.ok()) return st;
  DType common = result_type(t->dtype, s);
  if (!can_cast(common, t->dtype))
    return err(ErrorKind::kDtypeCast, "result type " + std::string(dtype_scalar_type_name(common)) +
                                          " can't be cast to the desired output type " +
                                          std::string(dtype_scalar_type_name(t->dtype)));
  if (t->is_meta()) {  // Note [Meta execution]: the checks, then no data
    ++*t->version;
    return {};
  }
  uint8_t sv[8];
  store_scalar(sv, t->dtype, s);
  // C3: the write materializes, once, for every view (the planted fault
  // writes through a partial view into the shared block).
  uint8_t* data =
      fault_active(Fault::kViewWriteSkipsCow) && (t->geom.offset != 0 || !t->geom.is_contiguous())
          ? const_cast<uint8_t*>(t->storage->read_data())
          : t->storage->mutable_data();
  visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T b = load_item<T>(sv);
    for_each_offset(t->geom, [&](int64_t o) {
      uint8_t* p = data + o * int64_t{sizeof(T)};
      store_item<T>(p, typed_binop<decltype(tag)::dtype>(load_item<T>(p), b, op));
    });
  });
  ++*t->version;
  return {};
}

Result<Tensor> scalar_outplace(Context& ctx, const Tensor& t, const Scalar& s, BinOp op,
                               const char* name) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  DType r = result_type(t->dtype, s);
  // On the CPU TensorIterator first converts an input of another dtype with
  // .to(), whose preserve-format strides and new itemsize then decide the
  // output's layout. On other devices (meta, CUDA) it does not
  // (compute_types promotes only when the common device is the CPU): the
  // input's own strides and itemsize order the dims (a meta bool [0,3,2^62]
  // whose contiguous strides wrapped to [-2^62,2^62,1] gives an int64
  // result of strides [1,0,0]; found by fake_fuzzer).
  Geometry in = t->geom;
  if (r != t->dtype && !t->is_meta() && t->device() == DeviceType::kCpu) {
    if (!in.is_non_overlapping_and_dense()) infer_dense_strides(t->geom, in.strides.data());
    in.itemsize = itemsize(r);
  }
  Geometry g = t->geom;
  g.itemsize = itemsize(r);
  iterator_output_strides(in, g);
  if (t->is_meta() && fault_active(Fault::kMetaOutplaceContiguous))
    contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
  auto out = new_tensor(ctx, g, r, name);
  if (!out.ok()) return out;
  Status st = check_compute_input(*t, name);
  if (!st.ok()) {
    refund(ctx, out.value());
    return st.error();
  }
  if (t->is_meta()) return out;  // Note [Meta execution]
  const TensorImpl& o = *out.value();
  uint8_t sv[8];
  store_scalar(sv, r, s);
  const uint8_t* src = t->storage->read_data();
  uint8_t* res = o.storage->mutable_data();
  visit_dtype(r, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr DType kD = decltype(tag)::dtype;
    const T b = load_item<T>(sv);
    if (t->dtype == r) {
      for_each_offset2(t->geom, o.geom, [&](int64_t ti, int64_t oi) {
        store_item<T>(res + oi * int64_t{sizeof(T)},
                      typed_binop<kD>(load_item<T>(src + ti * int64_t{sizeof(T)}), b, op));
      });
      return;
    }
    visit_dtype(t->dtype, [&](auto ft) {  // the input converted as convert_element does
      using F = typename decltype(ft)::type;
      for_each_offset2(t->geom, o.geom, [&](int64_t ti, int64_t oi) {
        const T a = typed_convert<decltype(ft)::dtype, kD, F, T>(
            load_item<F>(src + ti * int64_t{sizeof(F)}));
        store_item<T>(res + oi * int64_t{sizeof(T)}, typed_binop<kD>(a, b, op));
      });
    });
  });
  return out;
}

Geometry transposed(const Geometry& g, int64_t d0, int64_t d1) {
  Geometry r = g;
  std::swap(r.sizes[d0], r.sizes[d1]);
  bool faulty = fault_active(Fault::kTransposeSquareStrides) && g.sizes[d0] == g.sizes[d1] &&
                g.sizes[d0] > 1;
  if (!faulty) std::swap(r.strides[d0], r.strides[d1]);
  return r;
}

Geometry unsqueezed(const Geometry& g, int64_t dim) {
  Geometry r = g;
  int64_t st = dim >= g.rank ? 1 : wrap_mul(g.sizes[dim], g.strides[dim]);
  for (int64_t d = g.rank; d > dim; --d) {
    r.sizes[d] = g.sizes[d - 1];
    r.strides[d] = g.strides[d - 1];
  }
  r.sizes[dim] = 1;
  r.strides[dim] = st;
  r.rank = g.rank + 1;
  return r;
}

Geometry squeezed(const Geometry& g, int64_t dim) {
  Geometry r = g;
  for (int64_t d = dim; d + 1 < g.rank; ++d) {
    r.sizes[d] = g.sizes[d + 1];
    r.strides[d] = g.strides[d + 1];
  }
  r.rank = g.rank - 1;
  return r;
}

/// Number of results of split(split_size) over a dim of `dim_size`.
int64_t split_count(int64_t dim_size, int64_t split_size) {
  if (split_size == 0) return 1;
  return dim_size == 0 ? 1 : (dim_size - 1) / split_size + 1;
}

/// slice's clamps: negative bounds count from the end, then both lie in
/// [0, size] with end >= start.
void clamp_slice_bounds(int64_t size, int64_t* start, int64_t* end) {
  if (*start < 0) *start += size;
  if (*end < 0) *end += size;
  if (*start < 0) *start = 0;
  else if (*start >= size) *start = size;
  if (*end < *start) *end = *start;
  else if (*end >= size) *end = size;
}

Status split_arithmetic_policy(int64_t dim_size, int64_t k, bool by_chunks) {
  if (!split_arithmetic_overflows(dim_size, k, by_chunks)) return {};
  return err(ErrorKind::kUndefinedBehavior, split_arithmetic_message(dim_size, k, by_chunks));
}

Status split_policy(int64_t count, const char* op) {
  if (count > kMaxSplitResults)
    return err(ErrorKind::kResourceLimit,
               std::string(op) + " would produce " + to_string(count) +
                   " results, more than storcheck's limit of " + to_string(kMaxSplitResults));
  return {};
}

/// R3: zeros with geometry `g` (sizes, strides, offset) of dtype `d` in a
/// fresh storage sized for that geometry, offset included.
Result<Tensor> restored_zeros(Context& ctx, const Geometry& g, DType d, const char* op) {
  return new_tensor(ctx, g, d, op, /*keep_offset=*/true);
}

/// Whether clone path `op` applies the restore rule (always, unless the
/// planted fault limits it to `clone`).
bool restores(const char* op) {
  return !fault_active(Fault::kRestoreOnlyInClone) || std::string(op) == "clone";
}

}  // namespace

}  // namespace detail

using namespace detail;  // NOLINT: this file is the implementation of detail's users

Status set_strided_checks(int64_t storage_nbytes, const Geometry& g) {
  for (int d = 0; d < g.rank; ++d) {
    if (g.strides[d] < 0)
      return err(ErrorKind::kInvalidArgument,
                 Msg() << "as_strided: Negative strides are not supported at the moment, got "
                          "strides: "
                       << strides_of(g));
  }
  int64_t bytes;
  if (!g.extent_bytes(&bytes))
    return err(ErrorKind::kStorageSizeOverflow,
               Msg() << "Storage size calculation overflowed with sizes=" << sizes_of(g)
                     << " and strides=" << strides_of(g));
  if (bytes != 0) {
    // S9: LibTorch 1.13 wraps this sum silently (an out-of-bounds view).
    // (storage_offset_overflows(g), its strides and extent already checked.)
    int64_t total;
    if (!add_offset_bytes(g, bytes, &total))
      return err(ErrorKind::kStorageSizeOverflow,
                 Msg() << "storage offset " << g.offset << " with itemsize " << g.itemsize
                       << " overflows int64 (storage size overflow)");
    if (total > storage_nbytes)
      return err(ErrorKind::kOutOfBounds,
                 Msg() << "setStorage: sizes " << sizes_of(g) << ", strides " << strides_of(g)
                       << ", storage offset " << g.offset << ", and itemsize " << g.itemsize
                       << " requiring a storage size of " << total
                       << " are out of bounds for storage of size " << storage_nbytes);
  }
  if (g.offset < 0)
    return err(ErrorKind::kInvalidArgument, Msg() << "Tensor: invalid storage offset " << g.offset);
  if (!numel_ok(g))
    return err(ErrorKind::kStorageSizeOverflow, "numel: integer multiplication overflow");
  return {};
}

bool safe_numel_ok(IntSpan sizes) {
  uint64_t n = 1;
  bool of = false;
  for (int64_t x : sizes) of |= __builtin_mul_overflow(n, static_cast<uint64_t>(x), &n);
  return !of && n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

bool split_arithmetic_overflows(int64_t dim_size, int64_t k, bool by_chunks) {
  int64_t sum = 0;
  if (__builtin_add_overflow(dim_size, k - 1, &sum)) return true;
  if (!by_chunks) return false;
  int64_t split_size = sum / k;
  if (split_size == 0) return false;  // dim_size 0: split_with_sizes of zeros
  return __builtin_add_overflow(dim_size, split_size - 1, &sum);
}

bool slice_arithmetic_overflows(int64_t size, int64_t stride, int64_t offset, int64_t start,
                                int64_t end, int64_t step) {
  clamp_slice_bounds(size, &start, &end);
  int64_t x = 0;
  return __builtin_mul_overflow(start, stride, &x) || __builtin_add_overflow(offset, x, &x) ||
         __builtin_add_overflow(end - start, step - 1, &x) ||
         __builtin_mul_overflow(stride, step, &x);
}

std::string split_arithmetic_message(int64_t dim_size, int64_t k, bool by_chunks) {
  int64_t sum = 0;
  std::string what;
  if (!by_chunks)
    what = "split computes dim size " + to_string(dim_size) + " + split_size " + to_string(k);
  else if (__builtin_add_overflow(dim_size, k - 1, &sum))
    what = "chunk computes dim size " + to_string(dim_size) + " + chunks " + to_string(k);
  else
    what = "chunk splits by " + to_string(sum / k) + " and computes dim size " +
           to_string(dim_size) + " + " + to_string(sum / k);
  return std::string(by_chunks ? "chunk" : "split") + ": not executed: undefined: LibTorch's " +
         what + " - 1 in int64, which overflows (S8)";
}

std::string slice_arithmetic_message(std::string_view op, int64_t size, int64_t stride,
                                     int64_t offset, int64_t start, int64_t end, int64_t step) {
  return std::string(op) + ": not executed: undefined: LibTorch's slice of a dim of size " +
         to_string(size) + " and stride " + to_string(stride) + " at offset " +
         to_string(offset) + " from " + to_string(start) + " to " + to_string(end) + " by " +
         to_string(step) + " overflows int64 in its offset, size or stride arithmetic (S8)";
}

Status check_step_reads(const Context& ctx, const TensorImpl& t, const char* op) {
  if (t.is_meta() || t.numel() <= ctx.max_step_reads) return {};
  return err(ErrorKind::kResourceLimit,
             std::string(op) + ": would read " + to_string(t.numel()) +
                 " elements of its input (sizes " + format_sizes(t.geom) + ", strides " +
                 format_strides(t.geom) + "), more than storcheck's limit of " +
                 to_string(ctx.max_step_reads) + " per step (Limits::max_step_reads)");
}

bool storage_covers(const TensorImpl& t) {
  int64_t need;
  if (!t.geom.required_bytes(&need)) return false;
  return need <= t.storage->nbytes();
}

void read_elements(const TensorImpl& t, std::vector<uint8_t>* out) {
  read_observed_elements(t.storage->read_data(), t.geom, out);
}

// --- Factories ---------------------------------------------------------------

Result<Tensor> arange(Context& ctx, IntSpan sizes, DType d) {
  auto r = new_contiguous(ctx, sizes, d, "arange");
  if (!r.ok()) return r;
  const TensorImpl& t = *r.value();
  const int64_t n = t.numel();
  uint8_t* data = t.storage->mutable_data();
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t k = 0; k < n; ++k)
      store_item<T>(data + k * int64_t{sizeof(T)}, typed_from_int<decltype(tag)::dtype, T>(k));
  });
  return r;
}

Result<Tensor> zeros(Context& ctx, IntSpan sizes, DType d) {
  return new_contiguous(ctx, sizes, d, "zeros");
}

Result<Tensor> ones(Context& ctx, IntSpan sizes, DType d) {
  return full(ctx, sizes, Scalar::integer(1), d);
}

Result<Tensor> full(Context& ctx, IntSpan sizes, const Scalar& value, DType d) {
  auto r = new_contiguous(ctx, sizes, d, "full");
  if (!r.ok()) return r;
  if (!scalar_fits(d, value)) {
    ctx.budget.used -= r.value()->storage->nbytes();  // a failed step allocates nothing
    return err(ErrorKind::kScalarOverflow, "value cannot be converted to type " + dtype_c_name(d) +
                                               " without overflow");
  }
  const TensorImpl& t = *r.value();
  const int64_t n = t.numel();
  uint8_t sv[8];
  store_scalar(sv, d, value);
  uint8_t* data = t.storage->mutable_data();
  visit_dtype(d, [&](auto tag) {
    using T = BitsOf<typename decltype(tag)::type>;
    const T v = load_item<T>(sv);
    for (int64_t k = 0; k < n; ++k) store_item<T>(data + k * int64_t{sizeof(T)}, v);
  });
  return r;
}

Result<Tensor> rand(Context& ctx, IntSpan sizes, DType d, int64_t seed) {
  auto r = new_contiguous(ctx, sizes, d, "rand");
  if (!r.ok()) return r;
  const TensorImpl& t = *r.value();
  const int64_t n = t.numel();
  uint8_t* data = t.storage->mutable_data();
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr DType D = decltype(tag)::dtype;
    for (int64_t k = 0; k < n; ++k)
      store_item<T>(data + k * int64_t{sizeof(T)}, rand_item<D, T>(seed, k));
  });
  return r;
}

Result<Tensor> empty_strided(Context& ctx, IntSpan sizes, IntSpan strides, DType d) {
  if (sizes.size != strides.size)
    return err(ErrorKind::kInvalidArgument, "mismatch in length of strides and shape");
  for (int64_t s : sizes)
    if (s < 0)
      return err(ErrorKind::kInvalidArgument, "Trying to create tensor with negative dimension " +
                                                  to_string(s) + ": " + format_ints(sizes));
  auto r = new_tensor(ctx, geom_from(sizes, strides, 0, itemsize(d)), d, "empty_strided");
  if (!r.ok()) return r;
  // Negative strides: only on a size-1 dim or in a 0-element tensor, since
  // anything else overflowed above.
  replace_negative_strides(r.value()->geom);
  return r;
}

// --- Views -------------------------------------------------------------------

Result<Tensor> view(const Tensor& t, IntSpan sizes) {
  // Written by infer_size, then (when it succeeds) compute_stride, before
  // any read: not zeroed first (Note [Geometry copies]).
  std::array<int64_t, kGeometryMaxDims> shape, st;
  Status s = infer_size(sizes, t->numel(), shape.data());
  if (!s.ok()) return s.error();
  if (!compute_stride(t->geom, IntSpan(shape.data(), sizes.size), st.data()))
    return err(ErrorKind::kViewIncompatible, kViewIncompatibleMessage);
  Status n = view_numel_ok(IntSpan(shape.data(), sizes.size));
  if (!n.ok()) return n.error();
  Geometry g = geom_from(IntSpan(shape.data(), sizes.size), IntSpan(st.data(), sizes.size),
                         t->geom.offset, t->geom.itemsize);
  return make_view(t, g);
}

Result<Tensor> reshape(Context& ctx, const Tensor& t, IntSpan sizes) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  std::array<int64_t, kGeometryMaxDims> shape, st;  // as in view
  Status s = infer_size(sizes, t->numel(), shape.data());
  if (!s.ok()) return s.error();
  IntSpan sh(shape.data(), sizes.size);
  if (compute_stride(t->geom, sh, st.data())) {
    Status n = view_numel_ok(sh);
    if (!n.ok()) return n.error();
    return make_view(t, geom_from(sh, IntSpan(st.data(), sizes.size), t->geom.offset,
                                  t->geom.itemsize));
  }
  auto c = clone_contiguous(ctx, t, "reshape");
  if (!c.ok()) return c;
  // LibTorch views the contiguous clone (_unsafe_view), with the same checks
  // as view: a wrapped product that matched numel can still fail there.
  Status n = compute_stride(c.value()->geom, sh, st.data())
                 ? view_numel_ok(sh)
                 : Status(Error{ErrorKind::kViewIncompatible, kViewIncompatibleMessage});
  if (!n.ok()) {
    refund(ctx, c.value());
    return n.error();
  }
  Geometry g = geom_from(sh, {}, 0, t->geom.itemsize);
  contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
  c.value()->geom = g;
  return c;
}

Result<Tensor> as_strided(const Tensor& t, IntSpan sizes, IntSpan strides, int64_t offset) {
  Status p = negative_size_policy(sizes, "as_strided");
  if (!p.ok()) return p.error();
  if (sizes.size != strides.size)
    return err(ErrorKind::kInvalidArgument, "mismatch in length of strides and shape");
  return strided_view(t, geom_from(sizes, strides, offset, t->geom.itemsize));
}

namespace {

// Note [Pieces as geometries]
// split, chunk and unbind check every piece as LibTorch builds it (the first
// piece that fails is the step's error) but return one. The checks and the
// piece's geometry come from the *_geometry functions below, which are
// slice, narrow and select without the view; only the picked piece becomes
// a tensor (issue 8: building and freeing every piece was about 5% of the
// reference's execution).

Status select_geometry(const Tensor& t, int64_t dim, int64_t index, Geometry* out) {
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "select() cannot be applied to a 0-dim tensor.");
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  int64_t size = t->size(static_cast<int>(dim));
  if (index < -size || index >= size)
    return err(ErrorKind::kIndexOutOfRange, "select(): index " + to_string(index) +
                                                " out of range for tensor of size " +
                                                format_sizes(t->geom) + " at dimension " +
                                                to_string(dim));
  if (index < 0) index += size;
  *out = squeezed(t->geom, dim);
  out->offset = wrap_add(t->geom.offset, wrap_mul(index, t->stride(static_cast<int>(dim))));
  return set_strided_checks(t->storage->nbytes(), *out);
}

}  // namespace

Result<Tensor> select(const Tensor& t, int64_t dim, int64_t index) {
  Geometry g(0);  // Note [Geometry copies]: the *_geometry function fills it
  if (Status st = select_geometry(t, dim, index, &g); !st.ok()) return st.error();
  return make_view(t, g);
}

namespace {

Status slice_geometry(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step,
                      Geometry* out) {
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "slice() cannot be applied to a 0-dim tensor.");
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  if (step <= 0) return err(ErrorKind::kInvalidArgument, "slice step must be positive");
  int d = static_cast<int>(dim);
  int64_t size = t->size(d);
  if (slice_arithmetic_overflows(size, t->stride(d), t->geom.offset, start, end, step))
    return err(ErrorKind::kUndefinedBehavior,
               slice_arithmetic_message("slice", size, t->stride(d), t->geom.offset, start, end,
                                        step));
  clamp_slice_bounds(size, &start, &end);
  Geometry g = t->geom;
  g.offset = wrap_add(t->geom.offset, wrap_mul(start, t->stride(d)));
  int64_t len = end - start;
  g.sizes[d] = wrap_add(len, step - 1) / step;
  g.strides[d] = wrap_mul(t->stride(d), step);
  *out = g;
  return set_strided_checks(t->storage->nbytes(), g);
}

Status narrow_geometry(const Tensor& t, int64_t dim, int64_t start, int64_t length, Geometry* out) {
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "narrow() cannot be applied to a 0-dim tensor.");
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  int64_t cur = t->size(static_cast<int>(dim));
  if (start != cur && !wrap_dim(start, cur, &start, &e)) return e;
  if (!(length >= 0 && start <= cur - length))
    return err(ErrorKind::kShapeMismatch, "start (" + to_string(start) + ") + length (" +
                                              to_string(length) + ") exceeds dimension size (" +
                                              to_string(cur) + ").");
  return slice_geometry(t, dim, start, start + length, 1, out);
}

}  // namespace

Result<Tensor> slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Geometry g(0);  // Note [Geometry copies]: the *_geometry function fills it
  if (Status st = slice_geometry(t, dim, start, end, step, &g); !st.ok()) return st.error();
  return make_view(t, g);
}

Result<Tensor> narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Geometry g(0);  // Note [Geometry copies]: the *_geometry function fills it
  if (Status st = narrow_geometry(t, dim, start, length, &g); !st.ok()) return st.error();
  return make_view(t, g);
}

Result<Tensor> transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  Error e;
  if (!wrap_dim(dim0, t->rank(), &dim0, &e) || !wrap_dim(dim1, t->rank(), &dim1, &e)) return e;
  if (dim0 == dim1) return alias(t);
  return strided_view(t, transposed(t->geom, dim0, dim1));
}

Result<Tensor> t(const Tensor& x) {
  if (x->rank() > 2)
    return err(ErrorKind::kInvalidArgument, "t() expects a tensor with <= 2 dimensions, but self is " +
                                                to_string(x->rank()) + "D");
  return transpose(x, 0, x->rank() < 2 ? 0 : 1);
}

Result<Tensor> permute(const Tensor& t, IntSpan dims) {
  int n = t->rank();
  if (dims.size != n)
    return err(ErrorKind::kInvalidArgument,
               "permute(sparse_coo): number of dimensions in the tensor input does not match the "
               "length of the desired ordering of dimensions i.e. input.dim() = " +
                   to_string(n) + " is not equal to len(dims) = " + to_string(dims.size));
  Geometry g = t->geom;
  std::array<bool, kGeometryMaxDims> seen{};
  for (int k = 0; k < n; ++k) {
    int64_t d;
    Error e;
    if (!wrap_dim(dims[k], n, &d, &e)) return e;
    if (seen[d]) return err(ErrorKind::kInvalidArgument, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    g.sizes[k] = t->geom.sizes[d];
    g.strides[k] = t->geom.strides[d];
  }
  return strided_view(t, g);
}

Result<Tensor> movedim(const Tensor& t, int64_t src, int64_t dst) {
  int n = t->rank();
  Error e;
  if (!wrap_dim(src, n, &src, &e) || !wrap_dim(dst, n, &dst, &e)) return e;
  if (n == 0) return alias(t);
  std::array<int64_t, kGeometryMaxDims> order{};
  int k = 0;
  std::array<int64_t, kGeometryMaxDims> rest{};
  int m = 0;
  for (int d = 0; d < n; ++d)
    if (d != src) rest[m++] = d;
  int r = 0;
  for (int pos = 0; pos < n; ++pos) order[k++] = pos == dst ? src : rest[r++];
  return permute(t, IntSpan(order.data(), n));
}

/// A size below -1 where LibTorch 1.13 would take it (a new leading dim, a
/// size-1 dim, any dim of a 0-dim tensor): it builds a negative-size tensor
/// or fails later with a misleading numel overflow; storcheck rejects it
/// (policy, both backends: oracles/torch_backend.cpp check_expand_sizes).
static Error expand_size_not_allowed(IntSpan sizes, int k) {
  return err(ErrorKind::kInvalidArgument,
             "expand: size " + to_string(sizes[k]) + " at dim " + to_string(k) + " of " +
                 format_ints(sizes) +
                 " is not allowed (sizes must be >= 0, or -1 to keep an existing dim)");
}

Result<Tensor> expand(const Tensor& t, IntSpan sizes) {
  // ATen's order (at::expand, then inferExpandGeometry): the number of
  // sizes first, then the dims from the last to the first, so the first
  // bad dim from the right names the error (found by
  // pytorch.eager_matches_libtorch, seed 1933: [-1,3,5] on a [4,3] tensor
  // is dim 2's mismatch, not dim 0's -1).
  int tdim = t->rank();
  int ndim = sizes.size;
  if (ndim < tdim)
    return err(ErrorKind::kShapeMismatch,
               "expand(" + std::string(dtype_torch_name(t->dtype)) + "{" + format_sizes(t->geom) +
                   "}, size=" + format_ints(sizes) + "): the number of sizes provided (" +
                   to_string(ndim) + ") must be greater or equal to the number of dimensions in "
                   "the tensor (" + to_string(tdim) + ")");
  Geometry g = t->geom;
  g.rank = ndim;
  if (tdim == 0) {  // ATen takes the sizes as they are: a -1 too (policy)
    for (int i = 0; i < ndim; ++i) {
      if (sizes[i] < 0) return expand_size_not_allowed(sizes, i);
      g.sizes[i] = sizes[i];
      g.strides[i] = 0;
    }
    return strided_view(t, g);
  }
  for (int i = ndim - 1; i >= 0; --i) {
    int offset = ndim - 1 - i;
    int dim = tdim - 1 - offset;
    int64_t size = dim >= 0 ? t->size(dim) : 1;
    int64_t stride = dim >= 0 ? t->stride(dim) : wrap_mul(g.sizes[i + 1], g.strides[i + 1]);
    int64_t target = sizes[i];
    if (target == -1) {
      if (dim < 0)
        return err(ErrorKind::kInvalidArgument,
                   "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                   "dimension " +
                       to_string(i));
      target = size;
    } else if (target < -1 && size == 1) {  // a new leading dim's size is 1 too
      return expand_size_not_allowed(sizes, i);
    }
    if (size != target) {
      if (size != 1)
        return err(ErrorKind::kShapeMismatch,
                   "The expanded size of the tensor (" + to_string(target) +
                       ") must match the existing size (" + to_string(size) +
                       ") at non-singleton dimension " + to_string(i) + ".  Target sizes: " +
                       format_ints(sizes) + ".  Tensor sizes: " + format_sizes(t->geom));
      size = target;
      stride = 0;
    }
    g.sizes[i] = size;
    g.strides[i] = stride;
  }
  return strided_view(t, g);
}

Result<Tensor> unsqueeze(const Tensor& t, int64_t dim) {
  Status p = rank_limit(t->rank() + 1, "unsqueeze");
  if (!p.ok()) return p.error();
  Error e;
  if (!wrap_dim(dim, t->rank() + 1, &dim, &e)) return e;
  return strided_view(t, unsqueezed(t->geom, dim));
}

Result<Tensor> squeeze(const Tensor& t, int64_t dim) {
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  if (t->rank() == 0 || t->size(static_cast<int>(dim)) != 1) return strided_view(t, t->geom);
  return strided_view(t, squeezed(t->geom, dim));
}

Result<Tensor> flatten(Context& ctx, const Tensor& t, int64_t start, int64_t end) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  Error e;
  if (!wrap_dim(start, t->rank(), &start, &e) || !wrap_dim(end, t->rank(), &end, &e)) return e;
  if (start > end)
    return err(ErrorKind::kInvalidArgument,
               "flatten() has invalid args: start_dim cannot come after end_dim");
  if (t->rank() == 0) {
    const int64_t one[] = {1};
    return reshape(ctx, t, one);
  }
  if (start == end) return t;
  std::array<int64_t, kGeometryMaxDims> shape{};
  int n = 0;
  for (int64_t d = 0; d < start; ++d) shape[n++] = t->size(static_cast<int>(d));
  int64_t prod = 1;
  for (int64_t d = start; d <= end; ++d) prod = wrap_mul(prod, t->size(static_cast<int>(d)));
  shape[n++] = prod;
  for (int64_t d = end + 1; d < t->rank(); ++d) shape[n++] = t->size(static_cast<int>(d));
  return reshape(ctx, t, IntSpan(shape.data(), n));
}

Result<Tensor> unflatten(const Tensor& t, int64_t dim, IntSpan sizes) {
  Status p = rank_limit(t->rank() - 1 + sizes.size, "unflatten");
  if (!p.ok()) return p.error();
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  if (sizes.size == 0)
    return err(ErrorKind::kInvalidArgument, "unflatten: sizes must be non-empty");
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "Dimension specified as 0 but tensor has no dimensions");
  std::array<int64_t, kGeometryMaxDims> inferred{};
  int64_t dsize = t->size(static_cast<int>(dim));
  Status s = infer_size(sizes, dsize, inferred.data());
  if (!s.ok()) {
    if (s.error().message.find("is invalid for input of size") != std::string::npos)
      return err(ErrorKind::kShapeMismatch,
                 "unflatten: Provided sizes " + format_ints(sizes) +
                     " don't multiply up to the size of dim " + to_string(dim) + " (" +
                     to_string(dsize) + ") in the input tensor");
    if (s.error().message == "only one dimension can be inferred")
      return err(ErrorKind::kInvalidArgument,
                 "unflatten got an unexpected error:\nonly one dimension can be inferred");
    return s.error();
  }
  std::array<int64_t, kGeometryMaxDims> shape{};
  int n = 0;
  for (int64_t d = 0; d < dim; ++d) shape[n++] = t->size(static_cast<int>(d));
  for (int k = 0; k < sizes.size; ++k) shape[n++] = inferred[k];
  for (int64_t d = dim + 1; d < t->rank(); ++d) shape[n++] = t->size(static_cast<int>(d));
  return view(t, IntSpan(shape.data(), n));
}

Result<Tensor> diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  Error e;
  int64_t d1, d2;
  if (!wrap_dim(dim1, t->rank(), &d1, &e) || !wrap_dim(dim2, t->rank(), &d2, &e)) return e;
  if (d1 == d2)
    return err(ErrorKind::kInvalidArgument, "diagonal dimensions cannot be identical " +
                                                to_string(dim1) + ", " + to_string(dim2));
  int64_t s1 = t->size(static_cast<int>(d1)), s2 = t->size(static_cast<int>(d2));
  int64_t st1 = t->stride(static_cast<int>(d1)), st2 = t->stride(static_cast<int>(d2));
  int64_t diag;
  int64_t off = t->geom.offset;
  if (offset >= 0)
    diag = std::max<int64_t>(std::min(s1, s2 - offset), 0);
  else
    diag = std::max<int64_t>(std::min(s1 + offset, s2), 0);
  // LibTorch: storage_offset -= offset * stride(dim1), wrapping (a product
  // of INT64_MIN could not be negated; found by cow_fuzzer under UBSan).
  if (diag != 0)
    off = offset >= 0 ? wrap_add(off, wrap_mul(offset, st2)) : wrap_sub(off, wrap_mul(offset, st1));
  Geometry g = t->geom;
  g = squeezed(g, std::max(d1, d2));
  g = squeezed(g, std::min(d1, d2));
  g.sizes[g.rank] = diag;
  g.strides[g.rank] = wrap_add(st1, st2);
  g.rank += 1;
  g.offset = off;
  return strided_view(t, g);
}

Result<Tensor> unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  if (size < 0)
    return err(ErrorKind::kInvalidArgument,
               "unfold: negative size " + to_string(size) +
                   " (storcheck refuses: LibTorch 1.13 can build a tensor with a negative size here)");
  Status p = rank_limit(t->rank() == 0 ? 1 : t->rank() + 1, "unfold");
  if (!p.ok()) return p.error();
  Error e;
  int64_t d;
  if (!wrap_dim(dim, t->rank(), &d, &e)) return e;
  int n = t->rank();
  int64_t max_size = n == 0 ? 1 : t->size(static_cast<int>(d));
  if (size > max_size)
    return err(ErrorKind::kShapeMismatch, "maximum size for tensor at dimension " + to_string(d) +
                                              " is " + to_string(max_size) + " but size is " +
                                              to_string(size));
  if (step <= 0)
    return err(ErrorKind::kInvalidArgument, "step is " + to_string(step) + " but must be > 0");
  Geometry g = t->geom;
  g.rank = n + 1;
  g.sizes[n] = size;
  g.strides[n] = n == 0 ? 1 : t->stride(static_cast<int>(d));
  if (n > 0) {
    g.sizes[d] = wrap_add(wrap_add(t->size(static_cast<int>(d)), -size) / step, 1);
    g.strides[d] = wrap_mul(step, t->stride(static_cast<int>(d)));
  }
  return strided_view(t, g);
}

Result<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim, int64_t index) {
  int64_t wd;
  Error e;
  if (t->rank() > 0 && split_size > 0 && wrap_dim(dim, t->rank(), &wd, &e)) {
    Status p = split_policy(split_count(t->size(static_cast<int>(wd)), split_size), "split");
    if (!p.ok()) return p.error();
  }
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "split expects at least a 1-dimensional tensor");
  if (split_size < 0)
    return err(ErrorKind::kInvalidArgument,
               "split expects split_size be non-negative, but got split_size=" +
                   to_string(split_size));
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  int64_t dim_size = t->size(static_cast<int>(dim));
  if (!(split_size > 0 || dim_size == 0))
    return err(ErrorKind::kInvalidArgument,
               "split_size can only be 0 if dimension size is 0, but got dimension size of " +
                   to_string(dim_size));
  if (split_size > 0) {
    Status ub = split_arithmetic_policy(dim_size, split_size, false);
    if (!ub.ok()) return ub.error();
  }
  int64_t num = split_count(dim_size, split_size);
  int64_t last = dim_size - split_size * (num - 1);
  // LibTorch builds every piece (each bounds-checked) before one is picked
  // (Note [Pieces as geometries]).
  Geometry piece(0), picked(0);  // Note [Geometry copies]
  for (int64_t k = 0; k < num; ++k) {
    Status st = narrow_geometry(t, dim, k * split_size, k < num - 1 ? split_size : last, &piece);
    if (!st.ok()) return st.error();
    if (k == index) picked = piece;
  }
  if (index < 0 || index >= num)
    return err(ErrorKind::kIndexOutOfRange, "split: index " + to_string(index) +
                                                " out of range for " + to_string(num) + " results");
  return make_view(t, picked);
}

Result<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim, int64_t index) {
  if (chunks > kMaxSplitResults) {
    Status p = split_policy(chunks, "chunk");
    return p.error();
  }
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0)
    return err(ErrorKind::kInvalidArgument,
               "chunk expects `chunks` to be greater than 0, got: " + to_string(chunks));
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  int64_t dim_size = t->size(static_cast<int>(dim));
  Status ub = split_arithmetic_policy(dim_size, chunks, true);
  if (!ub.ok()) return ub.error();
  int64_t split_size = (dim_size + chunks - 1) / chunks;
  bool empty_chunks = split_size == 0 && dim_size == 0;  // split_with_sizes of zeros
  int64_t num = empty_chunks ? chunks : split_count(dim_size, split_size);
  int64_t last = dim_size - split_size * (num - 1);
  // LibTorch builds every piece (each bounds-checked) before one is picked
  // (Note [Pieces as geometries]).
  Geometry piece(0), picked(0);  // Note [Geometry copies]
  for (int64_t k = 0; k < num; ++k) {
    Status st = empty_chunks ? narrow_geometry(t, dim, 0, 0, &piece)
                             : narrow_geometry(t, dim, k * split_size,
                                               k < num - 1 ? split_size : last, &piece);
    if (!st.ok()) return st.error();
    if (k == index) picked = piece;
  }
  if (index < 0 || index >= num)
    return err(ErrorKind::kIndexOutOfRange, "chunk: index " + to_string(index) +
                                                " out of range for " + to_string(num) + " results");
  return make_view(t, picked);
}

Result<Tensor> unbind(const Tensor& t, int64_t dim, int64_t index) {
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  if (t->rank() == 0)
    return err(ErrorKind::kDimOutOfRange, "Dimension specified as " + to_string(dim) +
                                              " but tensor has no dimensions");
  int64_t size = t->size(static_cast<int>(dim));
  Status p = split_policy(size, "unbind");
  if (!p.ok()) return p.error();
  // LibTorch selects every slice (each bounds-checked) before one is picked
  // (Note [Pieces as geometries]).
  Geometry piece(0), picked(0);  // Note [Geometry copies]
  for (int64_t k = 0; k < size; ++k) {
    Status st = select_geometry(t, dim, k, &piece);
    if (!st.ok()) return st.error();
    if (k == index) picked = piece;
  }
  if (index < 0 || index >= size)
    return err(ErrorKind::kIndexOutOfRange, "unbind: index " + to_string(index) +
                                                " out of range for " + to_string(size) + " results");
  return make_view(t, picked);
}

Result<Tensor> alias(const Tensor& t) { return make_view(t, t->geom); }

Result<Tensor> detach(const Tensor& t) { return make_view(t, t->geom); }

// Note [view_dtype]
// Tensor.view(dtype) reinterprets the bytes of t's storage (PyTorch's
// view_dtype; each rule below checked in PyTorch 1.13, whose checks 2.x's
// source keeps): a new tensor over the same storage sharing t's version
// counter (S2, S3), but no autograd view (`_is_view()` false, `_base`
// None: MetaConverter converts it through its storage, F2),
// and a new tensor even for t's own dtype. Of the same item size it keeps
// sizes, strides and offset. Otherwise, in LibTorch's order: a 0-dim t
// raises; a smaller item multiplies the strides but the last (which must be
// 1), the last size and the offset by the size ratio; a larger one needs the
// last size, the offset, then (last stride 1 first) every other stride
// divisible by the ratio, and divides them. No bounds check: the result
// covers exactly t's bytes. LibTorch multiplies in int64 without a check;
// view_dtype_arithmetic_overflows (impl/ops.h) is that overflow, refused as
// S8, and so is a result stride LibTorch's set_sizes_and_strides would
// recompute (a negative one, only ever a wrapped one: the LibTorch and
// PyTorch backends refuse view_dtype of such an input). storcheck's
// language takes integral dtypes only (Note [Layout policy],
// oracles/layout_policy.cpp): float bits are compared with a tolerance,
// and a byte that is not 0 or 1 read as bool is undefined.
bool view_dtype_arithmetic_overflows(const Geometry& g, int64_t new_itemsize) {
  if (g.rank == 0 || g.itemsize <= new_itemsize || g.strides[g.rank - 1] != 1) return false;
  const int64_t ratio = g.itemsize / new_itemsize;
  int64_t x = 0;
  for (int d = 0; d + 1 < g.rank; ++d)
    if (__builtin_mul_overflow(g.strides[d], ratio, &x)) return true;
  return __builtin_mul_overflow(g.sizes[g.rank - 1], ratio, &x) ||
         __builtin_mul_overflow(g.offset, ratio, &x);
}

std::string view_dtype_arithmetic_message(const Geometry& g, DType from, DType to) {
  return "view_dtype: not executed: undefined: viewing " +
         std::string(dtype_scalar_type_name(from)) + " as " +
         std::string(dtype_scalar_type_name(to)) + ", LibTorch multiplies the strides " +
         format_strides(g) + ", the last size of " + format_sizes(g) + " and the offset " +
         to_string(g.offset) + " by " + to_string(g.itemsize / itemsize(to)) +
         " in int64, which overflows (S8)";
}

Result<Tensor> view_dtype(const Tensor& t, DType d) {
  const Geometry& in = t->geom;
  Geometry g = in;
  g.itemsize = itemsize(d);
  // Spelled only on the error paths: view_dtype runs often (issue 8).
  auto what = [&] {
    return " to view " + std::string(dtype_scalar_type_name(t->dtype)) + " as " +
           std::string(dtype_scalar_type_name(d)) + " (different element sizes)";
  };
  if (g.itemsize != in.itemsize) {
    if (in.rank == 0) return err(ErrorKind::kInvalidArgument, "self.dim() cannot be 0" + what());
    const int last = in.rank - 1;
    auto need_stride_1 = [&]() -> Status {
      if (in.strides[last] == 1) return {};
      return err(ErrorKind::kInvalidArgument,
                 "self.stride(-1) must be 1" + what() + ", but got " + to_string(in.strides[last]));
    };
    if (in.itemsize > g.itemsize) {  // downsizing
      const int64_t ratio = in.itemsize / g.itemsize;
      if (Status s = need_stride_1(); !s.ok()) return s.error();
      if (view_dtype_arithmetic_overflows(in, g.itemsize))
        return err(ErrorKind::kUndefinedBehavior, view_dtype_arithmetic_message(in, t->dtype, d));
      for (int k = 0; k < last; ++k) g.strides[k] = in.strides[k] * ratio;
      g.sizes[last] = in.sizes[last] * ratio;
      g.offset = in.offset * ratio;
    } else {  // upsizing
      const int64_t ratio = g.itemsize / in.itemsize;
      if (in.sizes[last] % ratio != 0)
        return err(ErrorKind::kInvalidArgument, "self.size(-1) must be divisible by " +
                                                    to_string(ratio) + what() + ", but got " +
                                                    to_string(in.sizes[last]));
      if (in.offset % ratio != 0)
        return err(ErrorKind::kInvalidArgument, "self.storage_offset() must be divisible by " +
                                                    to_string(ratio) + what() + ", but got " +
                                                    to_string(in.offset));
      if (Status s = need_stride_1(); !s.ok()) return s.error();
      for (int k = 0; k < last; ++k) {
        if (in.strides[k] % ratio != 0)
          return err(ErrorKind::kInvalidArgument,
                     "self.stride(" + to_string(k) + ") must be divisible by " + to_string(ratio) +
                         what() + ", but got " + to_string(in.strides[k]));
        g.strides[k] = in.strides[k] / ratio;
      }
      g.sizes[last] = in.sizes[last] / ratio;
      g.offset = in.offset / ratio;
    }
    g.strides[last] = 1;
  }
  Tensor r = make_view(t, g);
  r->dtype = d;
  return r;
}

// --- In-place writes ------------------------------------------------------------

Status add_(const Tensor& t, const Scalar& s) { return scalar_inplace(t, s, BinOp::kAdd, "add_"); }
Status mul_(const Tensor& t, const Scalar& s) { return scalar_inplace(t, s, BinOp::kMul, "mul_"); }

Status fill_(const Tensor& t, const Scalar& s) {
  Status st = check_compute_input(*t, "fill_");
  if (!st.ok()) return st;
  if (!scalar_fits(t->dtype, s))
    return err(ErrorKind::kScalarOverflow, "value cannot be converted to type " +
                                               dtype_c_name(t->dtype) + " without overflow");
  if (t->is_meta()) {  // F9: the range check above, then no data
    ++*t->version;
    return {};
  }
  uint8_t sv[8];
  store_scalar(sv, t->dtype, s);
  uint8_t* data = t->storage->mutable_data();  // C3
  visit_dtype(t->dtype, [&](auto tag) {
    using T = BitsOf<typename decltype(tag)::type>;
    const T v = load_item<T>(sv);
    for_each_offset(t->geom, [&](int64_t o) { store_item<T>(data + o * int64_t{sizeof(T)}, v); });
  });
  ++*t->version;
  return {};
}

Status zero_(const Tensor& t) { return fill_(t, Scalar::integer(0)); }

Status fill_(const Context& ctx, const Tensor& t, const Scalar& s, const char* op) {
  Status st = check_compute_input(*t, op);
  if (st.ok()) st = check_step_reads(ctx, *t, op);
  if (!st.ok()) return st;
  return fill_(t, s);
}

Status copy_(const Tensor& dst, const Tensor& src) {
  if (dst->fake != src->fake)  // FakeTensorMode refuses to mix fake and real tensors
    return err(ErrorKind::kDeviceMismatch,
               std::string("copy_: FakeTensorMode: a ") + (dst->fake ? "fake" : "non-fake") +
                   " destination with a " + (src->fake ? "fake" : "non-fake") +
                   " source; convert all tensors to fake tensors first");
  if (src->is_meta() && !dst->is_meta())
    return err(ErrorKind::kDeviceMismatch, "Cannot copy out of meta tensor; no data!");
  Status st = check_compute_input(*dst, "copy_");
  if (!st.ok()) return st;
  st = check_compute_input(*src, "copy_");
  if (!st.ok()) return st;
  const Geometry& a = dst->geom;
  const Geometry& b = src->geom;
  bool same_storage = dst->storage == src->storage;
  bool same_geom = a.rank == b.rank && a.offset == b.offset && dst->dtype == src->dtype;
  for (int d = 0; same_geom && d < a.rank; ++d)
    same_geom = a.sizes[d] == b.sizes[d] && a.strides[d] == b.strides[d];
  // LibTorch 1.13 returns early for the same tensor, then raises on an
  // internally overlapping destination, and only then returns early for
  // another view of the same data (found by views_fuzzer).
  MemOverlap mo = internal_overlap(a);
  if (dst == src || (same_storage && same_geom && mo != MemOverlap::kYes)) {
    ++*dst->version;
    return {};
  }
  if (mo == MemOverlap::kTooHard && a.has_overlap())
    return err(ErrorKind::kUndefinedBehavior,
               "copy_: not executed: undefined: the written tensor (sizes " + format_sizes(a) +
                   ", strides " + format_strides(a) +
                   ") has overlapping elements that LibTorch does not detect");
  // Same geometry here means an overlapping destination: internal_overlap below.
  MemOverlapStatus os = same_storage && !same_geom ? overlap_status(a, b, true, false)
                                                   : MemOverlapStatus::kNo;
  if ((os == MemOverlapStatus::kTooHard || os == MemOverlapStatus::kFull) &&
      elements_intersect(a, b))
    return err(ErrorKind::kUndefinedBehavior,
               "copy_: not executed: undefined: source and destination overlap in a way LibTorch "
               "does not detect; the result would depend on iteration order");
  if (mo == MemOverlap::kYes)
    return err(ErrorKind::kInternalOverlap,
               "unsupported operation: more than one element of the written-to tensor refers to "
               "a single memory location. Please clone() the tensor before performing the "
               "operation.");
  if (os == MemOverlapStatus::kPartial)
    return err(ErrorKind::kPartialOverlap,
               "unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
  // Broadcast src to dst's shape (TensorIterator with resize_outputs(false)).
  int n = std::max(a.rank, b.rank);
  std::array<int64_t, kGeometryMaxDims> shape{};
  for (int i = n - 1; i >= 0; --i) {
    int ia = a.rank - n + i, ib = b.rank - n + i;
    int64_t sa = ia >= 0 ? a.sizes[ia] : 1, sb = ib >= 0 ? b.sizes[ib] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return err(ErrorKind::kShapeMismatch, "The size of tensor a (" + to_string(sa) +
                                                ") must match the size of tensor b (" +
                                                to_string(sb) + ") at non-singleton dimension " +
                                                to_string(i));
    shape[i] = sa == 1 ? sb : sa;
  }
  bool same_shape = n == a.rank;
  for (int i = 0; same_shape && i < n; ++i) same_shape = shape[i] == a.sizes[i];
  if (!same_shape)
    return err(ErrorKind::kShapeMismatch, "output with shape " + format_sizes(a) +
                                              " doesn't match the broadcast shape " +
                                              format_ints(IntSpan(shape.data(), n)));
  if (dst->is_meta()) {  // F9: every check above, then no data
    ++*dst->version;
    return {};
  }
  Geometry bb = a;  // src broadcast to dst's shape
  bb.offset = b.offset;
  bb.itemsize = b.itemsize;
  for (int i = 0; i < n; ++i) {
    int ib = b.rank - n + i;
    bb.strides[i] = (ib >= 0 && b.sizes[ib] != 1) ? b.strides[ib] : 0;
  }
  std::vector<uint8_t> tmp;
  tmp.reserve(static_cast<size_t>(dst->numel() * a.itemsize));
  for_each_offset(bb, [&](int64_t o) {
    uint8_t v[8];
    convert_element(v, dst->dtype, src->storage->read_data() + o * b.itemsize, src->dtype);
    tmp.insert(tmp.end(), v, v + a.itemsize);
  });
  size_t k = 0;
  dst->storage->mutable_data();  // C3
  for_each_offset(a, [&](int64_t o) {
    copy_item(elem_w(*dst, o), tmp.data() + k, a.itemsize);
    k += static_cast<size_t>(a.itemsize);
  });
  ++*dst->version;
  return {};
}

// Note [out=]
// add_out o x s is torch.add(x, s, out=o), mul_out o x s torch.mul(x, s,
// out=o): LibTorch 1.13's structured add.out and mul.out build a
// TensorIterator (compute_mem_overlaps, then compute_types, then
// allocate_or_resize_outputs' resize_out), then run the kernel. In that
// order:
// 1) FakeTensorMode's rule: fake and non-fake tensors do not mix.
// 2) Harness policies (Note [Check order]): S8 on real tensors, x must
//    hold its elements, and so must o when it keeps its sizes (written in
//    place); on every tensor (as add_ and copy_ do), o with overlapping
//    elements LibTorch does not detect, or o and x sharing bytes in a way
//    LibTorch does not detect (kTooHard, or kFull with another geometry),
//    make the result depend on iteration order: undefined, not run. A
//    resized o's new geometry (x's sizes at o's offset, the strides of 7)
//    must not share bytes with x either: LibTorch checked only o's old
//    geometry.
// 3) o's internal overlap, on its old geometry (even when o is resized).
// 4) o partially overlapping x, unless both are the same tensor object.
// 5) The devices: meta and real, CPU and CUDA do not mix, checked with 6)
//    operand by operand.
// 6) The result type of x and s must cast to o's dtype (dtype_cast).
// 7) o's sizes differ from x's: resize_(o, x's sizes) (contiguous, offset
//    kept; grows a resizable storage, R6; non_resizable otherwise: LibTorch
//    1.13 sets the sizes first, known divergence
//    resize-nonresizable-not-atomic-1.13), then o takes the iterator's
//    strides (add's, with the element size of the type the kernel writes:
//    the result type on the CPU, o's own elsewhere) through as_strided_
//    when they are permuted, which raises on a negative (wrapped) one
//    (invalid_argument; LibTorch 1.13 after the resize, known divergence
//    out-restride-not-atomic-1.13), no version bump.
// 8) The elements, computed in the result type and cast to o's dtype; one
//    version bump.
namespace {
bool same_sizes(const Geometry& a, const Geometry& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] != b.sizes[d]) return false;
  return true;
}

Status scalar_out(Context& ctx, const Tensor& out, const Tensor& x, const Scalar& s, BinOp op,
                  const char* name) {
  if (out->fake != x->fake)  // 1)
    return err(ErrorKind::kDeviceMismatch,
               std::string(name) +
                   ": FakeTensorMode: a fake tensor mixed with a non-fake one; "
                   "convert all tensors to fake tensors first");
  const DType r = result_type(x->dtype, s);
  const bool cpu = !x->is_meta() && x->device() == DeviceType::kCpu;
  const bool resize = !same_sizes(out->geom, x->geom);
  const bool same_storage = out->storage == x->storage;
  {  // 2): S8 on real tensors only (check_compute_input); the overlaps on meta ones too
    Status st = check_compute_input(*x, name);
    if (st.ok() && !resize) st = check_compute_input(*out, name);
    if (!st.ok()) return st;
    if (!resize && internal_overlap(out->geom) == MemOverlap::kTooHard && out->geom.has_overlap())
      return err(ErrorKind::kUndefinedBehavior,
                 Msg() << name << ": not executed: undefined: the written tensor (sizes "
                       << sizes_of(out->geom) << ", strides " << strides_of(out->geom)
                       << ") has overlapping elements that LibTorch does not detect; the result "
                          "would depend on iteration order");
    if (same_storage && out != x) {
      MemOverlapStatus os = overlap_status(out->geom, x->geom, true, false);
      bool undetected = os == MemOverlapStatus::kTooHard ||
                        (os == MemOverlapStatus::kFull && !same_layout(out->geom, x->geom));
      bool hazard = undetected && elements_intersect(out->geom, x->geom);
      if (!hazard && resize && os != MemOverlapStatus::kPartial) {
        const Geometry g = resized_out_geometry(x->geom, x->dtype, r, cpu, out->geom);
        hazard = elements_intersect(g, x->geom) && !same_layout(g, x->geom);
      }
      if (hazard)
        return err(ErrorKind::kUndefinedBehavior,
                   Msg() << name << ": not executed: undefined: out (sizes " << sizes_of(out->geom)
                         << ", strides " << strides_of(out->geom) << ", offset " << out->geom.offset
                         << ") and the input share elements in a way LibTorch does not detect; "
                            "the result would depend on iteration order");
    }
  }
  if (internal_overlap(out->geom) == MemOverlap::kYes)  // 3)
    return err(ErrorKind::kInternalOverlap,
               "unsupported operation: more than one element of the written-to tensor refers to "
               "a single memory location. Please clone() the tensor before performing the "
               "operation.");
  if (same_storage && out != x &&
      overlap_status(out->geom, x->geom, true, false) == MemOverlapStatus::kPartial)  // 4)
    return err(ErrorKind::kPartialOverlap,
               "unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
  // 5) and 6), operand by operand as compute_types checks them: the common
  // device is the first one that is not the CPU (out's, else x's); out's
  // device, then out's dtype, then x's device (a 0-dim CPU input would be
  // copied to the common device, but the wrapped scalar already took the
  // one CPU scalar a non-CPU kernel accepts: "Trying to pass too many CPU
  // scalars to non-CPU kernel!").
  auto device_of = [](const TensorImpl& t) {
    return t.is_meta() ? 2 : t.device() == DeviceType::kCuda ? 1 : 0;
  };
  const int common = device_of(*out) != 0 ? device_of(*out) : device_of(*x);
  auto mismatch = [&] {
    return err(ErrorKind::kDeviceMismatch,
               std::string(name) +
                   ": Expected all tensors to be on the same device, but found "
                   "at least two devices");
  };
  if (device_of(*out) != common) return mismatch();
  if (!can_cast(r, out->dtype))
    return err(ErrorKind::kDtypeCast, "result type " + std::string(dtype_scalar_type_name(r)) +
                                          " can't be cast to the desired output type " +
                                          std::string(dtype_scalar_type_name(out->dtype)));
  if (device_of(*x) != common) return mismatch();
  if (resize) {  // 7)
    bool restrided = false;
    const Geometry g = resized_out_geometry(x->geom, x->dtype, r, cpu, out->geom, &restrided);
    // A permuted layout's restride is as_strided_, which raises on a
    // negative (wrapped) stride: only a 0-element x of huge sizes gives
    // one, and resize_ of 0 elements cannot fail, so raising before it
    // keeps S10's guarantee where LibTorch 1.13 leaves out resized (known
    // divergence out-restride-not-atomic-1.13; found by views_fuzzer). The
    // identity order keeps resize_'s strides, wrapped or not (found by
    // cow_fuzzer).
    for (int d = 0; d < g.rank && restrided; ++d)
      if (g.strides[d] < 0)
        return err(ErrorKind::kInvalidArgument,
                   "as_strided: Negative strides are not supported at the moment, got strides: " +
                       format_strides(g));
    Status st = resize_(ctx, out, IntSpan(g.sizes.data(), g.rank));
    if (!st.ok()) return st;
    out->geom = g;
  }
  if (!out->is_meta()) {  // 8)
    uint8_t sv[8];
    store_scalar(sv, r, s);
    // o first: materializing a COW storage (or the resize) may move the
    // bytes x reads when both share a storage.
    uint8_t* dst = out->storage->mutable_data();
    const uint8_t* src = x->storage->read_data();
    const int64_t out_bytes = out->geom.itemsize;
    const bool out_is_r = out->dtype == r;
    // Typed for the input's dtype and r (convert_element's conversion);
    // the result is converted to out's dtype as convert_element does.
    visit_dtype(r, [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr DType kD = decltype(tag)::dtype;
      const T b = load_item<T>(sv);
      visit_dtype(x->dtype, [&](auto ft) {
        using F = typename decltype(ft)::type;
        for_each_offset2(x->geom, out->geom, [&](int64_t xi, int64_t oi) {
          const T a = typed_convert<decltype(ft)::dtype, kD, F, T>(
              load_item<F>(src + xi * int64_t{sizeof(F)}));
          const T v = typed_binop<kD>(a, b, op);
          if (out_is_r) {
            store_item<T>(dst + oi * int64_t{sizeof(T)}, v);
            return;
          }
          uint8_t w[8];
          store_item<T>(w, v);
          convert_element(dst + oi * out_bytes, out->dtype, w, r);
        });
      });
    });
  }
  ++*out->version;
  return {};
}
}  // namespace

// --- In-place metadata mutation -------------------------------------------------

namespace {
Status set_geometry(const Tensor& t, const Geometry& g) {
  Status st = set_strided_checks(t->storage->nbytes(), g);
  if (!st.ok()) return st;
  t->geom = g;
  ++*t->version;
  return {};
}
}  // namespace

Status transpose_(const Tensor& t, int64_t dim0, int64_t dim1) {
  Error e;
  if (!wrap_dim(dim0, t->rank(), &dim0, &e) || !wrap_dim(dim1, t->rank(), &dim1, &e)) return e;
  if (dim0 == dim1) {
    ++*t->version;
    return {};
  }
  return set_geometry(t, transposed(t->geom, dim0, dim1));
}

Status t_(const Tensor& t) {
  if (t->rank() > 2)
    return err(ErrorKind::kInvalidArgument, "t_() expects a tensor with <= 2 dimensions, but self is " +
                                                to_string(t->rank()) + "D");
  return transpose_(t, 0, t->rank() < 2 ? 0 : 1);
}

Status unsqueeze_(const Tensor& t, int64_t dim) {
  Status p = rank_limit(t->rank() + 1, "unsqueeze_");
  if (!p.ok()) return p;
  Error e;
  if (!wrap_dim(dim, t->rank() + 1, &dim, &e)) return e;
  return set_geometry(t, unsqueezed(t->geom, dim));
}

Status squeeze_(const Tensor& t, int64_t dim) {
  Error e;
  if (!wrap_dim(dim, t->rank(), &dim, &e)) return e;
  if (t->rank() == 0 || t->size(static_cast<int>(dim)) != 1) return set_geometry(t, t->geom);
  return set_geometry(t, squeezed(t->geom, dim));
}

Status as_strided_(const Tensor& t, IntSpan sizes, IntSpan strides, int64_t offset) {
  Status p = negative_size_policy(sizes, "as_strided_");
  if (!p.ok()) return p;
  if (sizes.size != strides.size)
    return err(ErrorKind::kInvalidArgument, "mismatch in length of strides and shape");
  return set_geometry(t, geom_from(sizes, strides, offset, t->geom.itemsize));
}

Status resize_(Context& ctx, const Tensor& t, IntSpan sizes) {
  Status p = negative_size_policy(sizes, "resize_");
  if (!p.ok()) return p;
  bool same = sizes.size == t->rank();
  for (int d = 0; same && d < sizes.size; ++d) same = sizes[d] == t->size(d);
  if (same) return {};
  Geometry g = geom_from(sizes, {}, t->geom.offset, t->geom.itemsize);
  contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
  if (!numel_ok(g)) return err(ErrorKind::kStorageSizeOverflow, "numel: integer multiplication overflow");
  int64_t numel = 0;
  g.numel(&numel);  // numel_ok: no overflow (a size-0 dim: 0)
  // LibTorch's computeStorageNbytesContiguous counts the offset even for 0
  // elements: [2,1,0] at offset 2^62 of f32 overflows (found by
  // views_fuzzer; it grows nothing for 0 elements).
  int64_t bytes;
  if (__builtin_add_overflow(numel, g.offset, &bytes) ||
      __builtin_mul_overflow(bytes, g.itemsize, &bytes))
    return err(ErrorKind::kStorageSizeOverflow,
               "resize_: (numel + storage offset) * itemsize overflows int64 (storage size "
               "overflow)");
  if (numel > 0) {
    // LibTorch compares with the storage's size_t nbytes: a meta storage
    // whose nbytes wrapped negative (to_meta of a huge expand,
    // meta_copy_nbytes) is larger than any request and keeps its size
    // (found by fake_fuzzer).
    if (static_cast<uint64_t>(bytes) > static_cast<uint64_t>(t->storage->nbytes())) {
      if (!t->storage->resizable())
        return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
      if (!t->is_meta()) {  // a meta storage allocates nothing
        Status c = ctx.budget.charge(bytes, "resize_");
        if (!c.ok()) return c;
      }
      t->storage->resize(bytes);
    }
  }
  t->geom = g;
  return {};
}

// Note [set_]
// self.set_(source) as LibTorch's set_tensor_ -> set_.source_Storage_storage_offset
// runs it (SEMANTICS F7 names set_ an inplace_view op):
// 1) Python's binding asserts the dtypes are equal (LibTorch C++ would
//    reinterpret the bytes): kInvalidArgument here, before anything else.
//    FakeTensorMode refuses a fake tensor mixed with a non-fake one, as in
//    copy_.
// 2) The same tensor object: nothing changes but self's version.
// 3) checkSetStorage: another storage must be on the same device (meta
//    with meta; a meta storage's stand-in device does not count), else
//    kDeviceMismatch; then self points at it.
// 4) resize_impl: self takes source's offset, sizes and strides; only when
//    the sizes or strides differ from self's old ones, and source has
//    elements, does the storage grow to offset + extent bytes (zero-filled,
//    R6; LibTorch leaves them uninitialized). So set_ to an emptied source
//    of self's own shape leaves self emptied too (LibTorch 1.13; later
//    versions check the offset against the storage there), and a different
//    shape restores the shared storage for every alias. A meta storage
//    never allocates: as LibTorch 2.x's set_storage_meta__symint, a source
//    with elements on a non-resizable meta storage raises, and the byte
//    count only grows (1.13 sets it to the extent, shrinking it: known
//    divergence meta-set-sets-nbytes-1.13).
// 5) Growing a non-resizable storage raises kNonResizable after self was
//    changed (LibTorch sets the storage, offset, sizes and strides before
//    it resizes) and without a version bump (the ADInplaceOrView kernel
//    bumps after a kernel that returns). The allocation limit is checked
//    first, with nothing changed: a backend cannot stop LibTorch half way.
// 6) Success bumps self's version counter (shared with self's views, not
//    with source's). self keeps its own version counter, dtype and fake flag.
namespace {
/// LibTorch's name of the device a storage is on ("cpu", "cuda", "meta").
const char* storage_device_name(const Storage& st) {
  return st.is_meta() ? "meta" : st.device() == DeviceType::kCuda ? "cuda" : "cpu";
}
}  // namespace

Status set_(Context& ctx, const Tensor& self, const Tensor& source) {
  if (self->dtype != source->dtype)
    return err(ErrorKind::kInvalidArgument,
               "set_: the source's dtype " + std::string(dtype_name(source->dtype)) +
                   " differs from self's " + std::string(dtype_name(self->dtype)) +
                   " (PyTorch asserts source.dtype() == self.dtype())");
  if (self->fake != source->fake)
    return err(ErrorKind::kDeviceMismatch,
               std::string("set_: FakeTensorMode: a ") + (self->fake ? "fake" : "non-fake") +
                   " self with a " + (source->fake ? "fake" : "non-fake") +
                   " source; convert all tensors to fake tensors first");
  if (self.get() == source.get()) {
    ++*self->version;
    return {};
  }
  Storage& st = *source->storage;
  const bool meta = st.is_meta();
  if (self->storage != source->storage &&
      (self->is_meta() != meta || (!meta && self->device() != source->device())))
    return err(ErrorKind::kDeviceMismatch,
               std::string("set_: Attempted to set the storage of a tensor on device \"") +
                   storage_device_name(*self->storage) + "\" to a storage on different device \"" +
                   storage_device_name(st) +
                   "\".  This is no longer allowed; the devices must match.");
  const Geometry& g = source->geom;
  bool same = self->geom.rank == g.rank;
  for (int d = 0; same && d < g.rank; ++d)
    same = self->geom.sizes[d] == g.sizes[d] && self->geom.strides[d] == g.strides[d];
  int64_t numel = 0, need = 0;
  const bool sized = g.numel(&numel) && numel > 0 && g.required_bytes(&need);
  const bool grows =
      sized && (meta || !same) && static_cast<uint64_t>(need) > static_cast<uint64_t>(st.nbytes());
  if (grows && !meta && st.resizable()) {
    Status c = ctx.budget.charge(need, "set_");
    if (!c.ok()) return c;
  }
  self->storage = source->storage;
  self->geom = g;
  if ((meta ? sized : grows) && !st.resizable())
    return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
  if (grows) st.resize(need);
  ++*self->version;
  return {};
}

// --- Out-of-place compute ----------------------------------------------------------

Result<Tensor> add(Context& ctx, const Tensor& t, const Scalar& s) {
  return scalar_outplace(ctx, t, s, BinOp::kAdd, "add");
}

Geometry resized_out_geometry(const Geometry& x, DType x_dtype, DType result, bool cpu,
                              const Geometry& out, bool* restrided) {
  Geometry in = x;
  if (cpu && result != x_dtype) {  // TensorIterator converts the input first (scalar_outplace)
    if (!in.is_non_overlapping_and_dense()) infer_dense_strides(x, in.strides.data());
    in.itemsize = itemsize(result);
  }
  Geometry g = x;
  g.itemsize = cpu ? itemsize(result) : out.itemsize;
  const bool permuted = iterator_output_strides(in, g, /*replace_negative=*/false);
  if (restrided) *restrided = permuted;
  g.offset = out.offset;
  g.itemsize = out.itemsize;
  return g;
}

Status add_out(Context& ctx, const Tensor& out, const Tensor& x, const Scalar& s) {
  return scalar_out(ctx, out, x, s, BinOp::kAdd, "add_out");
}

Result<Tensor> mul(Context& ctx, const Tensor& t, const Scalar& s) {
  return scalar_outplace(ctx, t, s, BinOp::kMul, "mul");
}

Status mul_out(Context& ctx, const Tensor& out, const Tensor& x, const Scalar& s) {
  return scalar_out(ctx, out, x, s, BinOp::kMul, "mul_out");
}

Result<Tensor> clone(Context& ctx, const Tensor& t) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  if (is_emptied(*t) && restores("clone")) {  // R3, Note [Restore rule]
    Geometry g = t->geom;
    g.offset = 0;
    return restored_zeros(ctx, g, t->dtype, "clone");
  }
  std::array<int64_t, kGeometryMaxDims> st{};
  if (t->geom.is_non_overlapping_and_dense()) {
    for (int d = 0; d < t->rank(); ++d) st[d] = t->stride(d);
  } else {
    infer_dense_strides(t->geom, st.data());
  }
  return clone_with_strides(ctx, t, st.data(), "clone");
}

Result<Tensor> contiguous(Context& ctx, const Tensor& t) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  if (t->geom.is_contiguous()) return t;
  if (is_emptied(*t) && restores("contiguous")) {  // R3, Note [Restore rule]
    Geometry g = t->geom;
    g.offset = 0;
    contiguous_strides(g.rank, g.sizes.data(), g.strides.data());
    return restored_zeros(ctx, g, t->dtype, "contiguous");
  }
  return clone_contiguous(ctx, t, "contiguous");
}

namespace {
/// clone_preserve_strides ends in as_strided(sizes, strides, offset), which
/// refuses negative strides. A contiguous tensor with a zero size can carry
/// them (its strides wrapped around int64 while numel is 0), so the check
/// comes after the allocation, where as_strided runs.
Status preserve_strides_check(Context& ctx, const Tensor& out) {
  for (int d = 0; d < out->rank(); ++d) {
    if (out->stride(d) < 0) {
      refund(ctx, out);
      return err(ErrorKind::kInvalidArgument,
                 "clone_preserve_strides: as_strided: Negative strides are not supported at the "
                 "moment, got strides: " + format_strides(out->geom));
    }
  }
  return {};
}
}  // namespace

Result<Tensor> clone_preserve_strides(Context& ctx, const Tensor& t) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  if (is_emptied(*t) && restores("clone_preserve_strides")) {  // R3
    auto out = restored_zeros(ctx, t->geom, t->dtype, "clone_preserve_strides");
    if (!out.ok()) return out;
    if (Status st = preserve_strides_check(ctx, out.value()); !st.ok()) return st.error();
    return out;
  }
  auto out = restored_zeros(ctx, t->geom, t->dtype, "clone_preserve_strides");
  if (!out.ok()) return out;
  Status st = check_compute_input(*t, "clone_preserve_strides");
  if (!st.ok()) {
    refund(ctx, out.value());
    return st.error();
  }
  if (t->is_meta() && !storage_covers(*t)) {
    // as_strided(x, (needed,), (1,), 0) checks the input's storage on meta too.
    refund(ctx, out.value());
    int64_t need = -1;
    t->geom.required_bytes(&need);
    return err(ErrorKind::kOutOfBounds,
               "clone_preserve_strides: setStorage: sizes [" + to_string(need / t->geom.itemsize) +
                   "], strides [1], storage offset 0, and itemsize " + to_string(t->geom.itemsize) +
                   " requiring a storage size of " + to_string(need) +
                   " are out of bounds for storage of size " + to_string(t->storage->nbytes()));
  }
  if (Status ps = preserve_strides_check(ctx, out.value()); !ps.ok()) return ps.error();
  // The whole prefix [0, offset + extent) is copied, as inductor's
  // as_strided(x, (needed,), (1,), 0).clone() does.
  int64_t bytes = out.value()->storage->nbytes();
  if (bytes > 0 && !t->is_meta())
    std::memcpy(out.value()->storage->mutable_data(), t->storage->read_data(),
                static_cast<size_t>(bytes));
  return out;
}

namespace {
/// `to` of dtype `d` onto device `dev` (LibTorch's _to_copy with
/// preserve_format): t itself when both are t's; else a copy that keeps a
/// dense non-overlapping input's strides, or dense strides in the input's
/// order; an emptied input gives zeros with its strides (R3).
Result<Tensor> to_copy(Context& ctx, const Tensor& t, DType d, DeviceType dev, const char* op) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  if (t->dtype == d && t->device() == dev) return t;
  ctx.device = dev;
  std::array<int64_t, kGeometryMaxDims> st{};
  if (t->geom.is_non_overlapping_and_dense()) {
    for (int k = 0; k < t->rank(); ++k) st[k] = t->stride(k);
  } else {
    infer_dense_strides(t->geom, st.data());
  }
  Geometry g = t->geom;
  g.offset = 0;
  for (int k = 0; k < g.rank; ++k) g.strides[k] = st[k];
  if (is_emptied(*t) && restores(op)) {  // R3, Note [Restore rule]
    for (int k = 0; k < g.rank; ++k) g.strides[k] = t->stride(k);
    return restored_zeros(ctx, g, d, op);
  }
  auto out = new_tensor(ctx, g, d, op);
  if (!out.ok()) return out;
  Status s = check_compute_input(*t, op);
  if (!s.ok()) {
    refund(ctx, out.value());
    return s.error();
  }
  if (!t->is_meta()) copy_elements(*t, *out.value());
  return out;
}
}  // namespace

Result<Tensor> to(Context& ctx, const Tensor& t, DType d) {
  return to_copy(ctx, t, d, t->device(), "to");
}

Result<Tensor> to_device(Context& ctx, const Tensor& t, DeviceType dev) {
  const char* op = dev == DeviceType::kCuda ? "cuda" : "cpu";
  if (t->is_meta())  // Note [Layout policy] refuses it before any backend runs
    return err(ErrorKind::kDeviceMismatch,
               std::string(op) +
                   ": a meta or fake input; storcheck's device ops take real tensors");
  return to_copy(ctx, t, t->dtype, dev, op);
}

Result<Tensor> sum(Context& ctx, const Tensor& t) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  // Note [sum in f64]: floating sums accumulate in f64 and return f64
  // (torch.sum(x, dtype=torch.float64)). An f32 sum would depend on
  // LibTorch's vectorized cascade order, which varies with the CPU; in f64
  // the sums the programs mostly make (rand's multiples of 2^-24, arange's
  // integers) are exact whatever the order, so the backends agree. Not all:
  // fill_ or add_out with 2^53 gives values whose f64 sum rounds, and then
  // the order decides (views.errors_agree, seeds 2019 and 2020: the
  // reference's sequential sum of [0, 1, 2, 3, 2^53] is 2^53 + 6, LibTorch's
  // 2^53 + 4). sum_depends_on_order says when every order gives one result:
  // every finite element is a multiple of 2^e, for the smallest e among
  // them, and the sum of their magnitudes is at most 2^(53 + e), so every
  // partial sum in any order is exact (and finite); infinities and NaNs then
  // give the same inf or NaN in any order. Otherwise the reference backend
  // refuses the step (oracles/reference_backend.cpp): it cannot add in
  // LibTorch's order, and the program is not comparable from there on.
  DType r = is_floating(t->dtype) ? DType::kF64 : DType::kI64;
  Geometry g;
  g.itemsize = itemsize(r);
  auto out = new_tensor(ctx, g, r, "sum");
  if (!out.ok()) return out;
  Status st = check_compute_input(*t, "sum");
  if (st.ok()) st = check_step_reads(ctx, *t, "sum");  // Note [Elements a step reads]
  if (!st.ok()) {
    refund(ctx, out.value());
    return st.error();
  }
  if (t->is_meta()) return out;  // Note [Meta execution]
  double fsum = 0;
  uint64_t isum = 0;
  // A typed loop (issue 8): each element as load_as_double (floating) or
  // load_as_int (the others) reads it (typed_as is their formula).
  const uint8_t* data = t->storage->read_data();
  visit_dtype(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr DType kD = decltype(tag)::dtype;
    for_each_offset(t->geom, [&](int64_t o) {
      const T v = load_item<T>(data + o * int64_t{sizeof(T)});
      if constexpr (kD == DType::kF32 || kD == DType::kF64)
        fsum += typed_as<double, kD>(v);
      else
        isum += static_cast<uint64_t>(typed_as<int64_t, kD>(v));
    });
  });
  if (is_floating(r)) store_double(elem_w(*out.value(), 0), r, fsum);
  else store_int(elem_w(*out.value(), 0), r, static_cast<int64_t>(isum));
  return out;
}

void SumOrder::add(double v) {
  if (std::isnan(v)) nan_ = true;
  if (std::isinf(v)) (v > 0 ? pos_inf_ : neg_inf_) = true;
  if (v == 0 || !std::isfinite(v)) return;
  int e = 0;
  // v = m * 2^e with m in [0.5, 1): m * 2^53 is an integer; its lowest set
  // bit is the weight of v's last mantissa bit.
  const auto mantissa = static_cast<uint64_t>(std::ldexp(std::fabs(std::frexp(v, &e)), 53));
  min_exp_ = std::min(min_exp_, e - 53 + __builtin_ctzll(mantissa));
  magnitude_ += std::fabs(v);
  ++n_;
}

bool SumOrder::depends() const {
  if (nan_ || (pos_inf_ && neg_inf_)) return false;  // NaN in any order (compared as NaN)
  // magnitude_ rounded at most n_ times, each by a relative 2^-53; an
  // infinite one means a partial sum may overflow in some order.
  const double bound = magnitude_ * (1 + static_cast<double>(n_) * 0x1p-52);
  if (pos_inf_ || neg_inf_) return !std::isfinite(bound);  // that infinity, unless one overflows
  if (n_ < 3) return false;  // fl(a + b), whatever the order (zeros add exactly)
  return !(std::isfinite(bound) && bound <= std::ldexp(1.0, 53 + min_exp_));
}

bool sum_depends_on_order(const Tensor& t) {
  if (t->is_meta() || !is_floating(t->dtype) || !storage_covers(*t)) return false;
  SumOrder order;
  const uint8_t* data = t->storage->read_data();
  if (t->dtype == DType::kF32)
    for_each_offset(t->geom, [&](int64_t o) { order.add(load_item<float>(data + o * 4)); });
  else
    for_each_offset(t->geom, [&](int64_t o) { order.add(load_item<double>(data + o * 8)); });
  return order.depends();
}

// --- Copy-on-write ------------------------------------------------------------------------

namespace {
Result<Tensor> lazy_clone_impl(Context& ctx, const Tensor& t, bool eager) {
  DeviceScope device(ctx, *t);  // Note [Meta execution]
  if (is_emptied(*t) && restores("lazy_clone")) {  // R3, Note [Restore rule]
    Geometry g = t->geom;
    g.offset = 0;
    return restored_zeros(ctx, g, t->dtype, "lazy_clone");
  }
  if (t->storage->foreign())  // C7
    return err(ErrorKind::kInvalidArgument,
               "lazy_clone: the storage's data has a foreign owner (from_blob) and cannot be "
               "lazily cloned");
  if (t->is_meta()) {  // no data to share: a fresh meta storage of the same size
    auto out = make_pooled<TensorImpl>(*t);
    out->version = make_pooled<int64_t>(0);
    out->storage = Storage::make_meta(t->storage->nbytes());
    out->storage->set_resizable(t->storage->resizable());
    out->storage->set_device(t->device());
    return Tensor(out);
  }
  Status c = ctx.budget.charge(t->storage->nbytes(), "lazy_clone");
  if (!c.ok()) return c.error();
  auto out = make_pooled<TensorImpl>(*t);  // C1: same geometry, offset included
  out->version = make_pooled<int64_t>(0);
  if (eager) {
    auto s = make_pooled<Storage>(t->storage->nbytes());
    s->set_resizable(t->storage->resizable());
    s->set_device(t->device());
    if (s->nbytes() > 0)
      std::memcpy(s->mutable_data(), t->storage->read_data(), static_cast<size_t>(s->nbytes()));
    out->storage = std::move(s);
  } else {
    out->storage = t->storage->lazy_clone();
  }
  return out;
}
}  // namespace

Result<Tensor> lazy_clone(Context& ctx, const Tensor& t) { return lazy_clone_impl(ctx, t, false); }
Result<Tensor> lazy_clone_as_copy(Context& ctx, const Tensor& t) {
  return lazy_clone_impl(ctx, t, true);
}

Result<Tensor> from_blob(Context& ctx, IntSpan sizes, DType d) {
  auto r = new_contiguous(ctx, sizes, d, "from_blob");
  if (!r.ok()) return r;
  r.value()->storage->set_foreign(true);
  r.value()->storage->set_resizable(false);
  return r;
}

Status mutable_data_ptr(const Tensor& t) {
  t->storage->mutable_data();
  return {};
}

// --- Shrink and restore ---------------------------------------------------------------

bool is_emptied(const TensorImpl& t) {
  return t.numel() > 0 && t.storage->nbytes() == 0 && !t.is_meta();
}

Status shrink(const Tensor& t) {
  if (!t->storage->resizable())
    return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
  t->storage->resize(0);  // R1: same storage object, every alias sees it
  return {};
}

Status rehydrate(Context& ctx, const std::vector<Tensor>& live,
                 std::vector<WeakRc<Storage>>* restored) {
  // R5: per storage, the largest extent among its emptied tensors.
  std::vector<std::pair<Storage*, int64_t>> need;
  for (const Tensor& t : live) {
    if (!t || !is_emptied(*t)) continue;
    int64_t bytes;
    if (!t->geom.required_bytes(&bytes))
      return err(ErrorKind::kStorageSizeOverflow, "rehydrate: extent of sizes " +
                                                      format_sizes(t->geom) + " overflows int64");
    auto it = std::find_if(need.begin(), need.end(),
                           [&](const auto& e) { return e.first == t->storage.get(); });
    if (it == need.end()) {
      need.emplace_back(t->storage.get(), bytes);
    } else if (fault_active(Fault::kRehydrateFromOneView)) {
      it->second = std::min(it->second, bytes);  // planted bug: one view decides
    } else {
      it->second = std::max(it->second, bytes);
    }
  }
  for (const auto& [storage, bytes] : need) {
    if (!storage->resizable())
      return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
  }
  int64_t total = 0;
  for (const auto& e : need) total += e.second;
  Status c = ctx.budget.charge(total, "rehydrate");
  if (!c.ok()) return c;
  for (const auto& [storage, bytes] : need) {
    storage->resize(bytes);  // zero-filled: it held 0 bytes
    for (const Tensor& t : live)
      if (t && t->storage.get() == storage) {
        restored->push_back(t->storage);
        break;
      }
  }
  return {};
}

Status reshrink(std::vector<WeakRc<Storage>>* restored) {
  // Weak: a storage whose tensors all died is gone, not kept alive here (C2).
  for (const auto& w : *restored)
    if (auto s = w.lock(); s && !s->resizable())
      return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
  for (const auto& w : *restored)
    if (auto s = w.lock()) s->resize(0);
  restored->clear();
  return {};
}

Status resize_storage(Context& ctx, const Tensor& t, int64_t nbytes) {
  if (nbytes < 0)
    return err(ErrorKind::kInvalidArgument, "resize_storage: negative size " + to_string(nbytes));
  if (!t->storage->resizable())
    return err(ErrorKind::kNonResizable, "Trying to resize storage that is not resizable");
  if (nbytes > t->storage->nbytes() && !t->is_meta()) {
    Status c = ctx.budget.charge(nbytes, "resize_storage");
    if (!c.ok()) return c;
  }
  t->storage->resize(nbytes);
  return {};
}

Status set_nonresizable(const Tensor& t) {
  t->storage->set_resizable(false);
  return {};
}

}  // namespace storcheck
