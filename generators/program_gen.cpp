#include "generators/program_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>

#include "impl/geometry.h"
#include "impl/ops.h"
#include "impl/rand.h"
#include "program/text_format.h"

// Note [Choice records]
// A program is drawn as std::vector<StepChoice>; RapidCheck shrinks it by
// removing records and by moving each field toward 0. The builder reads the
// records in order and keeps a model of every live variable. Each record
// names an op (index into the enabled ops), its tensor operands (indices,
// modulo the number of live variables the op accepts) and a row of small
// "picks" that the op's rule consumes in order (dims, sizes, indices,
// scalars). Every pick is reduced modulo the range the model allows, so any
// record is meaningful in any state and removing a record still yields a
// well-formed program. The cases, in the order the builder tries them:
//   1) the op needs a tensor and no live variable fits: a factory step instead;
//   2) the record is deliberately invalid and the op has a bad argument to
//      give for some live variable: that step, its result is never used again;
//   3) otherwise the valid step, and the model follows the op's shape rule;
//      when the model expects it to raise (S5 bounds on an emptied or
//      undersized storage, S8 compute on one, a non-resizable storage) its
//      result is never used again, as the runner leaves it unbound.
// Pick 0 is always the simplest choice (size 1, dim 0, scalar 1, f32).
// Each record is drawn from one rc::Random (8 numbers, two of its blocks:
// the 16 picks, then op, invalid, seed, var and var2), uniform on the same
// ranges as one RapidCheck generator per field would draw, and shrinks field
// by field toward 0 in declaration order (shrink_choice), as a tuple of those
// generators would; generation is thus a pure function of the Random and the
// size, at a fraction of the cost (issue 8). With min_steps == max_steps no
// tail of records is drawn: build ignores records past max_steps.
// With GenConfig::storage_focus or cow_focus the op index and the operand
// index are read as weights over the current state (draw_op, pick_steered)
// instead of uniformly: index 0 still names the first enabled op and live
// variable.
//
// Note [Swarm programs]
// With the 65 strided ops enabled, a 16-step program holds a given op in
// about one program of four, so the interactions that need several steps of a few ops
// (a chain of set_, resize_ and views over one storage; many lazy clones
// of one block and writes through them) are rare. Swarm testing (Groce et
// al., "Swarm Testing", ISSTA 2012) draws a share of the programs
// (GenConfig::swarm_per_mille) over a random subset of the enabled ops
// instead, each op kept with probability 1/2: a program then holds about
// twice as many steps of each of its ops, and the ops left out cannot
// crowd out the ones that interact. The subset is a pure function of the
// first record's seed (splitmix64, impl/rand.h), like the mixed sparse
// choice, so that a record list always rebuilds one program, and shrinking
// that seed may change the subset (RapidCheck keeps a candidate only if it
// still fails). The factories stay available to case 1 of Note [Choice
// records] (a tensor when no live variable fits); a subset of fewer than two
// ops is not used.

// Note [COW model]
// Each model storage has a COW group id (-1: not COW) and a foreign flag
// (from_blob). A successful lazy_clone of a non-emptied, non-foreign input
// gives the input's sizes, strides and offset over a new storage of the same
// byte size (and resizable flag, as c10's lazy_clone_storage keeps it) in the
// input storage's group, a new group when the input was not COW (C1, C2). The
// sharers of a group are its storages that some live variable still names
// (a storage dies with its last variable). A successful write (kInplace ops,
// copy_'s destination, mutable_data_ptr) materializes the storage written to
// (C3, C4: with other sharers alive or as the last sharer, it leaves the
// group either way); a change of a storage's size (resize_storage, shrink,
// resize_ growth, rehydrate, reshrink) leaves the group too (C8). Reads and
// views never change the group.

namespace storcheck {

namespace {
/// 16-step programs over every op with one focus (a GenConfig flag) on.
GenConfig focused(bool GenConfig::*focus) {
  GenConfig cfg;
  cfg.max_steps = 16;
  cfg.min_steps = 16;
  cfg.*focus = true;
  return cfg;
}
}  // namespace

GenConfig shrink_config() { return focused(&GenConfig::storage_focus); }
GenConfig cow_config() { return focused(&GenConfig::cow_focus); }
GenConfig fake_config() { return focused(&GenConfig::fake_focus); }
GenConfig sparse_config() {
  GenConfig cfg = focused(&GenConfig::sparse_focus);
  cfg.ops = all_ops() & ~device_ops();
  return cfg;
}
GenConfig device_config(GenConfig base) {
  base.ops |= device_ops();
  base.home_cuda = true;
  return base;
}

OpSet all_ops() {
  OpSet s;
  s.set();
  return s;
}

OpSet strided_ops() { return all_ops() & ~ops_in({OpCategory::kSparse, OpCategory::kDevice}); }
OpSet device_ops() { return ops_in({OpCategory::kDevice}); }

OpSet ops_in(std::initializer_list<OpCategory> cats) {
  OpSet s;
  for (const OpInfo& info : op_table())
    for (OpCategory c : cats)
      if (info.category == c) s.set(static_cast<int>(info.id));
  return s;
}

bool StepChoice::operator==(const StepChoice& o) const {
  return op == o.op && var == o.var && var2 == o.var2 && invalid == o.invalid &&
         picks == o.picks && seed == o.seed;
}

void showValue(const Program& p, std::ostream& os) { os << "\n" << print_program(p); }

namespace detail {
namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

int64_t itemsize(DTypeArg d) {
  switch (d) {
    case DTypeArg::kF32: case DTypeArg::kI32: return 4;
    case DTypeArg::kF64: case DTypeArg::kI64: return 8;
    case DTypeArg::kU8: case DTypeArg::kBool: return 1;
  }
  return 1;
}

bool is_float(DTypeArg d) { return d == DTypeArg::kF32 || d == DTypeArg::kF64; }
bool is_integral(DTypeArg d) {
  return d == DTypeArg::kI32 || d == DTypeArg::kI64 || d == DTypeArg::kU8;
}

void push(IntList& l, int64_t x) { l.v[l.n++] = x; }

/// The sparse layouts, as the generator's model names them (Note [Sparse programs]).
enum class SparseLayoutTag : uint8_t { kCoo, kCsr, kCsc, kBsr, kBsc };

void erase_at(IntList& l, int k) {
  for (int j = k; j + 1 < l.n; ++j) l.v[j] = l.v[j + 1];
  --l.n;
}

void insert_at(IntList& l, int k, int64_t x) {
  for (int j = l.n; j > k; --j) l.v[j] = l.v[j - 1];
  l.v[k] = x;
  ++l.n;
}

/// The product of the sizes: 0 when a size is 0, saturating at INT64_MAX
/// (huge metadata-only sizes beside a 0 size would overflow otherwise).
int64_t numel(const IntList& s) {
  for (int64_t x : s)
    if (x == 0) return 0;
  int64_t n = 1;
  for (int64_t x : s)
    if (__builtin_mul_overflow(n, x, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

IntList contiguous_strides(const IntList& s) {
  IntList st;
  st.n = s.n;
  int64_t acc = 1;
  for (int k = s.n - 1; k >= 0; --k) {
    st.v[k] = acc;
    acc *= std::max<int64_t>(s[k], 1);
  }
  return st;
}

/// Bytes from the storage start to one past the last element; 0 when empty.
int64_t extent_bytes(const ModelTensor& t) {
  int64_t last = t.offset;
  for (int k = 0; k < t.sizes.size(); ++k) {
    if (t.sizes[k] == 0) return 0;
    last += (t.sizes[k] - 1) * t.strides[k];
  }
  return (last + 1) * itemsize(t.dtype);
}

/// S5/S8: a storage of `bytes` holds every element of t (always, when t is empty).
bool covers(const ModelTensor& t, int64_t bytes) { return extent_bytes(t) <= bytes; }

/// The reference's DType of a language dtype (the same order; the oracles'
/// to_dtype, which the generators layer does not include).
DType impl_dtype(DTypeArg d) { return static_cast<DType>(static_cast<int>(d)); }

/// t's sizes, strides, offset and item size as the reference's Geometry.
Geometry geometry_of(const ModelTensor& t) {
  Geometry g;
  g.rank = t.sizes.size();
  for (int k = 0; k < g.rank; ++k) {
    g.sizes[k] = t.sizes[k];
    g.strides[k] = t.strides[k];
  }
  g.offset = t.offset;
  g.itemsize = itemsize(t.dtype);
  return g;
}

/// Note [view_dtype] (impl/ops.cpp): whether in.view(d) succeeds and, when
/// `out` is given, its model (in's, with d's item size).
bool view_dtype_model(const ModelTensor& in, DTypeArg d, ModelTensor* out) {
  const int64_t from = itemsize(in.dtype), to = itemsize(d);
  const int r = in.sizes.size();
  ModelTensor m = in;
  m.dtype = d;
  if (from != to) {
    if (r == 0 || in.strides[r - 1] != 1) return false;
    if (from > to) {
      if (view_dtype_arithmetic_overflows(geometry_of(in), to)) return false;  // S8
      const int64_t ratio = from / to;
      for (int k = 0; k + 1 < r; ++k) m.strides.v[k] = in.strides[k] * ratio;
      m.sizes.v[r - 1] = in.sizes[r - 1] * ratio;
      m.offset = in.offset * ratio;
    } else {
      const int64_t ratio = to / from;
      if (in.sizes[r - 1] % ratio != 0 || in.offset % ratio != 0) return false;
      for (int k = 0; k + 1 < r; ++k)
        if (in.strides[k] % ratio != 0) return false;
      for (int k = 0; k + 1 < r; ++k) m.strides.v[k] = in.strides[k] / ratio;
      m.sizes.v[r - 1] = in.sizes[r - 1] / ratio;
      m.offset = in.offset / ratio;
    }
  }
  if (out) *out = m;
  return true;
}

/// Note [set_] (impl/ops.cpp): whether `in`.set_(`src`) grows src's storage
/// of `bytes`: src has elements and needs more, and src's sizes or strides
/// differ from in's (a meta storage grows whatever the geometry).
bool set_grows(const ModelTensor& in, const ModelTensor& src, int64_t bytes) {
  const bool same = in.sizes == src.sizes && in.strides == src.strides;
  return numel(src.sizes) > 0 && (src.meta || !same) && extent_bytes(src) > bytes;
}

/// The result type of x + s and x * s (torch.result_type: add, mul,
/// add_out, mul_out), and whether it casts to an out of dtype `to` (PyTorch's
/// canCast: no float into an integral or bool tensor, no integral into
/// bool; Note [out=] in impl/ops.cpp).
DTypeArg scalar_result(DTypeArg x, const ScalarLit& s) {
  if (s.kind == ScalarLit::Kind::kFloat && !is_float(x)) return DTypeArg::kF32;
  if (s.kind == ScalarLit::Kind::kInt && x == DTypeArg::kBool) return DTypeArg::kI64;
  return x;
}
bool casts_to(DTypeArg from, DTypeArg to) {
  auto kind = [](DTypeArg d) { return d == DTypeArg::kBool ? 0 : is_float(d) ? 2 : 1; };
  return kind(from) <= kind(to);
}

/// R2: t has elements and its storage has 0 bytes.
/// R2: a meta storage of 0 bytes holds no data to restore (Note [Meta execution]).
bool emptied(const ModelTensor& t, int64_t bytes) {
  return numel(t.sizes) > 0 && bytes == 0 && !t.meta;
}

/// R3: the ops that restore an emptied input as zeros in fresh storage.
bool is_clone_path(OpId op) {
  return op == OpId::kClone || op == OpId::kContiguous || op == OpId::kClonePreserveStrides ||
         op == OpId::kTo || op == OpId::kLazyClone || op == OpId::kCuda || op == OpId::kCpu;
}

/// Ops that write a tensor's data: they materialize a COW storage (C3).
bool is_write(OpId op) { return op_info(op).category == OpCategory::kInplace; }

/// Views that go through PyTorch's setStrided bounds check (S5, R4).
bool is_checked_view(OpId op) {
  return op == OpId::kSelect || op == OpId::kNarrow || op == OpId::kSlice ||
         op == OpId::kAsStrided || op == OpId::kTranspose;
}

/// PyTorch refuses in-place writes when a dim of size > 1 has stride 0,
/// except to a tensor of no elements (TensorIterator checks no overlap
/// there: `mul_` of sizes [2, 3, 0, 4] and strides [1, 0, 1, 0] runs in 1.13).
bool has_write_overlap(const ModelTensor& t) {
  if (numel(t.sizes) == 0) return false;
  for (int k = 0; k < t.sizes.size(); ++k)
    if (t.sizes[k] > 1 && t.strides[k] == 0) return true;
  return false;
}

bool is_contiguous(const ModelTensor& t) {
  if (numel(t.sizes) == 0) return true;
  int64_t acc = 1;
  for (int k = t.sizes.size() - 1; k >= 0; --k) {
    if (t.sizes[k] == 1) continue;
    if (t.strides[k] != acc) return false;
    acc *= t.sizes[k];
  }
  return true;
}

/// Non-overlapping and dense: some permutation of the dims is contiguous.
bool is_dense(const ModelTensor& t) {
  int order[kMaxRank];
  int n = 0;
  for (int k = 0; k < t.sizes.size(); ++k)
    if (t.sizes[k] != 1) order[n++] = k;
  for (int i = 1; i < n; ++i)  // insertion sort by stride (n <= kMaxRank)
    for (int j = i; j > 0 && t.strides[order[j]] < t.strides[order[j - 1]]; --j)
      std::swap(order[j], order[j - 1]);
  int64_t acc = 1;
  for (int j = 0; j < n; ++j) {
    if (t.strides[order[j]] != acc) return false;
    acc *= t.sizes[order[j]];
  }
  return true;
}

/// Strides of a fresh dense copy of t laid out in t's stride order (ties and
/// stride-0 dims keep their order): PyTorch's infer_dense_strides (clone, to
/// with preserve_format of a non-dense input) when `iterator` is false, the
/// TensorIterator output strides (add/mul with a scalar) when true.
IntList dense_strides_like(const ModelTensor& t, bool iterator) {
  int n = t.sizes.size();
  const Geometry g = geometry_of(t);
  int perm[kMaxRank];  // innermost first
  layout_order(g, /*stride_bytes=*/false, perm);
  bool identity = true;
  for (int k = 0; k < n; ++k) identity &= perm[k] == n - 1 - k;
  if (iterator && identity) return contiguous_strides(t.sizes);
  IntList st;
  st.n = static_cast<uint8_t>(n);
  int64_t acc = 1;
  for (int k = 0; k < n; ++k) {
    st.v[perm[k]] = acc;
    if (iterator || t.sizes[perm[k]] > 1) acc *= t.sizes[perm[k]];
  }
  return st;
}

/// PyTorch's computeStride: strides for viewing (sizes, strides) as new_sizes
/// without a copy; false when the view is not expressible.
bool view_strides(const IntList& sizes, const IntList& strides, const IntList& ns, IntList* out) {
  IntList st;
  st.n = ns.n;
  int64_t n = numel(sizes);
  if (n == 0) {
    *out = sizes == ns ? strides : contiguous_strides(ns);
    return true;
  }
  if (sizes.size() == 0) {
    for (int k = 0; k < ns.size(); ++k) st.v[k] = 1;
    *out = st;
    return true;
  }
  int view_d = ns.size() - 1;
  int64_t chunk_base = strides[sizes.size() - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int td = sizes.size() - 1; td >= 0; --td) {
    tensor_numel *= sizes[td];
    if (td == 0 || (sizes[td - 1] != 1 && strides[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
        st.v[view_d] = view_numel * chunk_base;
        view_numel *= ns[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base = strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = st;
  return true;
}

/// Reads the picks of one record in order; past the end every pick is 0.
class Picker {
 public:
  explicit Picker(const StepChoice& c) : c_(c) {}
  uint32_t raw() { return k_ < kStepPicks ? c_.picks[k_++] : 0; }
  /// In [0, n); 0 when n <= 0.
  int64_t below(int64_t n) { return n <= 0 ? 0 : static_cast<int64_t>(raw() % n); }
  /// In [lo, hi].
  int64_t in(int64_t lo, int64_t hi) { return hi < lo ? lo : lo + below(hi - lo + 1); }
  /// True about once in n draws; false at pick 0.
  bool one_in(int n) { return static_cast<int>(raw() % n) == n - 1; }

 private:
  const StepChoice& c_;
  int k_ = 0;
};

/// A small size; 0 sometimes when `edge`; at most `cap` (>= 1).
int64_t small_size(Picker& pk, int64_t cap, bool edge) {
  uint32_t r = pk.raw();
  if (edge && r % 16 == 15) return 0;
  return 1 + static_cast<int64_t>((r / 16) % std::max<int64_t>(cap, 1));
}

IntList shape_from_picks(Picker& pk, int max_rank, int64_t max_numel, bool edge) {
  max_rank = std::max(0, std::min(max_rank, kMaxRank));
  int rank = static_cast<int>(pk.below(max_rank + 1));
  IntList s;
  int64_t budget = std::max<int64_t>(max_numel, 1);
  for (int k = 0; k < rank; ++k) {
    int64_t x = small_size(pk, std::min<int64_t>(budget, 6), edge);
    if (max_numel <= 0) x = 0;
    push(s, x);
    if (x > 0) budget /= x;
  }
  return s;
}

DTypeArg dtype_from_pick(Picker& pk) { return static_cast<DTypeArg>(pk.below(kNumDTypes)); }

/// A shape with `n` elements and 1..max_rank dims, drawn from the picks.
IntList reshape_candidate(Picker& pk, int64_t n, int max_rank) {
  int k = 1 + static_cast<int>(pk.below(std::max(1, std::min(max_rank, kMaxRank))));
  IntList s;
  s.n = static_cast<uint8_t>(k);
  for (int j = 0; j < k; ++j) s.v[j] = 1;
  if (n == 0) {
    for (int j = 0; j < k; ++j) s.v[j] = 1 + pk.below(3);
    s.v[pk.below(k)] = 0;
    return s;
  }
  int64_t rest = n;
  for (int64_t p = 2; p * p <= rest; ++p) {
    while (rest % p == 0) {
      s.v[pk.below(k)] *= p;
      rest /= p;
    }
  }
  if (rest > 1) s.v[pk.below(k)] *= rest;
  return s;
}

enum class ScalarUse { kArith, kFill, kCompute };

/// A scalar the op accepts for a tensor of dtype d.
ScalarLit valid_scalar(DTypeArg d, ScalarUse use, Picker& pk, bool edge) {
  if (use == ScalarUse::kCompute) {
    static const ScalarLit kAny[] = {
        ScalarLit::integer(1),     ScalarLit::floating(0.5), ScalarLit::boolean(true),
        ScalarLit::integer(-2),    ScalarLit::floating(-1.5), ScalarLit::integer(0),
        ScalarLit::floating(std::nan("")), ScalarLit::floating(INFINITY), ScalarLit::integer(kI64Max),
        ScalarLit::floating(-0.0)};
    return kAny[pk.below(edge ? 10 : 6)];
  }
  if (d == DTypeArg::kBool) return ScalarLit::boolean(pk.below(2) == 0);
  if (is_float(d)) {
    static const ScalarLit kFloat[] = {
        ScalarLit::integer(1),       ScalarLit::floating(0.5),   ScalarLit::integer(2),
        ScalarLit::floating(-1.5),   ScalarLit::integer(0),      ScalarLit::boolean(true),
        ScalarLit::floating(std::nan("")), ScalarLit::floating(INFINITY), ScalarLit::floating(-INFINITY),
        ScalarLit::floating(-0.0),   ScalarLit::floating(1e-3),  ScalarLit::integer(int64_t{1} << 53),
        ScalarLit::floating(1e300)};
    int n = edge ? (d == DTypeArg::kF64 ? 13 : 12) : 6;
    return kFloat[pk.below(n)];
  }
  if (d == DTypeArg::kU8) {
    static const ScalarLit kU8[] = {ScalarLit::integer(1), ScalarLit::integer(2), ScalarLit::integer(0),
                                    ScalarLit::boolean(true), ScalarLit::integer(255)};
    return kU8[pk.below(edge ? 5 : 4)];
  }
  static const ScalarLit kInt[] = {ScalarLit::integer(1), ScalarLit::integer(2), ScalarLit::integer(-3),
                                   ScalarLit::integer(0), ScalarLit::boolean(true)};
  if (edge && pk.one_in(4)) {
    bool hi = pk.below(2) == 0;
    if (d == DTypeArg::kI32)
      return ScalarLit::integer(hi ? std::numeric_limits<int32_t>::max()
                                   : std::numeric_limits<int32_t>::min());
    return ScalarLit::integer(hi ? kI64Max : kI64Min);
  }
  return kInt[pk.below(5)];
}

/// A scalar that add_/mul_ reject for dtype d (result type can't be cast).
bool bad_arith_scalar(DTypeArg d, ScalarLit* out) {
  if (is_float(d)) return false;
  *out = d == DTypeArg::kBool ? ScalarLit::integer(1) : ScalarLit::floating(1.5);
  return true;
}

/// A scalar that fill_/full reject for dtype d (value overflows the dtype).
bool bad_fill_scalar(DTypeArg d, Picker& pk, ScalarLit* out) {
  switch (d) {
    case DTypeArg::kU8: *out = ScalarLit::integer(300); return true;
    case DTypeArg::kI32:
      *out = pk.below(2) ? ScalarLit::floating(std::nan("")) : ScalarLit::integer(int64_t{1} << 40);
      return true;
    case DTypeArg::kI64: *out = ScalarLit::floating(INFINITY); return true;
    case DTypeArg::kF32: *out = ScalarLit::floating(1e300); return true;
    case DTypeArg::kF64: case DTypeArg::kBool: return false;
  }
  return false;
}

/// True when `src` broadcasts to `dst` (copy_ rule).
bool broadcasts_to(const IntList& src, const IntList& dst) {
  if (src.size() > dst.size()) return false;
  for (int k = 1; k <= src.size(); ++k) {
    int64_t a = src[src.size() - k], b = dst[dst.size() - k];
    if (a != b && a != 1) return false;
  }
  return true;
}

/// A size that no real tensor of a program could have: only meta and fake
/// tensors (no data) get it, under fake focus.
constexpr int64_t kHugeMetaSize = int64_t{1} << 32;  // 16 GiB of f32; extents stay far from int64 overflow

/// The builder of Note [Choice records].
class Builder {
 public:
  Builder(const GenConfig& cfg, std::vector<StepTrace>* trace, bool chain)
      : cfg_(cfg), trace_(trace), chain_(chain) {
    for (const OpInfo& info : op_table()) {
      if (!cfg.ops.test(static_cast<int>(info.id))) continue;
      if (info.category == OpCategory::kFactory) factories_.push_back(info.id);
      if (chain && info.category != OpCategory::kView) continue;
      ops_.push_back(info.id);
    }
    if (factories_.empty()) factories_.push_back(OpId::kArange);
    set_focuses();
    view_cap_ = std::max<int64_t>(cfg.max_numel, 1) * 16;
    max_rank_ = std::max(1, std::min(cfg.max_rank, kMaxRank));
  }

  /// Note [Swarm programs]: only the ops of `kept` from now on.
  void keep_only(const OpSet& kept) {
    ops_.erase(std::remove_if(ops_.begin(), ops_.end(),
                              [&](OpId op) { return !kept.test(static_cast<size_t>(op)); }),
               ops_.end());
    set_focuses();
  }

  void step(const StepChoice& c) {
    if (chain_) return chain_step(c);
    OpId op = ops_.empty() ? OpId::kArange : draw_op(c.op);
    int per_mille = std::max(0, std::min(cfg_.invalid_per_mille, 1000));
    bool invalid = per_mille > 0 && c.invalid >= 1000 - per_mille;
    emit(op, c, invalid);
  }

  Program take() { return std::move(p_); }
  /// Room for n steps (and about as many variables) up front.
  void reserve(int n) {
    p_.steps.reserve(static_cast<size_t>(n));
    p_.var_names.reserve(static_cast<size_t>(n));
  }

 private:
  struct Obj {
    ModelTensor t;
    int storage;
  };
  /// One storage (S1): exact byte size, resizable flag, whether the last
  /// rehydrate restored it (reshrink's set), a foreign owner (from_blob, C7)
  /// and its COW group (Note [COW model]). Its aliases are the live variables
  /// whose object names it.
  struct Storage {
    int64_t bytes = 0;
    bool resizable = true;
    bool rehydrated = false;
    bool foreign = false;
    int cow_group = -1;  ///< -1: not COW
    /// The meta storage each converter made of this storage (F2 memo; -1: none).
    int meta_conv = -1, fake_conv = -1;
  };
  using Pred = bool (*)(const ModelTensor&);

  // ---- the state -------------------------------------------------------

  const ModelTensor& model(VarId v) const { return objs_[obj_of_[v]].t; }
  ModelTensor& model_mut(VarId v) { return objs_[obj_of_[v]].t; }
  int storage_of(VarId v) const { return objs_[obj_of_[v]].storage; }
  const Storage& storage(VarId v) const { return storages_[storage_of(v)]; }
  /// v's storage is smaller than v's extent: emptied (R2) or undersized (R7).
  bool uncovered(VarId v) const { return !covers(model(v), storage(v).bytes); }
  bool is_emptied(VarId v) const { return emptied(model(v), storage(v).bytes); }

  /// Storage k is alive: some live variable names it.
  bool storage_alive(int k) const {
    for (VarId u : live_)
      if (storage_of(u) == k) return true;
    return false;
  }
  /// The other live storages in storage k's COW group (0 when not COW).
  int cow_others(int k) const {
    int g = storages_[k].cow_group;
    if (g < 0) return 0;
    int n = 0;
    for (int j = 0; j < static_cast<int>(storages_.size()); ++j)
      if (j != k && storages_[j].cow_group == g && storage_alive(j)) ++n;
    return n;
  }
  /// v is the only live variable naming its storage (dropping it kills the storage).
  bool sole_var(VarId v) const {
    for (VarId u : live_)
      if (u != v && storage_of(u) == storage_of(v)) return false;
    return true;
  }

  /// The index-th (modulo) live variable satisfying pred; kNoVar when none.
  VarId pick_var(uint32_t index, Pred pred) const {
    int n = 0;
    for (VarId v : live_)
      if (!pred || pred(model(v))) ++n;
    if (n == 0) return kNoVar;
    int want = static_cast<int>(index % n);
    for (VarId v : live_)
      if (!pred || pred(model(v))) {
        if (want-- == 0) return v;
      }
    return kNoVar;
  }

  Step start(OpId op) {
    Step s;
    s.op = op;
    s.nargs = static_cast<uint8_t>(op_info(op).signature.size());
    if (op_info(op).result == OpResult::kTensor) {
      s.out = p_.new_var("t" + std::to_string(p_.num_vars()));
      obj_of_.push_back(-1);  // unusable until bound
    }
    return s;
  }

  void finish(const Step& s, bool invalid, VarId input, bool expect_error = false) {
    p_.steps.push_back(s);
    if (trace_) {
      StepTrace tr;
      tr.invalid = invalid;
      tr.expect_error = expect_error;
      if (input != kNoVar) {
        tr.has_input = true;
        tr.input = model(input);
        tr.input_storage = storage_of(input);
        tr.input_storage_bytes = storage(input).bytes;
        tr.input_cow_group = storage(input).cow_group;
        tr.input_cow_others = cow_others(storage_of(input));
        tr.input_foreign = storage(input).foreign;
      }
      trace_->push_back(tr);
    }
  }

  int new_storage(int64_t bytes) {
    Storage st;
    st.bytes = bytes;
    storages_.push_back(st);
    return static_cast<int>(storages_.size() - 1);
  }

  void bind(VarId out, const ModelTensor& t, int storage) {
    objs_.push_back({t, storage});
    obj_of_[out] = static_cast<int>(objs_.size() - 1);
    live_.push_back(out);
  }

  void bind_fresh(VarId out, ModelTensor t, bool keep_strides) {
    if (!keep_strides) t.strides = contiguous_strides(t.sizes);
    t.offset = 0;
    bind_exact(out, t);
  }

  /// A fresh storage of exactly t's extent (offset kept: clone_preserve_strides).
  void bind_exact(VarId out, const ModelTensor& t) { bind(out, t, new_storage(extent_bytes(t))); }

  int64_t dim_arg(Picker& pk, int64_t d, int64_t range) {
    return cfg_.edge_values && pk.one_in(4) ? d - range : d;
  }

  // ---- ops -------------------------------------------------------------

  void emit(OpId op, const StepChoice& c, bool invalid) {
    const OpInfo& info = op_info(op);
    if (info.category == OpCategory::kFactory) return factory(op, c, invalid);
    if (info.signature.empty()) return nullary(op);
    if (!unary(op, c, invalid)) factory(factories_[c.op % factories_.size()], c, false);
  }

  void factory(OpId op, const StepChoice& c, bool invalid) {
    Picker pk(c);
    Step s = start(op);
    IntList shape = shape_from_picks(pk, cfg_.max_rank, cfg_.max_numel, cfg_.edge_values);
    DTypeArg d = dtype_from_pick(pk);
    int bad = static_cast<int>(pk.below(3));
    // Device programs: one factory in two names its device (issue 11).
    bool away = false;
    if (cfg_.home_cuda) {
      const uint64_t r = pk.below(4);
      if (r >= 2) s.device = r == 2 ? DeviceArg::kCpu : DeviceArg::kCuda;
      away = r == 2;  // CPU when the home device is CUDA
    }
    auto fresh = [&](IntList strides) {
      ModelTensor t{shape, strides, 0, d};
      t.away = away;
      return t;
    };
    auto negative_size = [&] {
      if (shape.size() == 0) push(shape, 1);
      shape.v[pk.below(shape.size())] = -1 - pk.below(3);
    };
    s.args[0] = Arg::ints(shape);
    switch (op) {
      case OpId::kArange:
        if (d == DTypeArg::kBool && !invalid) d = DTypeArg::kI64;
        if (invalid && bad == 0) d = DTypeArg::kBool;
        else if (invalid) negative_size();
        s.args[1] = Arg::dtype_arg(d);
        break;
      case OpId::kZeros:
      case OpId::kOnes:
        if (invalid) negative_size();
        s.args[1] = Arg::dtype_arg(d);
        break;
      case OpId::kFromBlob:  // zeros over a foreign, non-resizable buffer (C7)
        if (invalid) negative_size();
        s.args[1] = Arg::dtype_arg(d);
        if (!invalid) {
          finish(s, invalid, kNoVar);
          bind_fresh(s.out, fresh({}), false);
          Storage& st = storages_[storage_of(s.out)];
          st.foreign = true;
          st.resizable = false;
          return;
        }
        break;
      case OpId::kFull: {
        ScalarLit v = valid_scalar(d, ScalarUse::kFill, pk, cfg_.edge_values);
        if (invalid && !(bad < 2 && bad_fill_scalar(d, pk, &v))) negative_size();
        s.args[1] = Arg::scalar_arg(v);
        s.args[2] = Arg::dtype_arg(d);
        break;
      }
      case OpId::kRand:
        if (!is_float(d)) d = pk.below(2) ? DTypeArg::kF64 : DTypeArg::kF32;
        if (invalid && bad == 0) d = DTypeArg::kI64;
        else if (invalid) negative_size();
        s.args[1] = Arg::dtype_arg(d);
        s.args[2] = Arg::integer(c.seed);
        break;
      case OpId::kEmptyStrided: {
        IntList strides = contiguous_strides(shape);
        for (int k = 0; k < shape.size(); ++k) {
          int64_t r = pk.below(6);
          if (r == 4) strides.v[k] = 1 + pk.below(4);
          if (r == 5 && cfg_.edge_values) strides.v[k] = 0;
        }
        if (invalid) {
          if (shape.size() == 0) {
            push(shape, 3);
            push(strides, 1);
          }
          int k = static_cast<int>(pk.below(shape.size()));
          if (bad == 0) {  // the byte extent overflows int64
            shape.v[k] = std::max<int64_t>(shape[k], 3);
            strides.v[k] = int64_t{1} << 62;
          } else if (bad == 1) {
            strides.v[k] = -1;
          } else {
            strides.n -= 1;  // one stride too few
          }
        }
        s.args[0] = Arg::ints(shape);
        s.args[1] = Arg::ints(strides);
        s.args[2] = Arg::dtype_arg(d);
        if (!invalid) {
          ModelTensor t = fresh(strides);
          finish(s, invalid, kNoVar);
          bind(s.out, t, new_storage(extent_bytes(t)));
          return;
        }
        break;
      }
      default: break;
    }
    finish(s, invalid, kNoVar);
    if (!invalid) bind_fresh(s.out, fresh({}), false);
  }

  static bool any_var(const ModelTensor&) { return true; }
  static bool rank_ge1(const ModelTensor& t) { return t.sizes.size() >= 1; }
  static bool rank_ge2(const ModelTensor& t) { return t.sizes.size() >= 2; }
  static bool rank_le2(const ModelTensor& t) { return t.sizes.size() <= 2; }
  static bool rank_gt2(const ModelTensor& t) { return t.sizes.size() > 2; }
  static bool can_grow(const ModelTensor& t) { return t.sizes.size() < kMaxRank; }
  static bool has_nonempty_dim(const ModelTensor& t) {
    for (int64_t x : t.sizes)
      if (x > 0) return true;
    return false;
  }
  static bool writable(const ModelTensor& t) { return !has_write_overlap(t); }
  static bool real(const ModelTensor& t) { return !t.meta; }
  static bool integral(const ModelTensor& t) { return is_integral(t.dtype); }
  static bool meta_only(const ModelTensor& t) { return t.meta; }
  static bool plain_meta(const ModelTensor& t) { return t.meta && !t.fake; }
  static bool not_fake(const ModelTensor& t) { return !t.fake; }
  static bool fake_only(const ModelTensor& t) { return t.fake; }
  static bool overlapping(const ModelTensor& t) { return has_write_overlap(t); }
  static bool arith_rejects(const ModelTensor& t) { return has_write_overlap(t) || !is_float(t.dtype); }
  static bool fill_rejects(const ModelTensor& t) {
    return has_write_overlap(t) || (t.dtype != DTypeArg::kF64 && t.dtype != DTypeArg::kBool);
  }

  /// Which variables the op accepts when valid, and when deliberately invalid.
  static void preds(OpId op, Pred* valid, Pred* bad) {
    *valid = any_var;
    *bad = any_var;
    switch (op) {
      case OpId::kSelect: case OpId::kUnbind: *valid = has_nonempty_dim; break;
      case OpId::kSlice: case OpId::kNarrow: case OpId::kSplit: case OpId::kChunk:
      case OpId::kUnflatten:
        *valid = rank_ge1; break;
      case OpId::kT: case OpId::kT_: *valid = rank_le2; *bad = rank_gt2; break;
      case OpId::kDiagonal: *valid = rank_ge2; break;
      case OpId::kUnsqueeze: case OpId::kUnsqueeze_: case OpId::kUnfold: *valid = can_grow; *bad = can_grow; break;
      case OpId::kAdd_: case OpId::kMul_: *valid = writable; *bad = arith_rejects; break;
      case OpId::kFill_: *valid = writable; *bad = fill_rejects; break;
      case OpId::kZero_: *valid = writable; *bad = overlapping; break;
      case OpId::kCopy_: case OpId::kAddOut: case OpId::kMulOut: *valid = writable; break;
      case OpId::kViewDtype: *valid = integral; break;
      case OpId::kMeta: case OpId::kFake: *valid = real; *bad = meta_only; break;
      case OpId::kFakeFromMeta: *valid = plain_meta; *bad = real; break;
      case OpId::kToMeta: *valid = not_fake; *bad = fake_only; break;
      default: break;
    }
  }

  /// Emits an op that reads a tensor variable; false when none fits (Case 1).
  bool unary(OpId op, const StepChoice& c, bool invalid) {
    if (live_.empty()) return false;
    Pred valid_pred, bad_pred;
    preds(op, &valid_pred, &bad_pred);
    VarId v = invalid ? pick_var(c.var, bad_pred) : kNoVar;
    if (v == kNoVar) {
      invalid = false;
      v = rfocus_ || cfocus_ || ffocus_ ? pick_steered(op, c.var, valid_pred)
                                        : pick_var(c.var, valid_pred);
    }
    if (v == kNoVar) return false;
    Picker pk(c);
    ModelTensor in = model(v);  // copy: the state may change below
    Step s = start(op);
    s.args[0] = Arg::variable(v);
    ModelTensor out = in;
    // How the result relates to the input: 0 a view (same storage), 1 the same
    // object, 2 fresh storage keeping strides, 3 fresh contiguous storage,
    // 4 an in-place metadata change of v, 5 nothing to model, 6 fresh storage
    // of exactly out's extent (out's geometry kept), 7 a change of v's storage,
    // 8 a lazy clone: out over a new storage sharing v's data (Note [COW model]).
    int result = 0;
    unchecked_ = false;
    // Ops with no bad argument to give clear `invalid` and emit the valid step.
    bool ok = apply(op, c, pk, v, in, &s, &out, &invalid, &result);
    if (!ok) {  // the op turned out impossible for v: undo the variable
      if (s.out != kNoVar) {
        p_.var_names.pop_back();
        obj_of_.pop_back();
      }
      return false;
    }
    bool fails = !invalid && expect_error(op, v, in, out, result, s);
    finish(s, invalid, v, fails);
    // Note [set_]: a set_ that must grow a non-resizable storage raises
    // after v moved to the source's storage and geometry.
    if (fails && op == OpId::kSet_) objs_[obj_of_[v]] = {out, storage_of(s.args[1].var)};
    if (invalid || fails) return true;  // the runner binds no result of a failed step
    if (is_write(op)) storages_[storage_of(v)].cow_group = -1;  // C3, C4: materialized
    switch (result) {
      case 0: bind(s.out, out, storage_of(v)); break;
      case 1:
        obj_of_[s.out] = obj_of_[v];
        live_.push_back(s.out);
        break;
      case 2: bind_fresh(s.out, out, true); break;
      case 3: bind_fresh(s.out, out, false); break;
      case 4: {
        model_mut(v) = out;
        Storage& st = storages_[storage_of(v)];
        if (op == OpId::kResize_ && extent_bytes(out) > st.bytes) {  // grows: leaves COW (C8)
          st.bytes = extent_bytes(out);
          st.cow_group = -1;
        }
        break;
      }
      case 10: {  // set_: v's object takes the source's storage and geometry
        const int k = storage_of(s.args[1].var);
        Storage& st = storages_[k];
        if (set_grows(in, out, st.bytes)) {
          st.bytes = extent_bytes(out);  // R6; leaves COW (C8)
          st.cow_group = -1;
        }
        objs_[obj_of_[v]] = {out, k};
        break;
      }
      case 11: {  // Note [out=]: a resize grows v's storage to the new extent (R6; C8)
        if (out.sizes == in.sizes) break;
        Storage& st = storages_[storage_of(v)];
        if (numel(out.sizes) > 0 && extent_bytes(out) > st.bytes) {
          st.bytes = extent_bytes(out);
          st.cow_group = -1;
        }
        model_mut(v) = out;
        break;
      }
      case 6: bind_exact(s.out, out); break;
      case 7: {
        Storage& st = storages_[storage_of(v)];
        if (op == OpId::kShrink) st.bytes = 0;  // R1: every alias sees it
        if (op == OpId::kResizeStorage) st.bytes = s.args[1].i;
        if (op == OpId::kShrink || op == OpId::kResizeStorage) st.cow_group = -1;  // C8
        if (op == OpId::kSetNonresizable) st.resizable = false;
        break;
      }
      case 9: {  // F2: the converter's meta storage of v's storage, one per real storage
        const int k = storage_of(v);
        const bool fk = op == OpId::kFake;
        int id = fk ? storages_[k].fake_conv : storages_[k].meta_conv;
        if (id < 0) {
          id = new_storage(storages_[k].bytes);  // may reallocate storages_
          (fk ? storages_[k].fake_conv : storages_[k].meta_conv) = id;
        }
        bind(s.out, out, id);
        break;
      }
      case 8: {  // C1, C2: a new storage object in v's COW group
        int k = storage_of(v);
        if (storages_[k].cow_group < 0) storages_[k].cow_group = next_group_++;
        Storage st = storages_[k];
        st.rehydrated = false;
        storages_.push_back(st);
        bind(s.out, out, static_cast<int>(storages_.size() - 1));
        break;
      }
      default: break;
    }
    return true;
  }

  /// Whether the valid step (op on v, result kind `result`, model `out`) is
  /// expected to raise: S5/R4 bounds, S8 undersized inputs (clone paths of an
  /// emptied input restore instead, R3), non-resizable storages (R1, S10).
  bool expect_error(OpId op, VarId v, const ModelTensor& in, const ModelTensor& out, int result,
                    const Step& s) const {
    if (op == OpId::kSet_) {  // Note [set_]: only a storage that must grow can refuse
      const VarId u = s.args[1].var;
      if (obj_of_[u] == obj_of_[v] || numel(out.sizes) == 0) return false;
      const Storage& su = storage(u);
      if (out.meta) return !su.resizable;  // LibTorch 2.x's meta kernel
      return set_grows(in, out, su.bytes) && !su.resizable;
    }
    if (is_scalar_out(op)) {  // Note [out=], in LibTorch's order
      const VarId u = s.args[1].var;
      const ModelTensor& xm = model(u);
      if (xm.fake != in.fake || xm.meta != in.meta || xm.away != in.away) return true;
      const Storage& so = storage(v);
      const bool resize = !(xm.sizes == in.sizes);
      if (!in.meta && (uncovered(u) || (!resize && !covers(in, so.bytes)))) return true;  // S8
      if (has_write_overlap(in)) return true;
      const DTypeArg r = scalar_result(xm.dtype, s.args[2].scalar);
      if (obj_of_[u] != obj_of_[v] && storage_of(u) == storage_of(v)) {
        // Rules 2 and 4: an overlap LibTorch cannot see is S8 (before and,
        // when out is resized, after the resize), a partial one raises.
        const Geometry go = geometry_of(in), gx = geometry_of(xm);
        const MemOverlapStatus os = overlap_status(go, gx, true, false);
        if (os == MemOverlapStatus::kPartial) return true;
        const bool undetected = os == MemOverlapStatus::kTooHard ||
                                (os == MemOverlapStatus::kFull && !same_layout(go, gx));
        if (undetected && elements_intersect(go, gx)) return true;
        if (resize) {
          const bool cpu = !xm.meta && xm.away == cfg_.home_cuda;
          const Geometry g = resized_out_geometry(gx, impl_dtype(xm.dtype), impl_dtype(r), cpu, go);
          if (elements_intersect(g, gx) && !same_layout(g, gx)) return true;
        }
      }
      if (!casts_to(r, in.dtype)) return true;
      return resize && numel(out.sizes) > 0 && extent_bytes(out) > so.bytes && !so.resizable;
    }
    const Storage& st = storage(v);
    bool cov = covers(in, st.bytes);
    if (op == OpId::kCopy_) {  // device rules first (Note [Meta execution])
      const ModelTensor& src = model(s.args[1].var);
      if (src.fake != in.fake || (src.meta && !in.meta)) return true;
      if (in.meta) return !src.meta && uncovered(s.args[1].var);  // S8 on a real source only
    }
    if (in.meta) {  // no data: no S8; bounds checks of views and storage rules stay
      switch (op) {
        case OpId::kMeta: case OpId::kFake: return true;           // F4
        case OpId::kToMeta: case OpId::kFakeFromMeta: return in.fake;
        case OpId::kClonePreserveStrides: return !cov;             // its as_strided checks
        case OpId::kCuda: case OpId::kCpu: return true;            // layout policy Case 7
        default: break;
      }
      OpCategory cat = op_info(op).category;
      if (cat == OpCategory::kInplace || cat == OpCategory::kCompute) return false;
    } else if (op == OpId::kFakeFromMeta) {
      return true;
    }
    switch (op_info(op).category) {
      case OpCategory::kView:
        if (op == OpId::kView || op == OpId::kAlias || op == OpId::kDetach ||
            op == OpId::kViewDtype || op == OpId::kUnflatten || unchecked_)
          return false;
        if (op == OpId::kReshape || op == OpId::kFlatten) return result == 3 && !cov;
        return !covers(out, st.bytes);
      case OpCategory::kInplace:
        // c10's data_ptr() raises only for unallocated data (an emptied tensor).
        if (op == OpId::kMutableDataPtr) return emptied(in, st.bytes);
        if (op == OpId::kCopy_ && uncovered(s.args[1].var)) return true;
        return !cov;
      case OpCategory::kInplaceView:
        if (result != 4) return false;
        if (op == OpId::kResize_) return !st.resizable && extent_bytes(out) > st.bytes;
        return !unchecked_ && !covers(out, st.bytes);
      case OpCategory::kCompute:
        if (result == 1) return false;
        if (is_clone_path(op) && emptied(in, st.bytes)) return false;
        if (op == OpId::kLazyClone) return st.foreign;  // C7; no bounds check otherwise
        return !cov;
      case OpCategory::kStorage:
        return (op == OpId::kShrink || op == OpId::kResizeStorage) && !st.resizable;
      case OpCategory::kDevice:  // like `to` (meta inputs: Note [Layout policy] Case 7)
        if (result == 1) return false;
        return !emptied(in, st.bytes) && !cov;
      default:
        return false;
    }
  }

  /// rehydrate (R5) and reshrink: steps without arguments.
  void nullary(OpId op) {
    Step s = start(op);
    bool fails = false;
    if (op == OpId::kRehydrate) {
      std::vector<int64_t> need(storages_.size(), -1);
      for (VarId v : live_)
        if (is_emptied(v)) {
          int k = storage_of(v);
          need[k] = std::max(need[k], extent_bytes(model(v)));
        }
      for (size_t k = 0; k < need.size(); ++k) fails |= need[k] >= 0 && !storages_[k].resizable;
      for (size_t k = 0; k < need.size() && !fails; ++k)
        if (need[k] >= 0) {
          storages_[k].bytes = need[k];
          storages_[k].rehydrated = true;
          storages_[k].cow_group = -1;  // C8
        }
    } else if (op == OpId::kReshrink) {
      for (const Storage& st : storages_) fails |= st.rehydrated && !st.resizable;
      for (Storage& st : storages_)
        if (!fails && st.rehydrated) {
          st.bytes = 0;
          st.rehydrated = false;
          st.cow_group = -1;  // C8
        }
    }
    finish(s, false, kNoVar, fails);
  }

  // ---- focus (GenConfig::storage_focus, GenConfig::cow_focus) ----------

  /// What the focus weights read of the current state.
  struct FocusState {
    bool full = false, uncov = false, emp = false, rehydrated = false, fixed = false;  // group R
    bool meta = false;    // some live variable is a meta or fake tensor (group F)
    bool cow = false;     // some live variable's storage is COW
    bool shared = false;  // ... and shares its data with another live storage
  };

  FocusState focus_state() const {
    FocusState f;
    for (VarId v : live_) {
      f.full |= storage(v).bytes > 0 && numel(model(v).sizes) > 0;
      f.uncov |= uncovered(v);
      f.emp |= is_emptied(v);
      f.fixed |= !storage(v).resizable;
      f.meta |= model(v).meta;
      if (storage(v).cow_group >= 0) {
        f.cow = true;
        f.shared |= cow_others(storage_of(v)) > 0;
      }
    }
    for (const Storage& st : storages_) f.rehydrated |= st.rehydrated;
    return f;
  }

  /// Storage-focus weight of op: group R scenarios first.
  static int r_op_weight(OpId op, const FocusState& f) {
    int w = 1;
    switch (op) {
      case OpId::kShrink: w += (f.full ? 10 : 0) + (f.fixed ? 2 : 0); break;
      case OpId::kSet_:
        w += f.emp ? 3 : 0;
        break;  // restores (or keeps) an emptied storage
      case OpId::kSetNonresizable: w += f.full ? 1 : 0; break;
      case OpId::kAddOut: case OpId::kMulOut:
        w += f.emp ? 3 : 0;  // resizes (restores) an emptied out
        break;
      case OpId::kResizeStorage: w += 3 + (f.fixed ? 1 : 0); break;
      case OpId::kSelect: case OpId::kNarrow: case OpId::kSlice: w += 3; break;  // offset views
      case OpId::kRehydrate: w += f.emp ? 8 : 0; break;
      case OpId::kReshrink: w += f.rehydrated ? 6 : 0; break;
      default: break;
    }
    if (f.uncov) {
      if (is_clone_path(op)) w += 8;
      else if (is_checked_view(op)) w += 3;
      else if (op == OpId::kAdd || op == OpId::kMul || op == OpId::kSum) w += 1;
    }
    return w;
  }

  /// COW-focus weight of op: lazy clones, then writes, drops and storage
  /// resizes of COW storages (C4, C8), views and reads of COW tensors.
  static int c_op_weight(OpId op, const FocusState& f) {
    switch (op) {
      case OpId::kLazyClone: return 14;
      case OpId::kFromBlob: return 4;
      case OpId::kAdd_: case OpId::kMul_: case OpId::kFill_: case OpId::kZero_:
      case OpId::kCopy_: case OpId::kMutableDataPtr: case OpId::kAddOut: case OpId::kMulOut:
        return f.cow ? 5 : 1;
      case OpId::kDrop: return f.shared ? 10 : 1;
      case OpId::kResizeStorage: return f.cow ? 6 : 1;
      case OpId::kSet_:
        return f.cow ? 3 : 1;  // a COW storage gains or loses a tensor
      case OpId::kShrink: case OpId::kResize_: return f.cow ? 2 : 1;
      case OpId::kAdd: case OpId::kMul: case OpId::kClone: case OpId::kContiguous:
      case OpId::kSum:
        return f.cow ? 2 : 1;
      case OpId::kSelect: case OpId::kNarrow: case OpId::kSlice: case OpId::kTranspose:
      case OpId::kView: case OpId::kExpand:
        return f.cow ? 3 : 1;
      default: return 1;
    }
  }

  /// Fake-focus weight of op: conversions (again and again: F2's memo), then
  /// ops on meta and fake tensors (F6, F9), drops and sweeps (F3).
  static int f_op_weight(OpId op, const FocusState& f) {
    switch (op) {
      case OpId::kFake: return 10;
      case OpId::kMeta: return 6;
      case OpId::kToMeta: return 3;
      case OpId::kFakeFromMeta: return f.meta ? 4 : 1;
      case OpId::kSweep: return 6;
      case OpId::kMemoStats: return 1;
      case OpId::kDrop: return 6;
      case OpId::kShrink: return 3;  // F2: emptied storages convert to 0 bytes
      case OpId::kCopy_: case OpId::kFill_: case OpId::kAdd_:
      case OpId::kAddOut: case OpId::kMulOut:
        return f.meta ? 4 : 1;  // F9
      default: return f.meta ? 2 : 1;
    }
  }

  /// Draw weight of op: 1 without focus; each enabled focus adds its part.
  int op_weight(OpId op, const FocusState& f) const {
    int w = 1;
    if (rfocus_) w += r_op_weight(op, f) - 1;
    if (cfocus_) w += c_op_weight(op, f) - 1;
    if (ffocus_) w += f_op_weight(op, f) - 1;
    // Device programs (device_config): a move in about one step of eight.
    if (cfg_.home_cuda && op_info(op).category == OpCategory::kDevice) w += 5;
    return w;
  }

  /// A focus is on when the config asks for it and the ops it weights are
  /// enabled.
  void set_focuses() {
    bool storage_ops = false;
    for (OpId op : ops_) storage_ops |= op_info(op).category == OpCategory::kStorage;
    rfocus_ = cfg_.storage_focus && storage_ops && !chain_;
    ffocus_ = cfg_.fake_focus && !chain_ &&
              std::find(ops_.begin(), ops_.end(), OpId::kFake) != ops_.end();
    cfocus_ = cfg_.cow_focus && !chain_ &&
              std::find(ops_.begin(), ops_.end(), OpId::kLazyClone) != ops_.end();
  }

  /// The op of a record: uniform over the enabled ops, or weighted by state
  /// under a focus. Index 0 is always the first enabled op.
  OpId draw_op(uint32_t index) const {
    if (!rfocus_ && !cfocus_ && !ffocus_ && !cfg_.home_cuda) return ops_[index % ops_.size()];
    FocusState f = focus_state();
    int64_t total = 0;
    for (OpId op : ops_) total += op_weight(op, f);
    int64_t want = static_cast<int64_t>(index % total);
    for (OpId op : ops_) {
      want -= op_weight(op, f);
      if (want < 0) return op;
    }
    return ops_.back();
  }

  /// Storage-focus weight of v as op's operand.
  int r_var_weight(OpId op, VarId v) const {
    const Storage& st = storage(v);
    switch (op) {
      case OpId::kShrink:
      case OpId::kResizeStorage:
        if (!st.resizable) return 3;  // raises (R1)
        if (st.bytes == 0) return 1;  // already emptied
        return model(v).offset > 0 ? 6 : 3;
      case OpId::kSetNonresizable: return st.resizable ? 2 : 1;
      default: break;
    }
    if (!uncovered(v)) return 1;
    if (is_clone_path(op) || is_checked_view(op)) return 8;
    OpCategory cat = op_info(op).category;
    if (cat == OpCategory::kView || cat == OpCategory::kCompute || cat == OpCategory::kInplace) return 4;
    return 1;
  }

  /// COW-focus weight of v as op's operand: COW storages first.
  int c_var_weight(OpId op, VarId v) const {
    const Storage& st = storage(v);
    bool cow = st.cow_group >= 0;
    int others = cow_others(storage_of(v));
    if (op == OpId::kLazyClone) {  // of bases, views, lazy clones and from_blob tensors
      if (st.foreign) return 4;
      if (cow) return 5;
      return model(v).offset > 0 || !is_contiguous(model(v)) ? 4 : 2;
    }
    if (op == OpId::kDrop) {  // a sharer whose storage dies with it: the others may become last
      if (cow && others > 0 && sole_var(v)) return 12;
      return cow ? 3 : 1;
    }
    if (is_write(op)) return cow ? (others > 0 ? 8 : 10) : 1;
    if (op == OpId::kResizeStorage || op == OpId::kShrink) return cow && st.resizable ? 10 : 1;
    return cow ? 4 : 1;  // views and reads of COW tensors
  }

  /// Fake-focus weight of v as op's operand: views and emptied tensors to
  /// convert, meta and fake tensors for every other op.
  int f_var_weight(OpId op, VarId v) const {
    const ModelTensor& t = model(v);
    switch (op) {
      case OpId::kMeta: case OpId::kFake:
        return 1 + (t.offset > 0 || !is_contiguous(t) ? 3 : 0) + (storage(v).bytes == 0 ? 3 : 0);
      case OpId::kDrop: return t.meta ? 1 : 4;  // real tensors die, their storages may live on
      default: return t.meta ? 4 : 1;
    }
  }

  /// Draw weight of v as op's operand: 1 without focus; each focus adds its part.
  int var_weight(OpId op, VarId v) const {
    int w = 1;
    if (rfocus_) w += r_var_weight(op, v) - 1;
    if (cfocus_) w += c_var_weight(op, v) - 1;
    if (ffocus_) w += f_var_weight(op, v) - 1;
    return w;
  }

  /// pick_var with var_weight: the index-th (modulo) unit of weight.
  VarId pick_steered(OpId op, uint32_t index, Pred pred) const {
    int64_t total = 0;
    for (VarId v : live_)
      if (!pred || pred(model(v))) total += var_weight(op, v);
    if (total == 0) return kNoVar;
    int64_t want = static_cast<int64_t>(index % total);
    for (VarId v : live_)
      if (!pred || pred(model(v))) {
        want -= var_weight(op, v);
        if (want < 0) return v;
      }
    return kNoVar;
  }

  /// as_strided geometry inside a storage of `bytes`, built constructively:
  /// sizes, then strides that fit, then an offset that fits.
  void strided_geometry(Picker& pk, int64_t bytes, DTypeArg d, bool invalid, IntList* sizes,
                        IntList* strides, int64_t* offset) {
    int64_t room = bytes / itemsize(d) - 1;  // the largest element index allowed
    int rank = static_cast<int>(pk.below(max_rank_ + 1));
    if (room < 0 && rank == 0) rank = 1;
    IntList sz, st;
    int64_t n = 1;
    for (int k = 0; k < rank; ++k) {
      int64_t x = small_size(pk, std::max<int64_t>(1, std::min<int64_t>(4, view_cap_ / n)), cfg_.edge_values);
      int64_t y = 1 + pk.below(8);
      if (pk.one_in(4)) y = 0;  // stride 0: overlapping elements
      if (x > 1) y = std::min(y, std::max<int64_t>(room, 0) / (x - 1));
      push(sz, x);
      push(st, y);
      n *= std::max<int64_t>(x, 1);
      if (x > 1) room -= (x - 1) * y;
    }
    if (room < 0) sz.v[pk.below(rank)] = 0;  // an empty storage holds only empty tensors
    int64_t off = pk.below(std::max<int64_t>(room, 0) + 1);
    if (invalid) {
      int bad = static_cast<int>(pk.below(3));
      if (bad == 0 || sz.size() == 0) {  // the byte extent overflows int64
        if (sz.size() == 0) {
          push(sz, 3);
          push(st, 1);
        }
        sz.v[0] = std::max<int64_t>(sz[0], 3);
        st.v[0] = int64_t{1} << 62;
      } else if (bad == 1) {  // one element past the storage end
        for (int k = 0; k < sz.size(); ++k) sz.v[k] = std::max<int64_t>(sz[k], 1);
        off = bytes / itemsize(d);
      } else {
        st.v[pk.below(st.size())] = -1;
      }
    }
    *sizes = sz;
    *strides = st;
    *offset = off;
  }

  /// The op's rule; fills the step's arguments and the result model.
  /// The copy of `to` another dtype or device: an emptied input restores
  /// zeros that keep its strides (R3), else clone's strides in fresh storage.
  void to_copy(const ModelTensor& in, VarId v, ModelTensor* out, int* result) const {
    if (emptied(in, storage(v).bytes)) {
      out->offset = 0;
      *result = 6;
    } else {
      if (!is_dense(in)) out->strides = dense_strides_like(in, false);
      *result = 2;
    }
  }

  bool apply(OpId op, const StepChoice& c, Picker& pk, VarId v, const ModelTensor& in, Step* s,
             ModelTensor* out, bool* invalid, int* result) {
    const int r = in.sizes.size();
    const int R = std::max(r, 1);  // dims accepted by ops that wrap a 0-dim tensor as 1-dim
    const bool edge = cfg_.edge_values;
    int bad = static_cast<int>(pk.below(3));
    auto wrap = [&](int64_t d, int64_t range) { return dim_arg(pk, d, range); };
    switch (op) {
      case OpId::kView:
      case OpId::kReshape: {
        int64_t n = numel(in.sizes);
        IntList ns, st;
        bool ok = false;
        for (int t = 0; t < 3 && !ok; ++t) {
          ns = reshape_candidate(pk, n, max_rank_);
          ok = view_strides(in.sizes, in.strides, ns, &st);
        }
        if (*invalid) {
          if (bad == 0 && !ok && op == OpId::kView) {
            // ns is a shape the view cannot express
          } else if (bad == 1) {
            ns = IntList{n + 1};
          } else {
            if (ns.size() == 0) push(ns, 1);
            ns.v[0] = -2;
          }
        } else {
          if (!ok && op == OpId::kView) {
            ns = in.sizes;
            ok = view_strides(in.sizes, in.strides, ns, &st);
          }
          out->sizes = ns;
          out->strides = st;
          if (!ok) *result = 3;
          if (edge && n > 0 && ns.size() > 0 && pk.one_in(3)) ns.v[pk.below(ns.size())] = -1;
        }
        s->args[1] = Arg::ints(ns);
        return true;
      }
      case OpId::kAsStrided:
      case OpId::kAsStrided_: {
        IntList sz, st;
        int64_t off;
        int64_t bytes = storage(v).bytes;
        // Under focus an emptied or undersized input gets geometry that fit
        // before its storage shrank: out of bounds now (R4, R7).
        if (rfocus_) bytes = std::max(bytes, extent_bytes(in));
        strided_geometry(pk, bytes, in.dtype, *invalid, &sz, &st, &off);
        s->args[1] = Arg::ints(sz);
        s->args[2] = Arg::ints(st);
        s->args[3] = Arg::integer(off);
        *out = ModelTensor{sz, st, off, in.dtype, in.meta, in.fake, in.away};
        if (op == OpId::kAsStrided_) *result = 4;
        return true;
      }
      case OpId::kSelect:
      case OpId::kUnbind: {
        int nonempty[kMaxRank];
        int m = 0;
        for (int k = 0; k < r; ++k)
          if (in.sizes[k] > 0) nonempty[m++] = k;
        int d = m ? nonempty[pk.below(m)] : 0;
        int64_t size = r ? in.sizes[d] : 0;
        int64_t idx = pk.below(size);
        int64_t dim = wrap(d, r);
        int64_t idx_arg = op == OpId::kSelect && edge && pk.one_in(4) ? idx - size : idx;
        if (*invalid) {
          if (bad == 0) dim = r;
          else idx_arg = bad == 1 ? size : -size - 1;
        } else {
          out->offset += idx * in.strides[d];
          erase_at(out->sizes, d);
          erase_at(out->strides, d);
        }
        s->args[1] = Arg::integer(dim);
        s->args[2] = Arg::integer(idx_arg);
        return true;
      }
      case OpId::kSlice:
      case OpId::kNarrow: {
        int d = static_cast<int>(pk.below(r));
        int64_t size = in.sizes[d];
        int64_t start = pk.below(size + 1);
        int64_t len = pk.below(size - start + 1);
        int64_t step = op == OpId::kSlice ? 1 + pk.below(3) : 1;
        int64_t dim = wrap(d, r);
        int64_t start_arg = edge && start < size && pk.one_in(4) ? start - size : start;
        int64_t end_arg = start + len;
        if (op == OpId::kSlice && edge && pk.one_in(4)) end_arg = kI64Max;
        if (*invalid) {
          if (bad == 0) dim = -r - 1;
          else if (op == OpId::kSlice) step = bad == 1 ? 0 : -1;
          else len = size - start + 1;
        } else {
          int64_t end = std::min(end_arg, size);
          int64_t n = op == OpId::kSlice ? (end - start + step - 1) / step : len;
          out->offset += start * in.strides[d];
          out->sizes.v[d] = std::max<int64_t>(n, 0);
          out->strides.v[d] *= step;
        }
        s->args[1] = Arg::integer(dim);
        s->args[2] = Arg::integer(start_arg);
        if (op == OpId::kSlice) {
          s->args[3] = Arg::integer(end_arg);
          s->args[4] = Arg::integer(step);
        } else {
          s->args[3] = Arg::integer(len);
        }
        return true;
      }
      case OpId::kTranspose:
      case OpId::kTranspose_: {
        int d0 = static_cast<int>(pk.below(R)), d1 = static_cast<int>(pk.below(R));
        int64_t a0 = wrap(d0, R), a1 = wrap(d1, R);
        if (*invalid) {
          if (bad == 0) a0 = R;
          else a1 = -R - 1;
        } else if (r > 0) {
          std::swap(out->sizes.v[d0], out->sizes.v[d1]);
          std::swap(out->strides.v[d0], out->strides.v[d1]);
        }
        unchecked_ = d0 == d1;  // an alias, no bounds check
        s->args[1] = Arg::integer(a0);
        s->args[2] = Arg::integer(a1);
        if (op == OpId::kTranspose_) *result = 4;
        return true;
      }
      case OpId::kT:
      case OpId::kT_:
        unchecked_ = r < 2;  // transpose(0, 0): an alias, no bounds check
        if (!*invalid && r == 2) {
          std::swap(out->sizes.v[0], out->sizes.v[1]);
          std::swap(out->strides.v[0], out->strides.v[1]);
        }
        if (op == OpId::kT_) *result = 4;
        return true;
      case OpId::kPermute: {
        IntList perm;
        for (int k = 0; k < r; ++k) push(perm, k);
        for (int k = r - 1; k > 0; --k) std::swap(perm.v[k], perm.v[pk.below(k + 1)]);
        for (int k = 0; k < r; ++k) {
          out->sizes.v[k] = in.sizes[perm[k]];
          out->strides.v[k] = in.strides[perm[k]];
        }
        if (edge && r > 0 && pk.one_in(3)) perm.v[0] -= r;
        if (*invalid) {
          if (r >= 2 && bad != 0) perm.v[1] = perm[0];
          else if (r >= 1) perm.n -= 1;
          else push(perm, 0);
        }
        s->args[1] = Arg::ints(perm);
        return true;
      }
      case OpId::kMovedim: {
        int src = static_cast<int>(pk.below(R)), dst = static_cast<int>(pk.below(R));
        int64_t a0 = wrap(src, R), a1 = wrap(dst, R);
        unchecked_ = r == 0;  // an alias, no bounds check
        if (*invalid) {
          if (bad == 0) a0 = R;
          else a1 = -R - 1;
        } else if (r > 0) {
          int64_t sz = in.sizes[src], st = in.strides[src];
          erase_at(out->sizes, src);
          erase_at(out->strides, src);
          insert_at(out->sizes, dst, sz);
          insert_at(out->strides, dst, st);
        }
        s->args[1] = Arg::integer(a0);
        s->args[2] = Arg::integer(a1);
        return true;
      }
      case OpId::kExpand: {
        int lead = static_cast<int>(pk.below(std::min(3, kMaxRank - r + 1)));
        IntList ns, st;
        // Metadata-only tensors may grow huge (issue 5: meta kernels must
        // check what eager checks without reading data).
        // (Every size nonzero and small in total: extents and dense strides
        // of the result stay far from int64 overflow.)
        const bool huge = ffocus_ && in.meta && numel(in.sizes) > 0 &&
                          numel(in.sizes) < (int64_t{1} << 20) && pk.one_in(2);
        for (int k = 0; k < lead; ++k) {
          push(ns, huge && k == 0 ? kHugeMetaSize : small_size(pk, 3, edge));
          push(st, 0);
        }
        for (int k = 0; k < r; ++k) {
          int64_t x = in.sizes[k], y = in.strides[k];
          if (x == 1) {
            x = small_size(pk, 3, edge);
            if (x != 1) y = 0;
          }
          push(ns, x);
          push(st, y);
        }
        if (!in.meta && numel(ns) > view_cap_) {  // keep expanded real tensors small
          for (int k = 0; k < lead; ++k) ns.v[k] = 1;
          for (int k = 0; k < r; ++k) {
            ns.v[lead + k] = in.sizes[k];
            st.v[lead + k] = in.strides[k];
          }
        }
        out->sizes = ns;
        out->strides = st;
        IntList arg = ns;
        for (int k = lead; k < ns.size(); ++k)
          if (edge && ns[k] == in.sizes[k - lead] && pk.one_in(4)) arg.v[k] = -1;
        if (*invalid) {
          int big = -1;
          for (int k = 0; k < r; ++k)
            if (in.sizes[k] != 1) big = lead + k;
          if (big >= 0 && bad != 0) arg.v[big] = in.sizes[big - lead] + 1;
          else if (lead > 0) arg.v[0] = -1;
          else if (r > 0) arg.n -= 1;
          else push(arg, -2);
        }
        s->args[1] = Arg::ints(arg);
        return true;
      }
      case OpId::kUnsqueeze:
      case OpId::kUnsqueeze_: {
        int d = static_cast<int>(pk.below(r + 1));
        int64_t a = wrap(d, r + 1);
        if (*invalid) {
          a = bad == 0 ? r + 1 : -r - 2;
        } else {
          insert_at(out->sizes, d, 1);
          insert_at(out->strides, d, d < r ? in.sizes[d] * in.strides[d] : 1);
        }
        s->args[1] = Arg::integer(a);
        if (op == OpId::kUnsqueeze_) *result = 4;
        return true;
      }
      case OpId::kSqueeze:
      case OpId::kSqueeze_: {
        // Prefer a size-1 dim so that squeeze does something.
        int d = static_cast<int>(pk.below(R));
        for (int k = 0; k < r; ++k)
          if (in.sizes[(d + k) % r] == 1 && !pk.one_in(3)) {
            d = (d + k) % r;
            break;
          }
        int64_t a = wrap(d, R);
        if (*invalid) {
          a = bad == 0 ? R : -R - 1;
        } else if (r > 0 && in.sizes[d] == 1) {
          erase_at(out->sizes, d);
          erase_at(out->strides, d);
        }
        s->args[1] = Arg::integer(a);
        if (op == OpId::kSqueeze_) *result = 4;
        return true;
      }
      case OpId::kFlatten: {
        int a = static_cast<int>(pk.below(R)), b = static_cast<int>(pk.below(R));
        if (a > b) std::swap(a, b);
        int64_t a0 = wrap(a, R), a1 = wrap(b, R);
        if (*invalid) {
          if (bad != 0 && R >= 2 && a != b) std::swap(a0, a1);
          else a1 = R;
        } else if (r == 0) {
          out->sizes = IntList{1};
          out->strides = IntList{1};
        } else if (a == b) {
          *result = 1;
        } else {
          IntList ns;
          for (int k = 0; k < a; ++k) push(ns, in.sizes[k]);
          int64_t m = 1;
          for (int k = a; k <= b; ++k) m *= in.sizes[k];
          push(ns, m);
          for (int k = b + 1; k < r; ++k) push(ns, in.sizes[k]);
          IntList st;
          if (!view_strides(in.sizes, in.strides, ns, &st)) *result = 3;
          out->sizes = ns;
          out->strides = st;
        }
        s->args[1] = Arg::integer(a0);
        s->args[2] = Arg::integer(a1);
        return true;
      }
      case OpId::kUnflatten: {
        int d = static_cast<int>(pk.below(r));
        int64_t size = in.sizes[d];
        int parts = 1 + static_cast<int>(pk.below(std::min(3, kMaxRank - r + 1)));
        IntList ps = reshape_candidate(pk, size, parts);
        if (ps.size() + r - 1 > kMaxRank) ps = IntList{size};
        IntList arg = ps;
        if (edge && size > 0 && pk.one_in(3)) arg.v[pk.below(arg.size())] = -1;
        if (*invalid) {
          arg = bad == 0 ? IntList{} : IntList{size + 1};
        } else {
          IntList ns, st;
          for (int k = 0; k < d; ++k) {
            push(ns, in.sizes[k]);
            push(st, in.strides[k]);
          }
          int64_t acc = in.strides[d];
          IntList pst;
          pst.n = ps.n;
          for (int k = ps.size() - 1; k >= 0; --k) {
            pst.v[k] = acc;
            acc *= ps[k];
          }
          for (int k = 0; k < ps.size(); ++k) {
            push(ns, ps[k]);
            push(st, pst[k]);
          }
          for (int k = d + 1; k < r; ++k) {
            push(ns, in.sizes[k]);
            push(st, in.strides[k]);
          }
          out->sizes = ns;
          out->strides = st;
        }
        s->args[1] = Arg::integer(wrap(d, r));
        s->args[2] = Arg::ints(arg);
        return true;
      }
      case OpId::kDiagonal: {
        int d1 = static_cast<int>(pk.below(r));
        int d2 = static_cast<int>(pk.below(r - 1));
        if (d2 >= d1) ++d2;
        int64_t s1 = in.sizes[d1], s2 = in.sizes[d2];
        int64_t off = pk.in(-s1, s2);
        if (edge && pk.one_in(8)) off = pk.below(2) ? kI64Max / 2 : -(kI64Max / 2);
        int64_t a1 = wrap(d1, r), a2 = wrap(d2, r);
        if (*invalid) {
          if (bad == 0) a2 = a1;
          else a1 = r;
        } else {
          int64_t len = off >= 0 ? std::min(s1, s2 - std::min(off, s2))
                                 : std::min(s1 - std::min(-off, s1), s2);
          len = std::max<int64_t>(len, 0);
          if (len > 0) out->offset += off >= 0 ? off * in.strides[d2] : -off * in.strides[d1];
          int64_t dst = in.strides[d1] + in.strides[d2];
          int hi = std::max(d1, d2), lo = std::min(d1, d2);
          erase_at(out->sizes, hi);
          erase_at(out->strides, hi);
          erase_at(out->sizes, lo);
          erase_at(out->strides, lo);
          push(out->sizes, len);
          push(out->strides, dst);
        }
        s->args[1] = Arg::integer(off);
        s->args[2] = Arg::integer(a1);
        s->args[3] = Arg::integer(a2);
        return true;
      }
      case OpId::kUnfold: {
        int d = static_cast<int>(pk.below(R));
        int64_t size = r ? in.sizes[d] : 1;
        int64_t win = size == 0 ? 0 : 1 + pk.below(size);
        int64_t step = 1 + pk.below(3);
        int64_t windows = (size - win) / step + 1;
        if (numel(in.sizes) / std::max<int64_t>(size, 1) * windows * win > view_cap_) {
          win = size;
          windows = 1;
        }
        int64_t a = wrap(d, R);
        if (*invalid) {
          if (bad == 0) win = size + 1;
          else step = bad == 1 ? 0 : -1;
        } else if (r == 0) {
          out->sizes = IntList{win};
          out->strides = IntList{1};
        } else {
          int64_t st = in.strides[d];
          out->sizes.v[d] = windows;
          out->strides.v[d] = st * step;
          push(out->sizes, win);
          push(out->strides, st);
        }
        s->args[1] = Arg::integer(a);
        s->args[2] = Arg::integer(win);
        s->args[3] = Arg::integer(step);
        return true;
      }
      case OpId::kSplit:
      case OpId::kChunk: {
        int d = static_cast<int>(pk.below(r));
        int64_t size = in.sizes[d];
        int64_t split, count, arg;
        if (op == OpId::kSplit) {
          split = 1 + pk.below(std::max<int64_t>(size, 1));
          count = size == 0 ? 1 : (size + split - 1) / split;
          arg = split;
        } else {
          int64_t chunks = 1 + pk.below(std::max<int64_t>(size, 1) + 1);
          split = (size + chunks - 1) / chunks;
          count = size == 0 ? chunks : (size + split - 1) / split;
          arg = chunks;
        }
        int64_t idx = pk.below(count);
        if (*invalid) {
          if (bad == 0) idx = count;
          else if (op == OpId::kChunk) arg = bad == 1 ? 0 : -1;
          else arg = size > 0 && bad == 1 ? 0 : -1;
        } else {
          out->sizes.v[d] = std::min(split, size - idx * split);
          if (size == 0) out->sizes.v[d] = 0;
          out->offset += idx * split * in.strides[d];
        }
        s->args[1] = Arg::integer(arg);
        s->args[2] = Arg::integer(wrap(d, r));
        s->args[3] = Arg::integer(idx);
        return true;
      }
      case OpId::kAlias:
      case OpId::kDetach:
        *invalid = false;
        return true;
      case OpId::kViewDtype: {
        // Note [view_dtype] (impl/ops.cpp); the language's dtypes for it are
        // i32, i64 and u8 (Note [Layout policy] Case 8).
        static constexpr DTypeArg kInts[] = {DTypeArg::kI32, DTypeArg::kI64, DTypeArg::kU8};
        const int first = static_cast<int>(pk.below(3));
        DTypeArg to = kInts[first];
        if (*invalid && is_integral(in.dtype)) {
          // A target whose checks fail (0-dim, last stride, divisibility),
          // else one outside the language.
          bool found = false;
          for (int k = 0; k < 3 && !found; ++k)
            if (!view_dtype_model(in, kInts[(first + k) % 3], nullptr)) {
              to = kInts[(first + k) % 3];
              found = true;
            }
          if (!found) to = bad == 0 ? DTypeArg::kF32 : bad == 1 ? DTypeArg::kBool : DTypeArg::kF64;
        } else if (!*invalid) {
          // The first that fits from the drawn one on (in's own dtype always does).
          for (int k = 0; k < 3; ++k) {
            to = kInts[(first + k) % 3];
            if (view_dtype_model(in, to, out)) break;
          }
        }
        s->args[1] = Arg::dtype_arg(to);
        return true;
      }
      case OpId::kAdd_:
      case OpId::kMul_:
      case OpId::kFill_: {
        ScalarUse use = op == OpId::kFill_ ? ScalarUse::kFill : ScalarUse::kArith;
        ScalarLit x = valid_scalar(in.dtype, use, pk, edge);
        if (*invalid && !has_write_overlap(in)) {
          if (op == OpId::kFill_) bad_fill_scalar(in.dtype, pk, &x);
          else bad_arith_scalar(in.dtype, &x);
        }
        s->args[1] = Arg::scalar_arg(x);
        *result = 5;
        return true;
      }
      case OpId::kZero_:
        *result = 5;
        return true;
      case OpId::kCopy_: {
        VarId src = kNoVar;
        if (*invalid && !has_write_overlap(in)) {
          // Case 2) a source that does not broadcast to the destination.
          int n = 0;
          for (VarId u : live_)
            if (!broadcasts_to(model(u).sizes, in.sizes)) ++n;
          if (n > 0) {
            int want = static_cast<int>(c.var2 % n);
            for (VarId u : live_)
              if (!broadcasts_to(model(u).sizes, in.sizes) && want-- == 0) src = u;
          } else {
            *invalid = false;
          }
        }
        if (src == kNoVar) {
          int n = 0;
          auto fits = [&](VarId u) {  // Note [Meta execution]: devices that combine
            const ModelTensor& m = model(u);
            return u == v || (broadcasts_to(m.sizes, in.sizes) && storage_of(u) != storage_of(v) &&
                              m.fake == in.fake && (in.meta || !m.meta));
          };
          for (VarId u : live_)
            if (fits(u)) ++n;
          int want = static_cast<int>(c.var2 % n);
          for (VarId u : live_)
            if (fits(u) && want-- == 0) src = u;
        }
        s->args[1] = Arg::variable(src);
        *result = 5;
        return true;
      }
      case OpId::kSet_: {
        // Note [set_] (impl/ops.cpp): a source of v's dtype on v's device
        // (v itself too: only the version changes); invalid, another dtype,
        // or (half the time, when one lives) v's dtype on another device or
        // of the other kind (real, meta, fake): set_'s FakeTensorMode and
        // device checks.
        auto pick = [&](auto&& ok) {
          int n = 0;
          for (VarId u : live_)
            if (ok(model(u))) ++n;
          if (n == 0) return kNoVar;
          int want = static_cast<int>((c.var2 / 2) % n);
          for (VarId u : live_)
            if (ok(model(u)) && want-- == 0) return u;
          return kNoVar;
        };
        auto same_kind = [&](const ModelTensor& m) {
          return m.meta == in.meta && m.fake == in.fake && m.away == in.away;
        };
        VarId src = kNoVar;
        if (*invalid && c.var2 % 2 == 1)
          src = pick([&](const ModelTensor& m) { return m.dtype == in.dtype && !same_kind(m); });
        if (*invalid && src == kNoVar) {
          src = pick([&](const ModelTensor& m) { return m.dtype != in.dtype; });
          if (src == kNoVar) *invalid = false;
        }
        if (src == kNoVar)
          src = pick([&](const ModelTensor& m) { return m.dtype == in.dtype && same_kind(m); });
        s->args[1] = Arg::variable(src);
        if (!*invalid) *out = model(src);
        *result = 10;
        return true;
      }
      case OpId::kAddOut:
      case OpId::kMulOut: {
        // Note [out=] (impl/ops.cpp): v is out; the input v itself or a
        // variable of v's kind (real, meta or fake, device) over another
        // storage; in a quarter of the steps, when there is one, another
        // tensor over v's own storage (a view or an alias: LibTorch's
        // overlap checks, rules 2 and 4, which expect_error predicts);
        // invalid, a float input into an integral or bool out.
        auto fits = [&](VarId u, int how) {
          const ModelTensor& m = model(u);
          if (how == 1) return is_float(m.dtype) && !is_float(in.dtype);
          const bool kind = m.meta == in.meta && m.fake == in.fake && m.away == in.away;
          if (how == 2) return kind && obj_of_[u] != obj_of_[v] && storage_of(u) == storage_of(v);
          return u == v || (storage_of(u) != storage_of(v) && kind);
        };
        auto pick = [&](int how, uint16_t at) {
          int n = 0;
          for (VarId u : live_) n += fits(u, how);
          if (n == 0) return kNoVar;
          int want = static_cast<int>(at % n);
          for (VarId u : live_)
            if (fits(u, how) && want-- == 0) return u;
          return kNoVar;
        };
        VarId x = *invalid ? pick(1, c.var2) : kNoVar;
        if (x == kNoVar) {
          *invalid = false;
          if (c.var2 % 4 == 0) x = pick(2, static_cast<uint16_t>(c.var2 / 4));
          if (x == kNoVar) x = pick(0, c.var2);
        }
        const ModelTensor& xm = model(x);
        ScalarLit sc = xm.dtype == in.dtype ? valid_scalar(in.dtype, ScalarUse::kArith, pk, edge)
                                            : valid_scalar(xm.dtype, ScalarUse::kCompute, pk, edge);
        s->args[1] = Arg::variable(x);
        s->args[2] = Arg::scalar_arg(sc);
        if (!(xm.sizes == in.sizes)) {  // resized: x's sizes, dense strides, v's offset
          out->sizes = xm.sizes;
          out->strides = dense_strides_like(xm, true);
        }
        *result = 11;
        return true;
      }
      case OpId::kResize_: {
        IntList ns = shape_from_picks(pk, cfg_.max_rank, cfg_.max_numel, edge);
        if (ffocus_ && in.meta && ns.size() > 0 && pk.one_in(2)) ns.v[0] = kHugeMetaSize;
        if (*invalid) {
          if (ns.size() == 0) push(ns, 1);
          ns.v[pk.below(ns.size())] = -1 - pk.below(2);
        } else {
          out->sizes = ns;
          out->strides = contiguous_strides(ns);
        }
        s->args[1] = Arg::ints(ns);
        *result = !*invalid && ns == in.sizes ? 5 : 4;  // the same sizes change nothing
        return true;
      }
      case OpId::kAdd:
      case OpId::kMul: {
        ScalarLit x = valid_scalar(in.dtype, ScalarUse::kCompute, pk, edge);
        *invalid = false;
        out->dtype = scalar_result(in.dtype, x);
        s->args[1] = Arg::scalar_arg(x);
        out->strides = dense_strides_like(in, true);
        *result = 2;
        return true;
      }
      case OpId::kClone:
        *invalid = false;
        if (emptied(in, storage(v).bytes)) {  // R3: zeros, same sizes and strides, offset 0
          out->offset = 0;
          *result = 6;
        } else {
          if (!is_dense(in)) out->strides = dense_strides_like(in, false);
          *result = 2;
        }
        return true;
      case OpId::kContiguous:
        *invalid = false;
        if (is_contiguous(in)) {
          *result = 1;
        } else if (emptied(in, storage(v).bytes)) {  // R3
          out->offset = 0;
          out->strides = contiguous_strides(in.sizes);
          *result = 6;
        } else {
          *result = 3;
        }
        return true;
      case OpId::kClonePreserveStrides:  // sizes, strides and offset; storage of the extent
        *invalid = false;
        *result = 6;
        return true;
      case OpId::kTo: {
        DTypeArg d = dtype_from_pick(pk);
        *invalid = false;
        s->args[1] = Arg::dtype_arg(d);
        if (d == in.dtype) {  // the same tensor object
          *result = 1;
          return true;
        }
        out->dtype = d;
        to_copy(in, v, out, result);
        return true;
      }
      case OpId::kSum: {  // 0-d; f64 for floating inputs, i64 for integer and bool
        *invalid = false;
        out->sizes = IntList{};
        out->strides = IntList{};
        out->offset = 0;
        out->dtype = is_float(in.dtype) ? DTypeArg::kF64 : DTypeArg::kI64;
        *result = 3;
        return true;
      }
      case OpId::kLazyClone:
        *invalid = false;
        if (emptied(in, storage(v).bytes)) {  // R3: zeros, same sizes and strides, offset 0
          out->offset = 0;
          *result = 6;
        } else {
          *result = 8;  // C1: same sizes, strides and offset
        }
        return true;
      case OpId::kMutableDataPtr:
        *invalid = false;
        *result = 5;
        return true;
      case OpId::kMeta:
      case OpId::kFake:  // F1: the exact geometry over the memo's meta storage
        out->meta = true;
        out->fake = op == OpId::kFake;
        *result = 9;
        return true;
      case OpId::kFakeFromMeta:  // F5: the meta tensor's storage, marked fake
        out->fake = true;
        *result = 0;
        return true;
      case OpId::kCuda:
      case OpId::kCpu: {  // `to` a device (issue 11): same object when there, else a clone path
        *invalid = false;
        const bool away = (op == OpId::kCuda) != cfg_.home_cuda;
        if (in.away == away) {
          *result = 1;
          return true;
        }
        out->away = away;
        to_copy(in, v, out, result);
        return true;
      }
      case OpId::kToMeta:  // F8: clone-like onto meta; a meta input is returned
        if (in.meta) {
          *result = 1;
          return true;
        }
        out->meta = true;
        out->fake = false;
        if (!is_dense(in)) out->strides = dense_strides_like(in, false);
        *result = 2;
        return true;
      case OpId::kShrink:
      case OpId::kSetNonresizable:
        *invalid = false;
        *result = 7;
        return true;
      case OpId::kResizeStorage: {
        int64_t need = extent_bytes(in);
        int64_t n = need;
        switch (pk.below(5)) {
          case 1: case 3: n = need > 1 ? 1 + pk.below(need - 1) : 0; break;  // undersized (R7)
          case 2: n = 0; break;                                              // emptied
          case 4: n = need + itemsize(in.dtype) * (1 + pk.below(4)); break;  // room to spare
          default: break;                                                    // exactly the extent
        }
        if (*invalid) n = -1 - pk.below(8);
        s->args[1] = Arg::integer(n);
        *result = 7;
        return true;
      }
      case OpId::kDrop:
        *invalid = false;
        *result = 5;
        live_.erase(std::find(live_.begin(), live_.end(), v));
        return true;
      default:
        return false;
    }
  }

  /// A view chain: a factory first, then views of the latest result.
  void chain_step(const StepChoice& c) {
    if (live_.empty() || ops_.empty()) {
      factory(factories_[c.op % factories_.size()], c, false);
      return;
    }
    VarId last = live_.back();
    for (size_t k = 0; k < ops_.size(); ++k) {
      OpId op = ops_[(c.op + k) % ops_.size()];
      Pred valid_pred, bad_pred;
      preds(op, &valid_pred, &bad_pred);
      if (!valid_pred(model(last))) continue;
      // Make `last` the only live variable the op may pick.
      std::vector<VarId> saved = live_;
      live_.assign(1, last);
      bool done = unary(op, c, false);
      std::vector<VarId> added(live_.begin() + 1, live_.end());
      live_ = saved;
      live_.insert(live_.end(), added.begin(), added.end());
      if (done) return;
    }
  }

  const GenConfig& cfg_;
  std::vector<StepTrace>* trace_;
  bool chain_;
  std::vector<OpId> ops_;
  std::vector<OpId> factories_;
  int64_t view_cap_;
  int max_rank_;
  Program p_;
  std::vector<int> obj_of_;  // per variable: its object, -1 when never usable
  std::vector<Obj> objs_;
  std::vector<Storage> storages_;
  bool rfocus_ = false;  // cfg.storage_focus with kStorage ops enabled
  bool cfocus_ = false;  // cfg.cow_focus with lazy_clone enabled
  bool ffocus_ = false;  // cfg.fake_focus with fake enabled
  int next_group_ = 0;   // the next COW group id (Note [COW model])
  bool unchecked_ = false;  // set by apply: this view is an alias, skips the S5 check
  std::vector<VarId> live_;  // usable variables, in order of definition
};

// Note [Sparse programs]
// Under GenConfig::sparse_focus the builder is SparseBuilder: programs whose
// variables hold sparse tensors of every layout, valid by construction
// (SEMANTICS F4, F8, S3). Its model is coarse: a variable is dense (real
// strided, with sizes and dtype), sparse (a layout, its sizes, a coalesced
// flag), a part (an accessor's strided alias of a sparse tensor's part) or
// converted (a meta or fake sparse tensor). Each record's op pick chooses a
// scenario, in this order, each falling back to the next when no variable
// fits it:
//   Case 0) a dense factory: rank 2 or 3, small sizes (arange, rand, zeros),
//      f32 or i64, or now and then f64, i32, u8 or bool (sparse_dtype);
//   Case 1) to_sparse_coo of a dense variable, sparse_dim in 1..rank;
//   Case 2) to_sparse_csr/csc/bsr/bsc of a rank-2 dense variable, the
//      blocksize a divisor of each size;
//   Case 3) sparse_coo_tensor from generated i64 indices: `rand` (values in
//      [0, 10): unsorted, duplicates) or `arange` (sorted, unique) over
//      sparse sizes >= 10 that hold them, or a [sparse_dim, 0] `zeros` (nnz
//      0); values `rand` (sparse_dtype) with 0 or 1 dense dims (hybrid);
//      or, half of the time, sparse_{csr,csc,bsr,bsc}_tensor from generated
//      parts (compressed_from_parts);
//   Case 4) an accessor of a sparse variable (the one its layout has:
//      values, indices of coalesced COO, crow/col_indices, ccol/row_indices);
//   Case 5) a write through a values() part (fill_, add_, mul_; S3, S2);
//   Case 6) to_dense or coalesce of a sparse variable;
//   Case 7) fake or meta of a sparse variable, mostly COO (F4, F2: a repeat
//      converts the same live tensor again), rarely to_meta (F8);
//   Case 8) fake of a part (F4: a view of a sparse base raises);
//   Case 9) drop (a sparse or any variable), sweep, memo_stats (F3);
//   Case 10) a strided op on a part (an accessor's result, or what Case 10
//      made of one), among those GenConfig::ops holds: group R on the
//      storage the sparse tensor shares (shrink, rehydrate, reshrink,
//      set_nonresizable, resize_storage to 0, 4, 16 or 256 bytes), group C
//      (lazy_clone), copies and aliases (clone, contiguous, detach, alias,
//      to, sum), mutable_data_ptr, and zero_ of a values() part. A result
//      is a part again, writable when its input was values() (Case 5 then
//      writes it; an index part is never written, as in Case 5). An
//      emptied or undersized part makes the sparse tensor's reads S8, which
//      every backend reports (Note [Sparse indices written through an
//      accessor], oracles/torch_backend.cpp); rehydrate then gives zero
//      indices, which may no longer be valid ones, the same note's case.
//      Until 2026-12 the sparse programs ran no strided op on a part but
//      Case 5's writes, and only the fuzzers' mutations reached these.
// GenConfig::sparse_conversions off leaves out Cases 7, 8, sweep and
// memo_stats (the cross-ref's sparse programs).
// With probability invalid_per_mille/1000 a step is deliberately invalid:
// a strided op (add) on a sparse variable (unsupported_layout), or Case 3
// with a flaw that sparse_coo_tensor's checks reject (coo_from_parts) or
// one that sparse_{csr,...}_tensor's reject (compressed_from_parts).
class SparseBuilder {
 public:
  explicit SparseBuilder(const GenConfig& cfg) : cfg_(cfg) {}

  void step(const StepChoice& c) {
    Picker pk(c);
    const int per_mille = std::max(0, std::min(cfg_.invalid_per_mille, 1000));
    if (per_mille > 0 && c.invalid >= 1000 - per_mille &&
        (c.invalid % 2 == 0 ? (c.invalid % 4 == 0 ? coo_from_parts(c, pk, /*flawed=*/true)
                                                  : compressed_from_parts(c, pk, /*flawed=*/true))
                            : refuse(c)))
      return;
    // Scenario weights out of 36 (Cases 0..10); see the test
    // SparseConfig.SparseScenariosAreFrequentIn16StepPrograms.
    static constexpr int kWeights[kCases] = {3, 4, 4, 2, 5, 2, 3, 6, 1, 2, 4};
    int first = 0;
    for (int r = c.op % 36; r >= kWeights[first]; ++first) r -= kWeights[first];
    for (int k = 0; k < kCases; ++k)
      if (scenario((first + k) % kCases, c, pk)) return;
  }
  Program take() { return std::move(p_); }

 private:
  enum class Kind : uint8_t { kDense, kSparse, kPart, kConverted };
  struct Var {
    VarId id;
    Kind kind;
    IntList sizes;
    SparseLayoutTag layout = SparseLayoutTag::kCoo;
    bool coalesced = false;  ///< kSparse: the flag; kPart: the part is values()
  };
  static constexpr int kCases = 11;

  Step start(OpId op) {
    Step s;
    s.op = op;
    s.nargs = static_cast<uint8_t>(op_info(op).signature.size());
    if (op_info(op).result == OpResult::kTensor)
      s.out = p_.new_var("t" + std::to_string(p_.num_vars()));
    return s;
  }
  VarId push(Step s, Kind kind, IntList sizes, SparseLayoutTag layout = SparseLayoutTag::kCoo,
             bool coalesced = false) {
    p_.steps.push_back(s);
    if (s.out != kNoVar) vars_.push_back({s.out, kind, sizes, layout, coalesced});
    return s.out;
  }
  /// The pick-th live variable of `kind` (index into vars_), or -1.
  int pick_var(Picker& pk, Kind kind, bool (*fits)(const Var&) = nullptr) {
    std::vector<int> ok;
    for (size_t k = 0; k < vars_.size(); ++k)
      if (vars_[k].kind == kind && (!fits || fits(vars_[k]))) ok.push_back(static_cast<int>(k));
    if (ok.empty()) return -1;
    return ok[static_cast<size_t>(pk.below(static_cast<int64_t>(ok.size())))];
  }

  /// A dense tensor's dtype: f32 mostly, `other` a third of the time, and
  /// one in four times f64, i32, u8 or bool instead: to_sparse, to_dense,
  /// coalesce (which sums duplicates in the values' own arithmetic: u8
  /// wraps, bool ors) and the writes through values() run in each.
  static DTypeArg sparse_dtype(Picker& pk, DTypeArg other) {
    static constexpr DTypeArg kRare[] = {DTypeArg::kF64, DTypeArg::kI32, DTypeArg::kU8,
                                         DTypeArg::kBool};
    const DTypeArg d = pk.one_in(3) ? other : DTypeArg::kF32;
    return pk.one_in(4) ? kRare[pk.below(4)] : d;
  }

  bool scenario(int which, const StepChoice& c, Picker& pk) {
    switch (which) {
      case 0: return dense_factory(c, pk);
      case 1: return to_coo(pk);
      case 2: return to_compressed(pk);
      case 3: return pk.one_in(2) ? compressed_from_parts(c, pk) : coo_from_parts(c, pk);
      case 4: return accessor(pk);
      case 5: return write_part(pk);
      case 6: return dense_or_coalesce(pk);
      case 7: return cfg_.sparse_conversions && convert(pk);
      case 8: return cfg_.sparse_conversions && convert_part(pk);
      case 9:
        return lifetime(pk);
      default:
        return part_op(pk);
    }
  }

  // Case 0)
  bool dense_factory(const StepChoice& c, Picker& pk) {
    IntList sizes;
    const int rank = 2 + static_cast<int>(pk.one_in(4));
    for (int d = 0; d < rank; ++d) storcheck::detail::push(sizes, pk.in(1, 4));
    int64_t kind = pk.below(3);
    const DTypeArg dtype = sparse_dtype(pk, DTypeArg::kI64);
    if (dtype == DTypeArg::kBool && kind == 0) kind = 1;  // arange has no bool kernel
    Step s = start(kind == 0 ? OpId::kArange : kind == 1 ? OpId::kRand : OpId::kZeros);
    s.args[0] = Arg::ints(sizes);
    s.args[1] = Arg::dtype_arg(dtype);
    if (kind == 1) s.args[2] = Arg::integer(c.seed);
    push(s, Kind::kDense, sizes);
    // Now and then a permuted view of it: the conversions then read dense
    // dims in another order, whose layout to_sparse's values follow (Note
    // [Values layout of to_sparse], impl/sparse.cpp; the generator had only
    // contiguous inputs, and fake_fuzzer found two divergences there).
    if (pk.one_in(3)) {
      IntList dims;
      for (int d = 0; d < rank; ++d) storcheck::detail::push(dims, d);
      for (int i = rank - 1; i > 0; --i) std::swap(dims.v[static_cast<size_t>(i)],
                                                   dims.v[static_cast<size_t>(pk.below(i + 1))]);
      IntList permuted;
      for (int d = 0; d < rank; ++d) storcheck::detail::push(permuted, sizes[static_cast<int>(dims[d])]);
      Step p = start(OpId::kPermute);
      p.args[0] = Arg::variable(s.out);
      p.args[1] = Arg::ints(dims);
      push(p, Kind::kDense, permuted);
    }
    return true;
  }
  // Case 1)
  bool to_coo(Picker& pk) {
    const int v = pick_var(pk, Kind::kDense);
    if (v < 0) return false;
    const Var in = vars_[static_cast<size_t>(v)];
    Step s = start(OpId::kToSparseCoo);
    s.args[0] = Arg::variable(in.id);
    s.args[1] = Arg::integer(pk.in(1, in.sizes.size()));
    push(s, Kind::kSparse, in.sizes, SparseLayoutTag::kCoo, true);
    return true;
  }
  // Case 2)
  bool to_compressed(Picker& pk) {
    const int v = pick_var(pk, Kind::kDense, [](const Var& x) {
      return x.sizes.size() == 2 && x.sizes[0] > 0 && x.sizes[1] > 0;  // blocksizes divide them
    });
    if (v < 0) return false;
    const Var in = vars_[static_cast<size_t>(v)];
    static constexpr OpId kOps[] = {OpId::kToSparseCsr, OpId::kToSparseCsc, OpId::kToSparseBsr,
                                    OpId::kToSparseBsc};
    static constexpr SparseLayoutTag kTags[] = {SparseLayoutTag::kCsr, SparseLayoutTag::kCsc,
                                                SparseLayoutTag::kBsr, SparseLayoutTag::kBsc};
    const int64_t k = pk.below(4);
    Step s = start(kOps[k]);
    s.args[0] = Arg::variable(in.id);
    if (k >= 2) {  // a divisor of each size: valid by construction
      auto divisor = [&](int64_t n) {
        std::vector<int64_t> ds;
        for (int64_t d = 1; d <= n; ++d)
          if (n % d == 0) ds.push_back(d);
        return ds[static_cast<size_t>(pk.below(static_cast<int64_t>(ds.size())))];
      };
      s.args[1] = Arg::ints({divisor(in.sizes[0]), divisor(in.sizes[1])});
    }
    push(s, Kind::kSparse, in.sizes, kTags[k]);
    return true;
  }
  // Case 3)
  // A flawed one (Case 3's invalid steps; kFlaws kinds, each an error of
  // LibTorch's check_invariants or of its argument checks): 0) a sparse
  // size below the largest index, 1) a negative index, 2) one sparse size
  // too many, 3) values with one row more than indices, 4) a dense size
  // that differs from the values', 5) 1-d indices, 6) i32 indices. Its
  // result is not tracked (the step fails).
  static constexpr int64_t kFlaws = 7;
  bool coo_from_parts(const StepChoice& c, Picker& pk, bool flawed = false) {
    const int64_t sparse_dim = pk.in(1, 2), nnz = pk.in(0, 5);
    int64_t dense = pk.below(2);
    int64_t how = pk.below(3);  // 0 rand (duplicates, unsorted), 1 arange (sorted), 2 nnz 0
    const int64_t flaw = flawed ? pk.below(kFlaws) : -1;
    if (flaw >= 0) how = 1;  // arange: row 0 is 0..n-1
    if (flaw == 4) dense = 1;
    const int64_t n = how == 2 ? 0 : flaw >= 0 ? std::max<int64_t>(nnz, 2) : nnz;
    Step i = start(flaw == 1  ? OpId::kFull
                   : how == 2 ? OpId::kZeros
                   : how == 0 ? OpId::kRand
                              : OpId::kArange);
    i.args[0] = flaw == 5 ? Arg::ints({sparse_dim * n}) : Arg::ints({sparse_dim, n});
    const DTypeArg index_dtype = flaw == 6 ? DTypeArg::kI32 : DTypeArg::kI64;
    if (flaw == 1) {
      i.args[1] = Arg::scalar_arg(ScalarLit::integer(-1));
      i.args[2] = Arg::dtype_arg(index_dtype);
    } else {
      i.args[1] = Arg::dtype_arg(index_dtype);
    }
    if (how == 0) i.args[2] = Arg::integer(c.seed);
    IntList sizes;
    // rand's i64 values are < 10; arange's largest is sparse_dim * n - 1 < 10.
    for (int64_t d = 0; d < sparse_dim; ++d) storcheck::detail::push(sizes, pk.in(10, 12));
    if (flaw == 0) sizes.v[0] = 1;
    if (flaw == 2) storcheck::detail::push(sizes, 10);
    const VarId iv = push(i, Kind::kDense, i.args[0].list);
    IntList vsizes{flaw == 3 ? n + 1 : n};
    if (dense) {
      const int64_t ds = pk.in(1, 3);
      storcheck::detail::push(vsizes, ds);
      storcheck::detail::push(sizes, flaw == 4 ? ds + 1 : ds);
    }
    Step v = start(OpId::kRand);
    v.args[0] = Arg::ints(vsizes);
    v.args[1] = Arg::dtype_arg(sparse_dtype(pk, DTypeArg::kF32));
    v.args[2] = Arg::integer(c.seed + 1);
    const VarId vv = push(v, Kind::kDense, vsizes);
    Step s = start(OpId::kSparseCooTensor);
    s.args[0] = Arg::variable(iv);
    s.args[1] = Arg::variable(vv);
    s.args[2] = Arg::ints(sizes);
    if (flaw >= 0) {
      p_.steps.push_back(s);
      return true;
    }
    push(s, Kind::kSparse, sizes, SparseLayoutTag::kCoo, n < 2);  // 1.13: coalesced iff nnz < 2
    return true;
  }
  // Case 3) for the compressed layouts: sparse_{csr,csc,bsr,bsc}_tensor of
  // `ncomp` compressed rows (columns) of blocks, `per` elements each (0, 1
  // or 2): compressed indices `zeros`, `arange` or `arange` then `mul_ 2`;
  // plain indices `arange` (sorted, distinct within each row), or `zeros`
  // or `rand` (values in [0, 10), nplain >= 10) with one per row; i64 or
  // i32; blocks of 1..3 x 1..3 for BSR/BSC; values `rand` with one dense
  // dim sometimes (hybrid); a quarter of the valid ones have a batch dim of
  // 1..3 (indices `expand`ed, then `contiguous`: every batch has the same
  // indices, and 1.13 wants contiguous ones). A flawed one (kCompressedFlaws kinds, each a
  // check of 1.13's _validate_sparse_compressed_tensor_args): 0) one
  // compressed row (block) too many in the sizes, 1) a plain index equal to
  // the plain size, 2) i32 compressed and i64 plain indices, 3) f32
  // indices, 4) compressed indices starting at 1, 5) two equal plain
  // indices in a row, 6) plain indices that are a strided slice (not
  // contiguous), 7) values with one element more than the plain indices,
  // 8) a size too many (3-d sizes of a 2-d tensor). Its result is not
  // tracked.
  static constexpr int64_t kCompressedFlaws = 9;
  bool compressed_from_parts(const StepChoice& c, Picker& pk, bool flawed = false) {
    static constexpr OpId kOps[] = {OpId::kSparseCsrTensor, OpId::kSparseCscTensor,
                                    OpId::kSparseBsrTensor, OpId::kSparseBscTensor};
    static constexpr SparseLayoutTag kTags[] = {SparseLayoutTag::kCsr, SparseLayoutTag::kCsc,
                                                SparseLayoutTag::kBsr, SparseLayoutTag::kBsc};
    const int64_t k = pk.below(4);
    const bool by_row = k % 2 == 0, blocked = k >= 2;
    const int64_t flaw = flawed ? pk.below(kCompressedFlaws) : -1;
    const int64_t ncomp = pk.in(1, 4);
    int64_t per = pk.below(3);
    if (flaw == 1 || flaw == 4 || flaw == 7) per = std::max<int64_t>(per, 1);
    if (flaw == 5 || flaw == 6) per = 2;
    const int64_t nnz = ncomp * per;
    int64_t plain_how = per <= 1 ? pk.below(3) : 0;  // 0 arange, 1 zeros, 2 rand
    if (flaw >= 0) plain_how = flaw == 5 ? 1 : 0;
    const int64_t nplain = plain_how == 2 ? pk.in(10, 11) : std::max<int64_t>(nnz, pk.in(1, 4));
    const DTypeArg idt = flaw == 3      ? DTypeArg::kF32
                         : pk.one_in(3) ? DTypeArg::kI32
                                        : DTypeArg::kI64;
    const int64_t b0 = blocked ? pk.in(1, 3) : 1, b1 = blocked ? pk.in(1, 3) : 1;
    const bool hybrid = !blocked && pk.one_in(4);
    const int64_t batch = flaw < 0 && pk.one_in(4) ? pk.in(1, 3) : 0;  // 0: no batch dim
    auto batched = [&](VarId in, int64_t n) {  // [n] -> [batch, n], contiguous
      if (batch == 0) return in;
      Step e = start(OpId::kExpand);
      e.args[0] = Arg::variable(in);
      e.args[1] = Arg::ints({batch, n});
      Step cont = start(OpId::kContiguous);
      cont.args[0] = Arg::variable(push(e, Kind::kDense, e.args[1].list));
      return push(cont, Kind::kDense, e.args[1].list);
    };
    // Compressed indices: [0, per, 2 per, ..., nnz].
    Step ci = start(per == 0 ? OpId::kZeros : OpId::kArange);
    ci.args[0] = Arg::ints({ncomp + 1});
    ci.args[1] = Arg::dtype_arg(flaw == 2 ? DTypeArg::kI32 : idt);
    const VarId cv = push(ci, Kind::kDense, ci.args[0].list);
    if (per == 2 || flaw == 4) {
      Step w = start(per == 2 ? OpId::kMul_ : OpId::kAdd_);
      w.args[0] = Arg::variable(cv);
      w.args[1] = Arg::scalar_arg(ScalarLit::integer(per == 2 ? 2 : 1));
      p_.steps.push_back(w);
      if (per == 2 && flaw == 4) {  // then starting at 1
        Step w1 = w;
        w1.op = OpId::kAdd_;
        w1.args[1] = Arg::scalar_arg(ScalarLit::integer(1));
        p_.steps.push_back(w1);
      }
    }
    const VarId cb = batched(cv, ncomp + 1);
    // Plain indices.
    Step pi = start(flaw == 1 ? OpId::kFull
                    : plain_how == 1 ? OpId::kZeros
                    : plain_how == 2 ? OpId::kRand
                                     : OpId::kArange);
    pi.args[0] = Arg::ints({flaw == 6 ? 2 * nnz : nnz});
    if (flaw == 1) {
      pi.args[1] = Arg::scalar_arg(ScalarLit::integer(nplain));
      pi.args[2] = Arg::dtype_arg(idt);
    } else {
      pi.args[1] = Arg::dtype_arg(flaw == 2 ? DTypeArg::kI64 : idt);
      if (plain_how == 2) pi.args[2] = Arg::integer(c.seed);
    }
    VarId pv = push(pi, Kind::kDense, pi.args[0].list);
    if (flaw == 6) {
      Step sl = start(OpId::kSlice);
      sl.args[0] = Arg::variable(pv);
      sl.args[1] = Arg::integer(0);
      sl.args[2] = Arg::integer(0);
      sl.args[3] = Arg::integer(2 * nnz);
      sl.args[4] = Arg::integer(2);
      pv = push(sl, Kind::kDense, {nnz});
    }
    pv = batched(pv, nnz);
    // Values: [nnz] (+ a dense dim), or [nnz, b0, b1] blocks.
    IntList vsizes;
    if (batch > 0) storcheck::detail::push(vsizes, batch);
    storcheck::detail::push(vsizes, flaw == 7 ? nnz + 1 : nnz);
    if (blocked) {
      storcheck::detail::push(vsizes, b0);
      storcheck::detail::push(vsizes, b1);
    }
    const int64_t dense = hybrid ? pk.in(1, 3) : 0;
    if (hybrid) storcheck::detail::push(vsizes, dense);
    Step v = start(OpId::kRand);
    v.args[0] = Arg::ints(vsizes);
    v.args[1] = Arg::dtype_arg(DTypeArg::kF32);
    v.args[2] = Arg::integer(c.seed + 1);
    const VarId vv = push(v, Kind::kDense, vsizes);
    const int64_t rows = by_row ? ncomp + (flaw == 0) : nplain,
                  cols = by_row ? nplain : ncomp + (flaw == 0);
    IntList sizes;
    if (batch > 0) storcheck::detail::push(sizes, batch);
    storcheck::detail::push(sizes, rows * b0);
    storcheck::detail::push(sizes, cols * b1);
    if (hybrid) storcheck::detail::push(sizes, dense);
    if (flaw == 8) storcheck::detail::push(sizes, 2);
    Step s = start(kOps[k]);
    s.args[0] = Arg::variable(cb);
    s.args[1] = Arg::variable(pv);
    s.args[2] = Arg::variable(vv);
    s.args[3] = Arg::ints(sizes);
    if (flaw >= 0) {
      p_.steps.push_back(s);
      return true;
    }
    push(s, Kind::kSparse, sizes, kTags[k]);
    return true;
  }
  // Case 4)
  bool accessor(Picker& pk) {
    int v = pk.one_in(2) ? pick_var(pk, Kind::kSparse, [](const Var& x) {
      return x.layout != SparseLayoutTag::kCoo;  // compressed tensors have two index parts
    }) : -1;
    if (v < 0) v = pick_var(pk, Kind::kSparse);
    if (v < 0) return false;
    const Var in = vars_[static_cast<size_t>(v)];
    OpId op = OpId::kValues;
    const bool second = pk.one_in(2);
    switch (in.layout) {
      case SparseLayoutTag::kCoo: op = second ? OpId::kIndices : OpId::kValues; break;
      case SparseLayoutTag::kCsr:
      case SparseLayoutTag::kBsr: op = second ? OpId::kCrowIndices : OpId::kColIndices; break;
      case SparseLayoutTag::kCsc:
      case SparseLayoutTag::kBsc: op = second ? OpId::kCcolIndices : OpId::kRowIndices; break;
    }
    if (pk.one_in(3)) op = OpId::kValues;
    if (in.layout == SparseLayoutTag::kCoo && !in.coalesced && !pk.one_in(4)) return false;
    Step s = start(op);
    s.args[0] = Arg::variable(in.id);
    push(s, Kind::kPart, IntList{}, in.layout, /*values part=*/op == OpId::kValues);
    return true;
  }
  // Case 5) values() parts only: indices written through an accessor are
  // Note [Sparse indices written through an accessor] (oracles/), which the
  // fuzzers reach; here the tensors stay valid.
  bool write_part(Picker& pk) {
    const int v = pick_var(pk, Kind::kPart, [](const Var& x) { return x.coalesced; });
    if (v < 0) return false;
    const int64_t k = pk.below(3);
    Step s = start(k == 0 ? OpId::kFill_ : k == 1 ? OpId::kAdd_ : OpId::kMul_);
    s.args[0] = Arg::variable(vars_[static_cast<size_t>(v)].id);
    s.args[1] = Arg::scalar_arg(ScalarLit::integer(k == 2 ? 2 : pk.in(1, 3)));
    push(s, Kind::kPart, IntList{});
    return true;
  }
  // Case 6)
  bool dense_or_coalesce(Picker& pk) {
    const int v = pick_var(pk, Kind::kSparse);
    if (v < 0) return false;
    const Var in = vars_[static_cast<size_t>(v)];
    const bool coalesce = in.layout == SparseLayoutTag::kCoo && pk.one_in(2);
    Step s = start(coalesce ? OpId::kCoalesce : OpId::kToDense);
    s.args[0] = Arg::variable(in.id);
    if (coalesce) push(s, Kind::kSparse, in.sizes, SparseLayoutTag::kCoo, true);
    else push(s, Kind::kDense, in.sizes);
    return true;
  }
  // Case 7)
  bool convert(Picker& pk) {
    // Mostly COO: LibTorch 1.13 converts no compressed tensor (a known
    // divergence, after which a program is not compared any further).
    int v = pk.one_in(3) ? -1 : pick_var(pk, Kind::kSparse, [](const Var& x) {
      return x.layout == SparseLayoutTag::kCoo;
    });
    if (v < 0) v = pick_var(pk, Kind::kSparse);
    if (v < 0) return false;
    if (!converted_.empty() && pk.one_in(2)) {  // F2: the same live sparse tensor again
      const VarId again = converted_[static_cast<size_t>(pk.below(static_cast<int64_t>(converted_.size())))];
      for (size_t k = 0; k < vars_.size(); ++k)
        if (vars_[k].id == again) v = static_cast<int>(k);
    }
    const Var in = vars_[static_cast<size_t>(v)];
    converted_.push_back(in.id);
    const int64_t k = pk.below(12);  // to_meta of COO: a known divergence of 1.13 too
    Step s = start(k < 6 ? OpId::kFake : k < 11 ? OpId::kMeta : OpId::kToMeta);
    s.args[0] = Arg::variable(in.id);
    push(s, Kind::kConverted, in.sizes, in.layout);
    return true;
  }
  // Case 8)
  bool convert_part(Picker& pk) {
    const int v = pick_var(pk, Kind::kPart);
    if (v < 0) return false;
    Step s = start(pk.one_in(2) ? OpId::kMeta : OpId::kFake);
    s.args[0] = Arg::variable(vars_[static_cast<size_t>(v)].id);
    push(s, Kind::kConverted, IntList{});
    return true;
  }
  // Case 9)
  bool lifetime(Picker& pk) {
    const int64_t k = cfg_.sparse_conversions ? pk.below(4) : pk.below(2);
    if (vars_.empty() && !cfg_.sparse_conversions) return false;
    if (k >= 2 || vars_.empty()) {
      push(start(k == 3 ? OpId::kMemoStats : OpId::kSweep), Kind::kDense, IntList{});
      return true;
    }
    int v = pick_var(pk, Kind::kSparse);
    if (v < 0 || k == 1) v = static_cast<int>(pk.below(static_cast<int64_t>(vars_.size())));
    Step s = start(OpId::kDrop);
    s.args[0] = Arg::variable(vars_[static_cast<size_t>(v)].id);
    p_.steps.push_back(s);
    vars_.erase(vars_.begin() + v);
    return true;
  }
  // Case 10)
  bool part_op(Picker& pk) {
    const int v = pick_var(pk, Kind::kPart);
    if (v < 0) return false;
    const Var in = vars_[static_cast<size_t>(v)];
    static constexpr OpId kOps[] = {
        OpId::kShrink,         OpId::kRehydrate, OpId::kReshrink, OpId::kSetNonresizable,
        OpId::kResizeStorage,  OpId::kLazyClone, OpId::kClone,    OpId::kContiguous,
        OpId::kDetach,         OpId::kAlias,     OpId::kTo,       OpId::kSum,
        OpId::kMutableDataPtr, OpId::kZero_};
    OpId ok[std::size(kOps)];
    int n = 0;
    for (OpId op : kOps)
      if (cfg_.ops.test(static_cast<size_t>(op)) && (op != OpId::kZero_ || in.coalesced))
        ok[n++] = op;
    if (n == 0) return false;
    const OpId op = ok[pk.below(n)];
    Step s = start(op);
    if (s.nargs > 0) s.args[0] = Arg::variable(in.id);
    if (op == OpId::kResizeStorage) {
      static constexpr int64_t kBytes[] = {0, 4, 16, 256};
      s.args[1] = Arg::integer(kBytes[pk.below(4)]);
    } else if (op == OpId::kTo) {
      static constexpr DTypeArg kDtypes[] = {DTypeArg::kF32, DTypeArg::kI64, DTypeArg::kI32,
                                             DTypeArg::kF64};
      s.args[1] = Arg::dtype_arg(kDtypes[pk.below(4)]);
    }
    push(s, Kind::kPart, IntList{}, in.layout, in.coalesced);
    return true;
  }
  /// A deliberately refused step: a strided op on a sparse variable.
  bool refuse(const StepChoice& c) {
    Picker pk(c);
    const int v = pick_var(pk, Kind::kSparse);
    if (v < 0) return false;
    Step s = start(OpId::kAdd);
    s.args[0] = Arg::variable(vars_[static_cast<size_t>(v)].id);
    s.args[1] = Arg::scalar_arg(ScalarLit::integer(1));
    p_.steps.push_back(s);  // binds nothing: every backend refuses it
    return true;
  }

  const GenConfig& cfg_;
  Program p_;
  std::vector<Var> vars_;  ///< live variables the model tracks
  std::vector<VarId> converted_;  ///< sparse variables converted so far (may have died)
};

Program build(const std::vector<StepChoice>& choices, const GenConfig& cfg,
              std::vector<StepTrace>* trace, bool chain) {
  // A mixed config (GenConfig::sparse_per_mille) draws the builder from the
  // first record's seed, so that a record list always rebuilds one program.
  const bool mixed_sparse =
      !choices.empty() && static_cast<uint64_t>(choices[0].seed) % 1000 <
                              static_cast<uint64_t>(std::max(cfg.sparse_per_mille, 0));
  if (!chain &&
      (mixed_sparse || (cfg.sparse_focus && cfg.ops.test(static_cast<int>(OpId::kToSparseCoo))))) {
    SparseBuilder b(cfg);  // Note [Sparse programs]
    int n = std::min(std::max<int>(cfg.min_steps, static_cast<int>(choices.size())),
                     std::max(cfg.max_steps, 0));
    static const StepChoice kFirst{};
    for (int k = 0; k < n; ++k) b.step(k < static_cast<int>(choices.size()) ? choices[k] : kFirst);
    return b.take();
  }
  Builder b(cfg, trace, chain);
  if (!chain && !choices.empty() && cfg.swarm_per_mille > 0)  // Note [Swarm programs]
    b.keep_only(swarm_ops(cfg, choices[0].seed));
  int n = std::max<int>(cfg.min_steps, static_cast<int>(choices.size()));
  n = std::min(n, std::max(cfg.max_steps, 0));
  b.reserve(n);
  static const StepChoice kDefault{};
  for (int k = 0; k < n; ++k) b.step(k < static_cast<int>(choices.size()) ? choices[k] : kDefault);
  return b.take();
}

/// Shrinks one record field by field, in declaration order (op, var, var2,
/// invalid, picks[0..15], seed), each toward 0: what RapidCheck's tuple of
/// per-field generators did, without a Shrinkable per field.
rc::Seq<StepChoice> shrink_choice(const StepChoice& c) {
  auto field = [&c](uint16_t StepChoice::*f) {
    return rc::seq::map(rc::shrink::towards<uint16_t>(c.*f, 0), [c, f](uint16_t x) {
      StepChoice d = c;
      d.*f = x;
      return d;
    });
  };
  auto pick = [&c](int k) {
    return rc::seq::map(rc::shrink::towards<uint16_t>(c.picks[k], 0), [c, k](uint16_t x) {
      StepChoice d = c;
      d.picks[k] = x;
      return d;
    });
  };
  std::vector<rc::Seq<StepChoice>> parts;
  parts.reserve(5 + kStepPicks);
  parts.push_back(field(&StepChoice::op));
  parts.push_back(field(&StepChoice::var));
  parts.push_back(field(&StepChoice::var2));
  parts.push_back(field(&StepChoice::invalid));
  for (int k = 0; k < kStepPicks; ++k) parts.push_back(pick(k));
  parts.push_back(rc::seq::map(rc::shrink::towards<int64_t>(c.seed, 0), [c](int64_t x) {
    StepChoice d = c;
    d.seed = x;
    return d;
  }));
  return rc::seq::join(rc::seq::fromContainer(std::move(parts)));
}

/// One record from 8 numbers of one Random (two of its blocks) instead of a
/// split and a Shrinkable per field; the size is ignored (Note [Choice records]).
rc::Shrinkable<StepChoice> step_choice(const rc::Random& random, int /*size*/) {
  rc::Random r(random);
  uint64_t w[8];
  for (uint64_t& x : w) x = r.next();
  StepChoice c;
  for (int k = 0; k < kStepPicks; ++k) c.picks[k] = static_cast<uint16_t>(w[k / 4] >> (16 * (k % 4)));
  c.op = static_cast<uint16_t>(w[4] % 60000);
  // invalid >= 1000 - invalid_per_mille makes the step invalid; shrinking goes to 0, valid.
  c.invalid = static_cast<uint16_t>(w[5] % 1000);
  c.seed = static_cast<int64_t>(w[6] % (uint64_t{1} << 30));
  c.var = static_cast<uint16_t>(w[7]);
  c.var2 = static_cast<uint16_t>(w[7] >> 16);
  return rc::shrinkable::shrinkRecur(c, &shrink_choice);
}

rc::Gen<std::vector<StepChoice>> gen_choices(const GenConfig& cfg) {
  double scale = std::max(1, cfg.max_steps) / 100.0 * 1.5;
  rc::Gen<std::vector<StepChoice>> tail =
      rc::gen::scale(scale, rc::gen::container<std::vector<StepChoice>>(gen_step_choice(cfg)));
  // The first min_steps records are drawn too, not padded with StepChoice{}.
  int head = std::max(0, std::min(cfg.min_steps, cfg.max_steps));
  if (head == 0) return tail;
  // Records past max_steps are ignored by build: with min_steps == max_steps
  // the tail would be drawn for nothing.
  if (head >= cfg.max_steps)
    return rc::gen::container<std::vector<StepChoice>>(static_cast<size_t>(head), gen_step_choice(cfg));
  return rc::gen::apply(
      [](std::vector<StepChoice> a, const std::vector<StepChoice>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
      },
      rc::gen::container<std::vector<StepChoice>>(static_cast<size_t>(head), gen_step_choice(cfg)),
      tail);
}

}  // namespace
}  // namespace detail

rc::Gen<StepChoice> gen_step_choice(const GenConfig& cfg) {
  (void)cfg;
  return &detail::step_choice;
}

Program build_program(const std::vector<StepChoice>& choices, const GenConfig& cfg,
                      std::vector<StepTrace>* trace) {
  return detail::build(choices, cfg, trace, false);
}

/// The splitmix64 index of Note [Swarm programs]'s draw from the first
/// record's seed (any constant other than rand's element indices would do).
constexpr uint64_t kSwarmStream = 0x5357524dull;

OpSet swarm_ops(const GenConfig& cfg, int64_t first_seed) {
  const uint64_t bits = rand_bits(static_cast<uint64_t>(first_seed), kSwarmStream);
  if (bits % 1000 >= static_cast<uint64_t>(std::max(cfg.swarm_per_mille, 0))) return cfg.ops;
  OpSet kept;
  int n = 0, k = 0;  // k counts the enabled ops, in OpId order
  for (size_t op = 0; op < cfg.ops.size(); ++op) {
    if (!cfg.ops.test(op)) continue;
    if ((rand_bits(bits, static_cast<uint64_t>(k / 64)) >> (k % 64)) & 1) {
      kept.set(op);
      ++n;
    }
    ++k;
  }
  return n >= 2 ? kept : cfg.ops;
}

rc::Gen<Program> gen_program(const GenConfig& cfg) {
  return rc::gen::map(detail::gen_choices(cfg),
                      [cfg](const std::vector<StepChoice>& cs) { return build_program(cs, cfg); });
}

rc::Gen<DTypeArg> gen_dtype() {
  return rc::gen::element(DTypeArg::kF32, DTypeArg::kF64, DTypeArg::kI32, DTypeArg::kI64,
                          DTypeArg::kU8, DTypeArg::kBool);
}

rc::Gen<IntList> gen_shape(int max_rank, int64_t max_numel) {
  return rc::gen::map(
      rc::gen::container<std::array<uint16_t, kStepPicks>>(rc::gen::arbitrary<uint16_t>()),
      [max_rank, max_numel](const std::array<uint16_t, kStepPicks>& picks) {
        StepChoice c;
        c.picks = picks;
        detail::Picker pk(c);
        return detail::shape_from_picks(pk, max_rank, max_numel, true);
      });
}

Program build_view_chain(const std::vector<StepChoice>& choices, const GenConfig& cfg) {
  return detail::build(choices, cfg, nullptr, true);
}

rc::Gen<Program> gen_view_chain(const GenConfig& cfg) {
  return rc::gen::map(detail::gen_choices(cfg), [cfg](const std::vector<StepChoice>& cs) {
    return build_view_chain(cs, cfg);
  });
}

}  // namespace storcheck
