// The ops of the reference: factories, views, in-place writes, in-place
// metadata mutation and out-of-place compute, with PyTorch 1.13's semantics
// (program/README.md lists them; SEMANTICS.md group S states the rules).
//
// Every op also runs on meta and fake tensors (SEMANTICS F6, F9): see
// Note [Meta execution] in ops.cpp.
//
// Every op returns a Result: a new Tensor, or an Error whose kind the
// LibTorch backend must report too, checked in the order LibTorch checks.
// Harness policies that LibTorch does not have (S8 undefined behaviour,
// allocation limits, checked extents) come first, as the LibTorch backend
// applies them before it calls LibTorch.
//
//   Context ctx;
//   Tensor t = arange(ctx, {3, 4}, DType::kF32).value();
//   Result<Tensor> v = view(t, {12});        // ok: contiguous
//   Result<Tensor> w = view(transpose(t, 0, 1).value(), {12});
//   // w.error().kind == ErrorKind::kViewIncompatible (S6)
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "impl/tensor.h"

namespace storcheck {

// --- Factories (fresh storage, version 0) ----------------------------------
/// arange(numel) converted to `d` and viewed as `sizes`.
Result<Tensor> arange(Context& ctx, IntSpan sizes, DType d);
Result<Tensor> zeros(Context& ctx, IntSpan sizes, DType d);
Result<Tensor> ones(Context& ctx, IntSpan sizes, DType d);
/// kScalarOverflow when `value` does not fit `d`.
Result<Tensor> full(Context& ctx, IntSpan sizes, const Scalar& value, DType d);
/// Element k is rand_value(seed, k, d) (impl/rand.h).
Result<Tensor> rand(Context& ctx, IntSpan sizes, DType d, int64_t seed);
/// Zero-filled (unspecified in PyTorch; see backend.h).
Result<Tensor> empty_strided(Context& ctx, IntSpan sizes, IntSpan strides, DType d);

// --- Views (share storage and version counter; S2, S3) ----------------------
Result<Tensor> view(const Tensor& t, IntSpan sizes);
/// A view when S6 allows one, else a contiguous copy (new storage).
Result<Tensor> reshape(Context& ctx, const Tensor& t, IntSpan sizes);
Result<Tensor> as_strided(const Tensor& t, IntSpan sizes, IntSpan strides, int64_t offset);
Result<Tensor> select(const Tensor& t, int64_t dim, int64_t index);
Result<Tensor> slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Result<Tensor> narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Result<Tensor> transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Result<Tensor> t(const Tensor& t);
Result<Tensor> permute(const Tensor& t, IntSpan dims);
Result<Tensor> movedim(const Tensor& t, int64_t src, int64_t dst);
Result<Tensor> expand(const Tensor& t, IntSpan sizes);
Result<Tensor> unsqueeze(const Tensor& t, int64_t dim);
Result<Tensor> squeeze(const Tensor& t, int64_t dim);
/// May return `t` itself (start == end) or a copy (through reshape).
Result<Tensor> flatten(Context& ctx, const Tensor& t, int64_t start, int64_t end);
Result<Tensor> unflatten(const Tensor& t, int64_t dim, IntSpan sizes);
Result<Tensor> diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
Result<Tensor> unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
/// Result `index` of t.split(split_size, dim).
Result<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim, int64_t index);
/// Result `index` of t.chunk(chunks, dim).
Result<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim, int64_t index);
/// Result `index` of t.unbind(dim).
Result<Tensor> unbind(const Tensor& t, int64_t dim, int64_t index);
Result<Tensor> alias(const Tensor& t);
Result<Tensor> detach(const Tensor& t);
/// Tensor.view(dtype): t's bytes as dtype `d` over the same storage and
/// version counter (Note [view_dtype] in ops.cpp).
Result<Tensor> view_dtype(const Tensor& t, DType d);

// --- In-place writes (bump the version counter) ------------------------------
Status add_(const Tensor& t, const Scalar& s);
Status mul_(const Tensor& t, const Scalar& s);
Status fill_(const Tensor& t, const Scalar& s);
Status zero_(const Tensor& t);
/// fill_ and zero_ as a program step runs them: after the S8 check, at most
/// ctx.max_step_reads elements written (Note [Elements a step reads]).
Status fill_(const Context& ctx, const Tensor& t, const Scalar& s, const char* op = "fill_");
Status copy_(const Tensor& dst, const Tensor& src);
/// torch.add(x, s, out=out), Note [out=] in impl/ops.cpp: out takes x's
/// sizes when they differ (resize_, then the iterator's strides), then the
/// elements x + s in out's dtype.
Status add_out(Context& ctx, const Tensor& out, const Tensor& x, const Scalar& s);
/// torch.mul(x, s, out=out): add_out's steps with the elements x * s.
Status mul_out(Context& ctx, const Tensor& out, const Tensor& x, const Scalar& s);
/// Note [out=] 7: the geometry an out of geometry `out` takes when the
/// input's sizes differ: the input's sizes, TensorIterator's strides for
/// the input `x` (converted to `result` first when `cpu`: a real CPU
/// input), out's offset and item size. Its strides may be negative (wrapped,
/// for a 0-element input of huge sizes): the restride then raises, which
/// it does only where `*restrided` (if given) says the layout is permuted.
Geometry resized_out_geometry(const Geometry& x, DType x_dtype, DType result, bool cpu,
                              const Geometry& out, bool* restrided = nullptr);

// --- In-place metadata mutation (inplace_view) ---------------------------------
Status transpose_(const Tensor& t, int64_t dim0, int64_t dim1);
Status t_(const Tensor& t);
Status unsqueeze_(const Tensor& t, int64_t dim);
Status squeeze_(const Tensor& t, int64_t dim);
Status as_strided_(const Tensor& t, IntSpan sizes, IntSpan strides, int64_t offset);
/// Contiguous sizes; grows the storage (zero-filled, R6) when it is too small.
Status resize_(Context& ctx, const Tensor& t, IntSpan sizes);
/// self.set_(source), Note [set_]: self takes source's storage, offset,
/// sizes and strides; may grow the storage (zero-filled, R6).
Status set_(Context& ctx, const Tensor& self, const Tensor& source);

// --- Out-of-place compute (fresh storage) ---------------------------------------
Result<Tensor> add(Context& ctx, const Tensor& t, const Scalar& s);
Result<Tensor> mul(Context& ctx, const Tensor& t, const Scalar& s);
/// preserve_format: dense non-overlapping strides kept, else dense strides
/// in the input's layout order.
Result<Tensor> clone(Context& ctx, const Tensor& t);
/// Returns `t` itself when already contiguous.
Result<Tensor> contiguous(Context& ctx, const Tensor& t);
/// Inductor's clone_preserve_strides: same sizes, strides and offset over a
/// fresh storage of exactly offset + extent elements.
Result<Tensor> clone_preserve_strides(Context& ctx, const Tensor& t);
/// Converts to dtype `d`: `t` itself when already of dtype `d`, else a copy
/// with clone's strides.
Result<Tensor> to(Context& ctx, const Tensor& t, DType d);
/// `t.cuda()` / `t.cpu()` (issue 11): `to` onto device `dev`, the same
/// tensor when t is there already; a clone path (R3: an emptied input gives
/// zeros with its sizes and strides on `dev`). A meta or fake input raises
/// kDeviceMismatch.
Result<Tensor> to_device(Context& ctx, const Tensor& t, DeviceType dev);

/// The sum of all elements as a 0-d tensor: i64 for integer and bool
/// inputs, f64 for floating ones (see Note [sum in f64]). A read (C3).
Result<Tensor> sum(Context& ctx, const Tensor& t);
/// Note [sum in f64]: whether the f64 sum of a real floating tensor's
/// elements may depend on the order of the additions (false for integer,
/// bool and meta tensors, and whenever every order gives the same result).
bool sum_depends_on_order(const Tensor& t);
/// The same test over values added one by one (the LibTorch CUDA backend's
/// copy of its input): `SumOrder o; for (v : values) o.add(v); o.depends()`.
class SumOrder {
 public:
  void add(double v);
  bool depends() const;

 private:
  int min_exp_ = std::numeric_limits<int>::max();
  double magnitude_ = 0;
  int64_t n_ = 0;  ///< finite nonzero values
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
};

// --- Copy-on-write (SEMANTICS group C) ----------------------------------------------
/// C1: same sizes, strides and offset over a new storage object that shares
/// t's data block until the first write; fresh version counter; both
/// storages COW (C2: joins t's group when t is already COW). A clone path:
/// an emptied input gives zeros (R3). A foreign-owned storage raises (C7)
/// and is left untouched. Budget: charged the storage's bytes (what the
/// eventual materialization copies).
Result<Tensor> lazy_clone(Context& ctx, const Tensor& t);
/// The same as lazy_clone but copying the storage eagerly: the observational
/// equivalent of C6 (and what LibTorch before 2.3 can do).
Result<Tensor> lazy_clone_as_copy(Context& ctx, const Tensor& t);
/// A contiguous zero tensor over a foreign-owned, non-resizable buffer.
Result<Tensor> from_blob(Context& ctx, IntSpan sizes, DType d);
/// Takes a mutable data pointer: materializes a COW storage (C3, C4).
Status mutable_data_ptr(const Tensor& t);

// --- Storage shrink and restore (SEMANTICS group R) --------------------------------
// Note [Restore rule]
// Every clone path (clone, contiguous when it copies, clone_preserve_strides,
// to another dtype; later lazy_clone and fake conversion) checks emptiness
// first, whatever its caller (R3): an emptied input gives zeros with the
// same sizes and strides (contiguous(): contiguous strides, as its contract
// says; clone_preserve_strides: the offset too) in fresh storage, and the
// input stays emptied. A non-emptied input behaves exactly as without the
// check; an undersized one (R7) is S8 undefined, never restored.

/// R2: numel > 0 and the storage holds 0 bytes, which is not on the meta
/// device (a meta kernel reads no data, so nothing needs restoring).
/// Structural: no marker.
bool is_emptied(const TensorImpl& t);
/// R1: t's storage becomes 0 bytes with a null data pointer; same storage
/// object, so every alias sees it. kNonResizable leaves it as it was.
Status shrink(const Tensor& t);
/// R5: every storage shared by emptied tensors among `live` grows to the
/// largest extent among them and is zeroed; aliasing is kept. The restored
/// storages are appended to *restored (for reshrink).
Status rehydrate(Context& ctx, const std::vector<Tensor>& live,
                 std::vector<WeakRc<Storage>>* restored);
/// Shrinks every storage in `restored` back to 0 bytes and clears the list.
Status reshrink(std::vector<WeakRc<Storage>>* restored);
/// R6: the storage grows or shrinks to `nbytes`, keeping min(old, new)
/// bytes, zero-filling growth. kNonResizable / kInvalidArgument for < 0.
Status resize_storage(Context& ctx, const Tensor& t, int64_t nbytes);
/// Marks t's storage non-resizable (a from_blob-like external buffer).
Status set_nonresizable(const Tensor& t);

// Note [Elements a step reads]
// The allocation limits bound what a step writes, and a tensor that reaches
// each of its offsets once reads no more than its storage holds. A view
// that repeats offsets does not: sum of an expand of 4 elements to
// [100000, 1000, 4] reads 4e8 elements (20 s in the reference), and of an
// as_strided [100, 100, 100, 100, 100] with strides 1, 1e10 (LibTorch too
// would run for minutes). The ops that read their whole input into a result
// not sized by it, sum and to_sparse_*, therefore raise kResourceLimit in
// every backend when the input has more than Limits::max_step_reads elements,
// right after their S8 check. So do fill_ and zero_, which write every
// element of their input in place and, being idempotent, accept a view that
// repeats offsets (fill_ of an expand to [3, 4, 2^31]: 2.6e10 writes, found
// by cow_fuzzer as a timeout); the other in-place writers refuse such views
// (internal overlap). Meta inputs read nothing and are exempt (F9).
// Every other op that reads its input whole allocates a result as large, so
// the allocation limits bound it already.

/// kResourceLimit naming `op` when real `t` has more than
/// ctx.max_step_reads elements (Note [Elements a step reads]).
Status check_step_reads(const Context& ctx, const TensorImpl& t, const char* op);

// --- Observation helpers -----------------------------------------------------------
/// True when the storage holds every byte the geometry can address (S8).
bool storage_covers(const TensorImpl& t);
/// Appends the elements in row-major order (itemsize bytes each), or the
/// elements at its distinct offsets when observe_by_offset(t.geom) (Note
/// [Observing overlapping views], impl/geometry.h).
void read_elements(const TensorImpl& t, std::vector<uint8_t>* out);

/// Most results split/chunk/unbind may produce (harness policy: more would
/// allocate a huge result list in LibTorch); beyond it kResourceLimit.
inline constexpr int64_t kMaxSplitResults = 65536;

/// PyTorch's safe_compute_numel (set_sizes_and_strides, resize_, view):
/// the product of `sizes` in uint64, false when it overflows anywhere, even
/// before a size-0 dim ([2^63-1, 4, 0]), or ends past INT64_MAX; [2^63-1,
/// 2, 0] is fine (2^64-2, then 0).
bool safe_numel_ok(IntSpan sizes);

/// S8 for LibTorch's own index arithmetic: its split computes
/// `dim_size + split_size - 1` and its chunk `dim_size + chunks - 1` (then
/// splits by the quotient) in signed int64, which overflows, undefined
/// behaviour, on a dim of size near 2^63 (found by fake_fuzzer on an expand
/// to [2^63-1]). True when that happens for split (by_chunks false: `k` is
/// split_size > 0) or chunk (by_chunks true: `k` is chunks > 0) of a dim of
/// `dim_size`. Every backend refuses such a step with kUndefinedBehavior
/// once LibTorch's own argument checks pass.
bool split_arithmetic_overflows(int64_t dim_size, int64_t k, bool by_chunks);
/// S8 for slice's own index arithmetic: LibTorch 1.13's slice clamps start
/// and end into [0, size], then computes `offset + start * stride`,
/// `(end - start + step - 1) / step` and `stride * step` in signed int64.
/// True when one of them overflows (found by fake_fuzzer: step 2^63-1 over
/// 2 elements). `dim` must be valid and `step` positive (LibTorch checks
/// those first); narrow is slice(start, start + length, 1) after its own
/// checks. Every backend refuses such a step with kUndefinedBehavior.
bool slice_arithmetic_overflows(int64_t size, int64_t stride, int64_t offset, int64_t start,
                                int64_t end, int64_t step);

/// S5/S9 and the rest of LibTorch's setStrided checks, which every view op
/// runs through as_strided: a view of geometry `g` (sizes and strides of one
/// length) over a storage of `storage_nbytes` bytes. Also what the LibTorch
/// backend asks of each piece of a split or chunk before the next piece's
/// arithmetic: LibTorch builds the pieces in order, so a piece that raises
/// here ends the op before a later piece's overflow (found by cow_fuzzer).
Status set_strided_checks(int64_t storage_nbytes, const Geometry& g);

/// The kUndefinedBehavior message for such a step (op "split" or "chunk"),
/// naming the sum that overflows.
std::string split_arithmetic_message(int64_t dim_size, int64_t k, bool by_chunks);
/// The kUndefinedBehavior message for a slice (or narrow, `op`) whose
/// arithmetic overflows (slice_arithmetic_overflows' arguments).
std::string slice_arithmetic_message(std::string_view op, int64_t size, int64_t stride,
                                     int64_t offset, int64_t start, int64_t end, int64_t step);
/// S8 for view_dtype to a smaller item size (Note [view_dtype] in ops.cpp):
/// LibTorch multiplies every stride but the last, the last size and the
/// offset by the size ratio in signed int64 without a check. True when one
/// of them overflows once its own checks pass (rank >= 1, last stride 1).
/// Every backend refuses such a step with kUndefinedBehavior.
bool view_dtype_arithmetic_overflows(const Geometry& g, int64_t new_itemsize);
/// The kUndefinedBehavior message for such a step (g is the input's).
std::string view_dtype_arithmetic_message(const Geometry& g, DType from, DType to);

}  // namespace storcheck
