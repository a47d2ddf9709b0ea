#include "impl/geometry.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <vector>

namespace storcheck {

namespace {
bool mul_ok(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool add_ok(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// Beyond this many elements the exact overlap checks give up and answer
// "overlaps" (conservative); tensors that large never pass the allocation
// limits, so only metadata-only paths can reach it.
constexpr int64_t kMaxEnumerated = int64_t{1} << 22;
// The largest offset span whose bitset the overlap check builds (4 MiB).
constexpr int64_t kMaxBitsetSpan = int64_t{1} << 25;

/// The span of element offsets `g` reaches (max - min + 1), or -1 when a
/// stride is negative or it overflows. numel > 0.
int64_t offset_span(const Geometry& g) {
  int64_t span = 1;
  for (int d = 0; d < g.rank; ++d) {
    if (g.strides[d] < 0) return -1;
    int64_t term;
    if (!mul_ok(g.sizes[d] - 1, g.strides[d], &term) || !add_ok(span, term, &span)) return -1;
  }
  return span;
}

/// Bit k set when offset g.offset + k is reached; `span` is offset_span(g)
/// (> 0). Each dim of size m and stride s turns the set R into R + {0, s,
/// ..., (m-1)s}, by doubling: with R covering multiples 0..c-1, R | R <<
/// (k*s) covers 0..c+k-1 (k <= c). O(span / 64 * log(size)) per dim.
std::vector<uint64_t> reached_offsets(const Geometry& g, int64_t span) {
  const size_t words = static_cast<size_t>((span + 63) / 64);
  std::vector<uint64_t> reached(words, 0);
  reached[0] = 1;
  auto shift_or = [&](int64_t by) {  // reached |= reached << by
    const size_t q = static_cast<size_t>(by / 64);
    const unsigned r = static_cast<unsigned>(by % 64);
    for (size_t i = words; i-- > q;) {  // high to low: reads only unmodified words
      uint64_t v = reached[i - q] << r;
      if (r != 0 && i > q) v |= reached[i - q - 1] >> (64 - r);
      reached[i] |= v;
    }
  };
  for (int d = 0; d < g.rank; ++d) {
    const int64_t m = g.sizes[d], s = g.strides[d];
    if (m < 2 || s == 0) continue;
    for (int64_t have = 1; have < m;) {
      const int64_t k = std::min(have, m - have);
      shift_or(k * s);  // k * s <= (m - 1) * s < span: no overflow
      have += k;
    }
  }
  return reached;
}
}  // namespace

Geometry Geometry::of(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> strides,
                      int64_t offset, int64_t itemsize) {
  Geometry g;
  for (int64_t s : sizes) g.sizes[g.rank++] = s;
  int k = 0;
  for (int64_t s : strides) g.strides[k++] = s;
  g.offset = offset;
  g.itemsize = itemsize;
  return g;
}

bool Geometry::numel(int64_t* out) const {
  // A size-0 dim makes the product 0 wherever it stands: [2^63-1, 2, 0] has
  // numel 0, though its first two sizes overflow (the callers that ignored
  // a false here read an uninitialized count; found by shrink_fuzzer).
  for (int d = 0; d < rank; ++d)
    if (sizes[d] == 0) {
      *out = 0;
      return true;
    }
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    if (!mul_ok(n, sizes[d], &n)) return false;
  *out = n;
  return true;
}

namespace {
/// Geometry::required_bytes with `offset` in place of g.offset.
bool bytes_from(const Geometry& g, int64_t offset, int64_t* out) {
  // PyTorch's computeStorageNbytes (1.13): unsigned 64-bit arithmetic, so a
  // negative stride on a dim of size > 1 overflows, as does any extent past
  // INT64_MAX bytes (S9).
  // One pass (issue 8): a size-0 dim anywhere gives 0 bytes whatever the
  // other dims and the offset are, so the sum is only used without one.
  uint64_t size = static_cast<uint64_t>(offset) + 1;
  bool overflowed = false;
  for (int d = 0; d < g.rank; ++d) {
    if (g.sizes[d] == 0) {
      *out = 0;
      return true;
    }
    uint64_t term;
    overflowed |= __builtin_mul_overflow(static_cast<uint64_t>(g.strides[d]),
                                         static_cast<uint64_t>(g.sizes[d] - 1), &term);
    overflowed |= __builtin_add_overflow(size, term, &size);
  }
  if (offset < 0) return false;
  overflowed |= __builtin_mul_overflow(size, static_cast<uint64_t>(g.itemsize), &size);
  overflowed |= size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflowed) return false;
  *out = static_cast<int64_t>(size);
  return true;
}
}  // namespace

bool Geometry::required_bytes(int64_t* out) const { return bytes_from(*this, offset, out); }

bool Geometry::extent_bytes(int64_t* out) const { return bytes_from(*this, 0, out); }

bool Geometry::is_contiguous() const {
  int64_t expected = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (sizes[d] == 0) return true;
  }
  for (int d = rank - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool Geometry::is_non_overlapping_and_dense() const {
  // TensorImpl::refresh_contiguous: contiguous (numel 0 included) counts.
  if (is_contiguous()) return true;
  if (rank == 1) return sizes[0] < 2 || strides[0] == 1;
  std::array<int, kGeometryMaxDims> perm{};
  for (int d = 0; d < rank; ++d) perm[d] = d;
  std::sort(perm.begin(), perm.begin() + rank, [&](int a, int b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (int k = 0; k < rank; ++k) {
    int64_t size = sizes[perm[k]];
    if (size < 2) return true;
    if (strides[perm[k]] != require) return false;
    if (!mul_ok(require, size, &require)) return false;
  }
  return true;
}

bool Geometry::has_overlap() const {
  int64_t n;
  if (!numel(&n) || n <= 1) return false;
  // Sufficient test: sorted by stride, each stride exceeds the span of the
  // dims below it.
  std::array<int, kGeometryMaxDims> perm{};
  int m = 0;
  for (int d = 0; d < rank; ++d)
    if (sizes[d] > 1) perm[m++] = d;
  std::sort(perm.begin(), perm.begin() + m, [&](int a, int b) { return strides[a] < strides[b]; });
  int64_t span = 0;
  bool separated = true;
  for (int k = 0; k < m; ++k) {
    int64_t st = strides[perm[k]];
    if (st == 0) return true;
    if (st <= span) {
      separated = false;
      break;
    }
    int64_t term;
    if (!mul_ok(sizes[perm[k]] - 1, st, &term) || !add_ok(span, term, &span)) return true;
  }
  if (separated) return false;
  // Overlap iff fewer distinct offsets than elements: counted on the
  // bitset of reached offsets when the span is small (an unfold's windows:
  // sorting four million offsets took seconds per step, found by
  // shrink_fuzzer as a 12 s input), else by sorting them.
  const int64_t off_span = offset_span(*this);
  if (off_span > 0 && off_span <= kMaxBitsetSpan) {
    int64_t distinct = 0;
    for (uint64_t w : reached_offsets(*this, off_span)) distinct += __builtin_popcountll(w);
    return distinct < n;
  }
  if (n > kMaxEnumerated) return true;
  std::vector<int64_t> offs;
  offs.reserve(static_cast<size_t>(n));
  for_each_offset(*this, [&](int64_t o) { offs.push_back(o); });
  std::sort(offs.begin(), offs.end());
  return std::adjacent_find(offs.begin(), offs.end()) != offs.end();
}

bool storage_offset_overflows(const Geometry& g) {
  for (int d = 0; d < g.rank; ++d)
    if (g.strides[d] < 0) return false;
  int64_t bytes, total;
  if (!g.extent_bytes(&bytes) || bytes == 0) return false;
  return !add_offset_bytes(g, bytes, &total);
}

bool add_offset_bytes(const Geometry& g, int64_t extent, int64_t* total) {
  int64_t off_bytes;
  return !__builtin_mul_overflow(g.offset, g.itemsize, &off_bytes) &&
         !__builtin_add_overflow(extent, off_bytes, total);
}

MemOverlap internal_overlap(const Geometry& g) {
  if (g.is_non_overlapping_and_dense()) return MemOverlap::kNo;
  for (int d = 0; d < g.rank; ++d)
    if (g.strides[d] == 0 && g.sizes[d] > 1) return MemOverlap::kYes;
  return MemOverlap::kTooHard;
}

MemOverlapStatus overlap_status(const Geometry& a, const Geometry& b, bool same_storage,
                                bool same_tensor) {
  if (same_tensor) return MemOverlapStatus::kFull;
  int64_t na = 0, nb = 0;
  if (!a.numel(&na) || !b.numel(&nb)) return MemOverlapStatus::kTooHard;
  if (na == 0 || nb == 0) return MemOverlapStatus::kNo;
  if (!a.is_non_overlapping_and_dense() || !b.is_non_overlapping_and_dense())
    return MemOverlapStatus::kTooHard;
  if (same_storage) {
    int64_t a_begin = a.offset * a.itemsize, a_end = a_begin + na * a.itemsize;
    int64_t b_begin = b.offset * b.itemsize, b_end = b_begin + nb * b.itemsize;
    if (a_begin == b_begin && a_end == b_end) {
      bool same_strides = a.rank == b.rank;
      for (int d = 0; same_strides && d < a.rank; ++d) same_strides = a.strides[d] == b.strides[d];
      return same_strides ? MemOverlapStatus::kFull : MemOverlapStatus::kPartial;
    }
    if (a_begin < b_end && b_begin < a_end) return MemOverlapStatus::kPartial;
  }
  return MemOverlapStatus::kNo;
}

bool same_layout(const Geometry& a, const Geometry& b) {
  if (a.rank != b.rank || a.offset != b.offset || a.itemsize != b.itemsize) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

bool elements_intersect(const Geometry& a, const Geometry& b) {
  int64_t na, nb, ea, eb;
  if (!a.numel(&na) || !b.numel(&nb)) return true;
  if (na == 0 || nb == 0) return false;
  if (!a.required_bytes(&ea) || !b.required_bytes(&eb)) return true;
  int64_t a_begin = a.offset * a.itemsize, b_begin = b.offset * b.itemsize;
  if (ea <= b_begin || eb <= a_begin) return false;  // byte ranges disjoint
  // On the bitsets of reached offsets when both spans are small: an expand
  // of a few elements to millions made the sort below take seconds per
  // add_out step under ASan (found by cow_fuzzer and fake_fuzzer as 12 s
  // inputs). Each offset b reaches is checked against the a-offsets whose
  // bytes touch its bytes (the item sizes may differ: view_dtype).
  const int64_t sa = offset_span(a), sb = offset_span(b);
  if (sa > 0 && sb > 0 && sa <= kMaxBitsetSpan && sb <= kMaxBitsetSpan) {
    const std::vector<uint64_t> ra = reached_offsets(a, sa), rb = reached_offsets(b, sb);
    for (size_t i = 0; i < rb.size(); ++i)
      for (uint64_t w = rb[i]; w != 0; w &= w - 1) {
        const int64_t lo =
            (b.offset + static_cast<int64_t>(i * 64) + __builtin_ctzll(w)) * b.itemsize;
        // a-elements [o * ia, (o + 1) * ia) meeting [lo, lo + ib): <= eb, no overflow
        const int64_t first = std::max<int64_t>(lo / a.itemsize - a.offset, 0);
        const int64_t last = std::min((lo + b.itemsize - 1) / a.itemsize - a.offset, sa - 1);
        for (int64_t k = first; k <= last; ++k)
          if ((ra[static_cast<size_t>(k / 64)] >> (k % 64)) & 1) return true;
      }
    return false;
  }
  if (na > kMaxEnumerated || nb > kMaxEnumerated) return true;
  std::vector<int64_t> starts;
  starts.reserve(static_cast<size_t>(na));
  for_each_offset(a, [&](int64_t o) { starts.push_back(o * a.itemsize); });
  std::sort(starts.begin(), starts.end());
  bool hit = false;
  for_each_offset(b, [&](int64_t o) {
    if (hit) return;
    int64_t lo = o * b.itemsize, hi = lo + b.itemsize;  // [lo, hi)
    // any a-element [s, s + a.itemsize) with s < hi and s + a.itemsize > lo
    auto it = std::lower_bound(starts.begin(), starts.end(), lo - a.itemsize + 1);
    if (it != starts.end() && *it < hi) hit = true;
  });
  return hit;
}

bool observe_by_offset(const Geometry& g) {
  int64_t n;
  if (!g.numel(&n) || n <= kObserveAllElements) return false;
  int64_t span = offset_span(g);
  return span > 0 && n > span;
}

std::vector<int64_t> distinct_offsets(const Geometry& g) {
  int64_t n;
  if (!g.numel(&n) || n == 0) return {};
  const int64_t span = offset_span(g);
  if (span <= 0) return {};
  const std::vector<uint64_t> reached = reached_offsets(g, span);
  const size_t words = reached.size();
  std::vector<int64_t> out;
  for (size_t i = 0; i < words; ++i)
    for (uint64_t w = reached[i]; w != 0; w &= w - 1)
      out.push_back(g.offset + static_cast<int64_t>(i * 64) + __builtin_ctzll(w));
  return out;
}

void read_observed_elements(const uint8_t* base, const Geometry& g, std::vector<uint8_t>* out) {
  if (!observe_by_offset(g)) {
    read_row_major_elements(base, g, out);
    return;
  }
  const size_t is = static_cast<size_t>(g.itemsize);
  const std::vector<int64_t> offs = distinct_offsets(g);
  const size_t at = out->size();
  out->resize(at + offs.size() * is);
  uint8_t* dst = out->data() + at;
  for (int64_t o : offs) {
    std::memcpy(dst, base + o * g.itemsize, is);
    dst += is;
  }
}

namespace {

/// Copies the elements of `g` one by one in row-major order; kSize is the
/// itemsize, a constant so that each copy is one load and store instead of
/// a memcpy call (issue 8: the per-element path of transposed views).
template <size_t kSize>
uint8_t* copy_each_element(const uint8_t* base, const Geometry& g, uint8_t* dst) {
  for_each_offset(g, [&](int64_t o) {
    std::memcpy(dst, base + o * static_cast<int64_t>(kSize), kSize);
    dst += kSize;
  });
  return dst;
}

}  // namespace

void read_row_major_elements(const uint8_t* base, const Geometry& g, std::vector<uint8_t>* out) {
  const size_t is = static_cast<size_t>(g.itemsize);
  const size_t at = out->size();
  int64_t n = 0;
  if (!g.numel(&n) || n == 0) return;
  // The trailing dims that are row-major contiguous (size-1 dims' strides
  // ignored) form runs of `run` adjacent elements: one memcpy per run, the
  // outer dims enumerated as usual (issue 8: most observed views are
  // contiguous or contiguous rows).
  int64_t run = 1;
  int outer = g.rank;
  while (outer > 0 && (g.sizes[outer - 1] == 1 || g.strides[outer - 1] == run)) {
    run *= g.sizes[outer - 1];
    --outer;
  }
  if (outer == 0) {  // one run: appended without zero-filling first
    const uint8_t* src = base + g.offset * g.itemsize;
    out->insert(out->end(), src, src + static_cast<size_t>(n) * is);
    return;
  }
  out->resize(at + static_cast<size_t>(n) * is);
  uint8_t* dst = out->data() + at;
  if (run == 1) {
    switch (is) {
      case 1:
        copy_each_element<1>(base, g, dst);
        return;
      case 2:
        copy_each_element<2>(base, g, dst);
        return;
      case 4:
        copy_each_element<4>(base, g, dst);
        return;
      case 8:
        copy_each_element<8>(base, g, dst);
        return;
      default:
        for_each_offset(g, [&](int64_t o) {
          std::memcpy(dst, base + o * g.itemsize, is);
          dst += is;
        });
        return;
    }
  }
  Geometry rows = g;
  rows.rank = outer;
  const size_t run_bytes = static_cast<size_t>(run) * is;
  for_each_offset(rows, [&](int64_t o) {
    std::memcpy(dst, base + o * g.itemsize, run_bytes);
    dst += run_bytes;
  });
}

void contiguous_strides(int rank, const int64_t* sizes, int64_t* strides) {
  int64_t z = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = z;
    int64_t s = sizes[d] > 1 ? sizes[d] : 1;
    // LibTorch 1.13 wraps (only tensors of numel 0 get this far: any other
    // overflowing shape fails the byte-size check first, S9); found by
    // views_fuzzer on sizes like [3,3,0,2^63-1].
    z = static_cast<int64_t>(static_cast<uint64_t>(z) * static_cast<uint64_t>(s));
  }
}

/// PyTorch's infer_dense_strides (empty_like / clone with preserve_format
/// for inputs that are not dense and non-overlapping).
void layout_order(const Geometry& in, bool stride_bytes, int* perm) {
  const int n = in.rank;
  for (int k = 0; k < n; ++k) perm[k] = n - 1 - k;
  auto stride = [&](int d) {  // wrapping, like LibTorch's int64 arithmetic
    return stride_bytes ? static_cast<int64_t>(static_cast<uint64_t>(in.strides[d]) *
                                               static_cast<uint64_t>(in.itemsize))
                        : in.strides[d];
  };
  auto should_swap = [&](int d0, int d1) {
    int64_t s0 = stride(d0), s1 = stride(d1);
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    if (in.sizes[d0] > in.sizes[d1]) return 1;
    return 0;
  };
  for (int i = 1; i < n; ++i) {  // insertion sort, stable like PyTorch's
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
}

void infer_dense_strides(const Geometry& in, int64_t* strides) {
  const int n = in.rank;
  std::array<int, kGeometryMaxDims> perm{};
  layout_order(in, /*stride_bytes=*/false, perm.data());
  int64_t cur = 1;
  for (int k = 0; k < n; ++k) {
    strides[perm[k]] = cur;
    // wraps like LibTorch's int64 arithmetic (a numel-0 tensor may overflow)
    if (in.sizes[perm[k]] > 1)
      cur = static_cast<int64_t>(static_cast<uint64_t>(cur) * static_cast<uint64_t>(in.sizes[perm[k]]));
  }
}

}  // namespace storcheck
