// Strided geometry: sizes, strides and offset over a storage, and the
// arithmetic every layer needs about it — checked extents (S4, S5, S9),
// contiguity, and PyTorch's memory-overlap rules (S7).
//
// Invariant: every extent and byte count is computed with overflow checks;
// a computation that overflows int64 reports it instead of wrapping.
//
//   Geometry g = Geometry::of({3, 4}, {4, 1}, /*offset=*/0, /*itemsize=*/4);
//   int64_t bytes;
//   bool ok = g.required_bytes(&bytes);   // true, bytes == 48
//   bool dense = g.is_contiguous();       // true
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace storcheck {

/// Largest rank of any tensor at run time (see oracles/observation.h).
inline constexpr int kGeometryMaxDims = 16;

// Note [Geometry copies]
// A Geometry holds room for kGeometryMaxDims dims (280 bytes), and the view
// ops copy one up to four times per step. A copy takes the dims below its
// rank and leaves the rest unset, so it costs what the rank needs, where
// GCC copied and zeroed the whole struct with `rep movs`/`rep stos` (issue
// 8: a build with kGeometryMaxDims halved ran the reference's execution
// about 10% faster; copying by the rank gave about 5%). The
// entries at rank and past it are not part of the geometry: a copy or
// Geometry(rank) leaves them unset, code that lowers `rank` leaves them
// stale, and nothing reads or compares them (fake_twin_backend.cpp compares
// the dims below the rank); code that raises `rank` writes the new dims
// first. Only Geometry() zeroes them all.

struct Geometry {
  int rank = 0;
  std::array<int64_t, kGeometryMaxDims> sizes;    ///< dims [0, rank)
  std::array<int64_t, kGeometryMaxDims> strides;  ///< dims [0, rank)
  int64_t offset = 0;    ///< in elements
  int64_t itemsize = 1;

  Geometry() : sizes{}, strides{} {}
  /// `rank` dims of size and stride 0, the entries past them unset (Note
  /// [Geometry copies]): for a geometry its builder fills.
  explicit Geometry(int rank_) noexcept : rank(rank_) {
    for (int k = 0, n = dims(); k < n; ++k) sizes[k] = strides[k] = 0;
  }
  /// Note [Geometry copies]: the dims below the rank; the rest unset.
  Geometry(const Geometry& o) noexcept : rank(o.rank), offset(o.offset), itemsize(o.itemsize) {
    copy_dims(o);
  }
  Geometry& operator=(const Geometry& o) noexcept {
    rank = o.rank;
    offset = o.offset;
    itemsize = o.itemsize;
    copy_dims(o);
    return *this;
  }

  static Geometry of(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> strides,
                     int64_t offset, int64_t itemsize);

  /// Product of sizes: 0 when a size is 0, else false on overflow.
  bool numel(int64_t* out) const;
  /// S5/S9: itemsize * (offset + sum((size_d - 1) * stride_d) + 1), or 0 when
  /// numel == 0 (PyTorch's computeStorageNbytes, offset included). False on
  /// int64 overflow. Negative strides are not supported (callers reject them).
  bool required_bytes(int64_t* out) const;
  /// required_bytes with the offset taken as 0, without copying the geometry.
  bool extent_bytes(int64_t* out) const;
  /// Row-major contiguous (size-1 dims' strides ignored), as is_contiguous().
  bool is_contiguous() const;
  /// PyTorch's is_non_overlapping_and_dense.
  bool is_non_overlapping_and_dense() const;
  /// Some two distinct indices map to the same element (exact answer).
  bool has_overlap() const;

 private:
  /// The rank clamped to the arrays: what a copy or Geometry(rank) writes.
  int dims() const noexcept {
    return rank < 0 ? 0 : rank > kGeometryMaxDims ? kGeometryMaxDims : rank;
  }
  void copy_dims(const Geometry& o) noexcept {
    for (int k = 0, n = dims(); k < n; ++k) {
      sizes[k] = o.sizes[k];
      strides[k] = o.strides[k];
    }
  }
};

/// S9 policy for as_strided(_): true when all strides are >= 0, the extent
/// without the offset is computable and non-zero, but adding
/// `offset * itemsize` to it overflows int64 (LibTorch 1.13 wraps silently
/// and builds a view far outside its storage).
bool storage_offset_overflows(const Geometry& g);
/// `extent` (the bytes without the offset) plus offset * itemsize into
/// *total; false when either overflows int64 (the sum storage_offset_overflows checks).
bool add_offset_bytes(const Geometry& g, int64_t extent, int64_t* total);

/// PyTorch's has_internal_overlap: kYes when a dim of size > 1 has stride 0
/// (the only case LibTorch detects and rejects in in-place ops, S7), kNo when
/// non-overlapping and dense, kTooHard otherwise.
enum class MemOverlap { kNo, kYes, kTooHard };
MemOverlap internal_overlap(const Geometry& g);

/// PyTorch's get_overlap_status for two tensors over one storage
/// (`same_tensor` when both are the same TensorImpl).
enum class MemOverlapStatus { kFull, kPartial, kTooHard, kNo };
MemOverlapStatus overlap_status(const Geometry& a, const Geometry& b, bool same_storage,
                                bool same_tensor);

/// True when some element of `a` and some element of `b` (same storage)
/// occupy a common byte (exact).
bool elements_intersect(const Geometry& a, const Geometry& b);

/// The same sizes, strides (over the rank), offset and item size: the very
/// same elements.
bool same_layout(const Geometry& a, const Geometry& b);

/// Row-major contiguous strides for `sizes` (PyTorch's default; size-0/1
/// dims get the stride they would have with size 1).
void contiguous_strides(int rank, const int64_t* sizes, int64_t* strides);
/// The dims of `in` from innermost to outermost as PyTorch orders them
/// (TensorIterator's reorder_dimensions, infer_dense_strides): by stride
/// (in bytes when `stride_bytes`), then by size; a 0 stride compares as
/// equal to anything. Writes in.rank dims to perm.
void layout_order(const Geometry& in, bool stride_bytes, int* perm);
/// PyTorch's infer_dense_strides: dense strides in `in`'s layout order (what
/// empty_like, clone and to() with preserve_format give an input that is not
/// non-overlapping and dense). Writes in.rank strides.
void infer_dense_strides(const Geometry& in, int64_t* strides);

// Note [Observing overlapping views]
// A view's values are observed as its elements in row-major order (S4), which
// costs numel reads. A view may reach far more elements than its storage
// holds (expand to [10^5,10^3,4] of a 4-element tensor: 4e8 reads, 1.6 GB of
// observed bytes per backend per step; found by cow_fuzzer as a timeout).
// Such a view's values are a function of its geometry and the elements at
// the offsets it reaches, and the geometry is observed and compared too, so
// every backend observes a view with numel > kObserveAllElements that
// reaches fewer distinct offsets than numel by the elements at its distinct
// offsets, in increasing offset order. The cost is then bounded by the
// storage's size, and the rule depends on the geometry alone, so backends
// that agree on the geometry agree on the representation.

/// Elements up to which a view is always observed in row-major order.
inline constexpr int64_t kObserveAllElements = int64_t{1} << 16;

/// Note [Observing overlapping views]: numel > kObserveAllElements and
/// numel > the span of offsets `g` reaches (so some offsets repeat). False
/// for negative strides and on overflow.
bool observe_by_offset(const Geometry& g);

/// The distinct element offsets `g` reaches, increasing (none when numel is
/// 0). Costs O(span / 64 * sum(log2 size)) for span = max - min offset + 1;
/// strides must be >= 0 and the span computable (callers check
/// required_bytes against the storage first).
std::vector<int64_t> distinct_offsets(const Geometry& g);

/// Appends what an observation reads of the elements of `g` over the bytes
/// at `base` (which hold every byte `g` addresses): each element's itemsize
/// bytes, in row-major order, or at its distinct offsets when
/// observe_by_offset(g). Every backend reads values through this.
void read_observed_elements(const uint8_t* base, const Geometry& g, std::vector<uint8_t>* out);
/// Appends every element of `g` in row-major order, whatever it repeats:
/// numel * itemsize bytes (the caller bounds numel: an op that reads its
/// input whole, Note [Elements a step reads] in impl/ops.h).
void read_row_major_elements(const uint8_t* base, const Geometry& g, std::vector<uint8_t>* out);

/// Calls fn(offset_in_a, offset_in_b) for each element of two geometries of
/// the same rank and sizes, in row-major logical order (a's sizes are
/// walked). Elementwise ops that read one tensor and write another of its
/// shape walk both at once: listing the first's offsets in a vector of numel
/// entries was a 128 KiB allocation per op for the fuzz targets' largest
/// tensors.
template <typename Fn>
void for_each_offset2(const Geometry& a, const Geometry& b, Fn&& fn) {
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] == 0) return;
  if (a.rank == 0) {
    fn(a.offset, b.offset);
    return;
  }
  // The last dim in a tight loop; the outer dims as an odometer.
  const int last = a.rank - 1;
  const int64_t n = a.sizes[last], sa = a.strides[last], sb = b.strides[last];
  std::array<int64_t, kGeometryMaxDims> idx;  // the outer dims' only (Note [Geometry copies])
  for (int d = 0; d < last; ++d) idx[d] = 0;
  int64_t oa = a.offset, ob = b.offset;
  while (true) {
    // k * stride, not a running sum: the sum would step past the last
    // element (a size-1 dim may have any stride: int64 overflow).
    for (int64_t k = 0; k < n; ++k) fn(oa + k * sa, ob + k * sb);
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < a.sizes[d]) {
        oa += a.strides[d];
        ob += b.strides[d];
        break;
      }
      oa -= a.strides[d] * (a.sizes[d] - 1);
      ob -= b.strides[d] * (b.sizes[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/// Calls fn(element_offset) for each element in row-major logical order.
template <typename Fn>
void for_each_offset(const Geometry& g, Fn&& fn) {
  for_each_offset2(g, g, [&](int64_t off, int64_t) { fn(off); });
}

}  // namespace storcheck
