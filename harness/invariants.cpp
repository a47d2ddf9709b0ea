#include "harness/invariants.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "impl/fake.h"
#include "impl/geometry.h"
#include "impl/tensor.h"
#include "oracles/first_index.h"
#include "oracles/observation.h"

namespace storcheck {

namespace {

int64_t required(const VarObs& v) {
  int64_t b = -1;
  observed_geometry(v).required_bytes(&b);
  return b;
}

bool undersized(const VarObs& v) {
  return v.live && v.storage_nbytes > 0 && required(v) > v.storage_nbytes && !observed_meta(v);
}

bool all_zero(const VarObs& v) {
  return v.values_known &&
         std::all_of(v.values.begin(), v.values.end(), [](uint8_t b) { return b == 0; });
}

bool same_geometry(const VarObs& a, const VarObs& b) {
  if (a.rank != b.rank || a.offset != b.offset) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] != b.sizes[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

bool same_sizes(const VarObs& a, const VarObs& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.sizes[d] != b.sizes[d]) return false;
  return true;
}

std::string sizes_str(const VarObs& v) { return format_ints(IntSpan(v.sizes.data(), v.rank)); }
std::string strides_str(const VarObs& v) { return format_ints(IntSpan(v.strides.data(), v.rank)); }

/// The clone paths of Note [Restore rule] (impl/ops.h).
bool is_clone_path(const Step& s, const VarObs& in) {
  switch (s.op) {
    case OpId::kClone:
    case OpId::kClonePreserveStrides: return true;
    case OpId::kContiguous: return !observed_geometry(in).is_contiguous();
    case OpId::kTo: return static_cast<int>(s.args[1].dtype) != static_cast<int>(in.dtype);
    default: return false;
  }
}

bool is_bounds_checked_view(OpId op) {
  switch (op) {
    case OpId::kAsStrided: case OpId::kSelect: case OpId::kSlice: case OpId::kNarrow:
    case OpId::kTranspose: case OpId::kT: case OpId::kPermute: case OpId::kMovedim:
    case OpId::kExpand: case OpId::kUnsqueeze: case OpId::kSqueeze: case OpId::kDiagonal:
    case OpId::kUnfold: case OpId::kSplit: case OpId::kChunk: case OpId::kUnbind:
      return true;
    default: return false;
  }
}

bool is_compute_kernel(OpId op) {
  switch (op) {
    case OpId::kAdd_: case OpId::kMul_: case OpId::kFill_: case OpId::kZero_: case OpId::kCopy_:
    case OpId::kAdd: case OpId::kMul: case OpId::kAddOut: case OpId::kMulOut:
      return true;
    default: return false;
  }
}

bool allocation_error(ErrorKind k) {
  return k == ErrorKind::kResourceLimit || k == ErrorKind::kStorageSizeOverflow;
}

bool fail(std::string* why, std::string msg) {
  *why = std::move(msg);
  return false;
}

bool clone_gives_zeros(const Program& p, const Step& s, const Observation& before,
                       const Observation& after, std::string* why) {
  if (s.nargs == 0 || s.args[0].kind != ArgKind::kVar) return true;
  const VarObs& in = before.vars[s.args[0].var];
  if (!observed_emptied(in) || !is_clone_path(s, in)) return true;
  std::string op(op_info(s.op).name);
  if (after.error != ErrorKind::kNone) {
    if (allocation_error(after.error)) return true;
    return fail(why, "R3: " + op + " of emptied " + p.var_names[s.args[0].var] + " raised " +
                         std::string(error_kind_name(after.error)) + " instead of restoring zeros");
  }
  const VarObs& out = after.vars[s.out];
  if (sizes_str(out) != sizes_str(in))
    return fail(why, "R3: " + op + " of an emptied tensor changed sizes " + sizes_str(in) +
                         " to " + sizes_str(out));
  VarObs want = in;
  if (s.op == OpId::kContiguous) contiguous_strides(want.rank, want.sizes.data(), want.strides.data());
  if (strides_str(out) != strides_str(want))
    return fail(why, "R3: " + op + " restored strides " + strides_str(out) + ", expected " +
                         strides_str(want));
  if (s.op == OpId::kClonePreserveStrides && out.offset != in.offset)
    return fail(why, "R3: clone_preserve_strides restored offset " + std::to_string(out.offset) +
                         ", expected " + std::to_string(in.offset));
  if (!all_zero(out)) return fail(why, "R3: " + op + " of an emptied tensor is not all zeros");
  if (out.alias_class != s.out)
    return fail(why, "R3: " + op + " of an emptied tensor does not own a fresh storage");
  return true;
}

bool input_stays_emptied(const Program& p, const Step& s, const Observation& before,
                         const Observation& after, std::string* why) {
  if (s.nargs == 0 || s.args[0].kind != ArgKind::kVar) return true;
  VarId v = s.args[0].var;
  const VarObs& in = before.vars[v];
  if (!observed_emptied(in) || !is_clone_path(s, in)) return true;
  const VarObs& now = after.vars[v];
  if (!observed_emptied(now) || !same_geometry(in, now) || now.alias_class != in.alias_class)
    return fail(why, "R3: " + std::string(op_info(s.op).name) + " changed its emptied input " +
                         p.var_names[v] + " (storage now " + std::to_string(now.storage_nbytes) +
                         " bytes)");
  return true;
}

bool bounds_checked_raise(const Program& p, const Step& s, const Observation& before,
                          const Observation& after, std::string* why) {
  std::string op(op_info(s.op).name);
  for (int a = 0; a < s.nargs; ++a) {
    if (s.args[a].kind != ArgKind::kVar) continue;
    const VarObs& in = before.vars[s.args[a].var];
    if (!observed_emptied(in)) continue;
    // Note [out=]: an out of other sizes than the input is resized (its
    // storage grows, R6) before the kernel writes it.
    if (is_scalar_out(s.op) && a == 0 && !same_sizes(in, before.vars[s.args[1].var])) continue;
    if (after.error == ErrorKind::kOther)
      return fail(why, "R4: " + op + " on emptied " + p.var_names[s.args[a].var] +
                           " failed with an unclassified error");
    if (is_compute_kernel(s.op) && after.error == ErrorKind::kNone)
      return fail(why, "S8: compute kernel " + op + " ran on emptied " + p.var_names[s.args[a].var]);
    // A device check comes before any data is touched (copy_ out of a meta
    // tensor raises first, in LibTorch too; found by fake_fuzzer), and so
    // does the layout policy (copy_ from a sparse tensor into an emptied
    // one: oracles/layout_policy.h refuses the sparse operand before the
    // op runs; found by fake_fuzzer).
    if (is_compute_kernel(s.op) && after.error != ErrorKind::kUndefinedBehavior &&
        after.error != ErrorKind::kDeviceMismatch &&
        after.error != ErrorKind::kUnsupportedLayout && !allocation_error(after.error))
      return fail(why, "S8: compute kernel " + op + " on emptied " + p.var_names[s.args[a].var] +
                           " reported " + std::string(error_kind_name(after.error)) +
                           ", expected undefined_behavior");
    if (a == 0 && is_bounds_checked_view(s.op)) {
      if (after.error == ErrorKind::kOutOfBounds &&
          after.error_message.find("for storage of size 0") == std::string::npos)
        return fail(why, "R4: out-of-bounds error does not name the 0-byte storage: " +
                             after.error_message);
      if (after.error == ErrorKind::kNone) {
        const VarObs& out = after.vars[s.out];
        bool alias_path = (s.op == OpId::kTranspose || s.op == OpId::kT || s.op == OpId::kMovedim) &&
                          same_geometry(in, out);
        if (observed_numel(out) > 0 && !alias_path)
          return fail(why, "R4: bounds-checked " + op + " on emptied " +
                               p.var_names[s.args[a].var] + " succeeded with " +
                               std::to_string(observed_numel(out)) + " elements");
      }
    }
  }
  return true;
}

bool undersized_not_restored(const Program& p, const Step& s, const Observation& before,
                             const Observation& after, std::string* why) {
  if (s.nargs == 0 || s.args[0].kind != ArgKind::kVar) return true;
  const VarObs& in = before.vars[s.args[0].var];
  if (!undersized(in) || !is_clone_path(s, in)) return true;
  if (after.error == ErrorKind::kUndefinedBehavior || allocation_error(after.error)) return true;
  return fail(why, "R7: " + std::string(op_info(s.op).name) + " of undersized " +
                       p.var_names[s.args[0].var] + " (" + std::to_string(in.storage_nbytes) +
                       " of " + std::to_string(required(in)) + " bytes) gave " +
                       std::string(error_kind_name(after.error)) + ", expected undefined_behavior");
}

bool rehydrate_keeps_aliasing(const Program& p, const Step& s, const Observation& before,
                              const Observation& after, std::string* why) {
  if (s.op != OpId::kRehydrate || after.error != ErrorKind::kNone) return true;
  for (size_t v = 0; v < before.vars.size(); ++v) {
    const VarObs& b = before.vars[v];
    const VarObs& a = after.vars[v];
    if (!b.live) continue;
    if (a.alias_class != b.alias_class || !same_geometry(a, b))
      return fail(why, "R5: rehydrate changed the aliasing or geometry of " + p.var_names[v]);
    if (!observed_emptied(b)) continue;
    int64_t want = 0;
    for (size_t w = 0; w < before.vars.size(); ++w)
      if (observed_emptied(before.vars[w]) && before.vars[w].alias_class == b.alias_class)
        want = std::max(want, required(before.vars[w]));
    if (a.storage_nbytes != want)
      return fail(why, "R5: rehydrate sized the storage of " + p.var_names[v] + " to " +
                           std::to_string(a.storage_nbytes) + " bytes, expected the largest extent " +
                           std::to_string(want));
    if (!all_zero(a)) return fail(why, "R5: rehydrated " + p.var_names[v] + " is not all zeros");
  }
  return true;
}

/// Stateful: remembers what rehydrate restored until the next reshrink.
struct ReshrinkHook {
  std::set<VarId> restored;
  bool operator()(const Program& p, size_t k, const Observation& before, const Observation& after,
                  std::string* why) {
    const Step& s = p.steps[k];
    // set_ moves its tensor to another storage, which reshrink need not
    // touch; failed too (a non-resizable storage raises after the move).
    // Every variable bound to that tensor object moves with it (contiguous
    // of a contiguous tensor returns its input; found by the gate, seed
    // 16161: `t2 = contiguous t0`, then `set_ t0 t1`).
    if (s.op == OpId::kSet_) {
      const int32_t self = before.vars[s.args[0].var].identity_class;
      if (self != before.vars[s.args[1].var].identity_class)
        for (size_t v = 0; v < before.vars.size(); ++v)
          if (before.vars[v].live && before.vars[v].identity_class == self)
            restored.erase(static_cast<VarId>(v));
    }
    if (after.error != ErrorKind::kNone) return true;
    if (s.op == OpId::kRehydrate) {
      for (size_t v = 0; v < before.vars.size(); ++v)
        if (observed_emptied(before.vars[v])) restored.insert(static_cast<VarId>(v));
    } else if (s.op == OpId::kReshrink) {
      for (VarId v : restored) {
        const VarObs& a = after.vars[v];
        if (a.live && a.storage_nbytes != 0)
          return fail(why, "R5: after reshrink, " + p.var_names[v] + "'s storage still holds " +
                               std::to_string(a.storage_nbytes) + " bytes");
      }
      restored.clear();
    }
    return true;
  }
};

/// The steps that write (and so materialize, C3) the storage of args[0].
bool is_cow_write(const Step& s, const Observation& before) {
  switch (s.op) {
    case OpId::kAdd_: case OpId::kMul_: case OpId::kFill_: case OpId::kZero_:
    case OpId::kMutableDataPtr:
      return true;
    case OpId::kAddOut: case OpId::kMulOut: {
      // Note [out=]: a resize that grows out's storage copies it into fresh
      // memory first (C8), so the write materializes nothing.
      const VarObs& o = before.vars[s.args[0].var];
      const VarObs& x = before.vars[s.args[1].var];
      const int64_t n = observed_numel(x);
      if (same_sizes(o, x) || n == 0) return true;
      return (n + o.offset) * itemsize(o.dtype) <= o.storage_nbytes;
    }
    case OpId::kCopy_: {
      // LibTorch's copy_ returns before writing when src is dst's very elements.
      const VarObs& d = before.vars[s.args[0].var];
      const VarObs& x = before.vars[s.args[1].var];
      return !(s.args[0].var == s.args[1].var ||
               (d.alias_class == x.alias_class && same_geometry(d, x) && d.dtype == x.dtype));
    }
    default: return false;
  }
}

bool no_copy_until_write(const Program& p, const Step& s, const Observation& before,
                         const Observation& after, std::string* why) {
  int64_t copies = after.cow_copies - before.cow_copies;
  int64_t expected = 0;
  if (after.error == ErrorKind::kNone && is_cow_write(s, before)) {
    const VarObs& w = before.vars[s.args[0].var];
    if (w.is_cow && w.cow_refs > 1) expected = 1;
  }
  if (copies != expected)
    return fail(why, "C4: " + std::string(op_info(s.op).name) + " made " + std::to_string(copies) +
                         " copies, expected " + std::to_string(expected) +
                         (expected ? " (a write to a shared COW block)" : " (no write to a shared COW block)"));
  (void)p;
  return true;
}

bool last_sharer_takes_ownership(const Program& p, const Step& s, const Observation& before,
                                 const Observation& after, std::string* why) {
  if (after.error != ErrorKind::kNone || !is_cow_write(s, before)) return true;
  VarId v = s.args[0].var;
  const VarObs& b = before.vars[v];
  const VarObs& a = after.vars[v];
  if (!b.is_cow) return true;
  if (a.is_cow) return fail(why, "C4: " + p.var_names[v] + " is still COW after a write");
  bool last = b.cow_refs == 1;
  if (last && a.data_moved)
    return fail(why, "C4: the last sharer " + p.var_names[v] + " moved its data instead of taking ownership");
  if (!last && !a.data_moved && b.storage_nbytes > 0)
    return fail(why, "C4: " + p.var_names[v] + " wrote into a block " + std::to_string(b.cow_refs) +
                         " sharers hold, without copying");
  return true;
}

bool refcount_matches_sharers(const Program& p, const Step&, const Observation&,
                              const Observation& after, std::string* why) {
  // A real sparse tensor holds its parts' storages, which no variable may
  // name any more (sparse_coo_tensor aliases its values; lazy_clone of the
  // values, then drop them: the block still has two sharers; found by
  // fake_fuzzer): with one live, sharers may outnumber the storages seen.
  bool hidden = false;
  for (const VarObs& y : after.vars) hidden = hidden || (y.live && is_sparse(y.layout) && !observed_meta(y));
  for (size_t v = 0; v < after.vars.size(); ++v) {
    const VarObs& x = after.vars[v];
    if (!x.live || !x.is_cow || x.data_class < 0) continue;
    std::set<int32_t> storages;
    for (const VarObs& y : after.vars)
      if (y.live && y.data_class == x.data_class) storages.insert(y.alias_class);
    const int64_t seen = static_cast<int64_t>(storages.size());
    if (hidden ? seen > x.cow_refs : seen != x.cow_refs)
      return fail(why, "C2: " + p.var_names[v] + "'s block counts " + std::to_string(x.cow_refs) +
                           " sharers but " + std::to_string(storages.size()) +
                           " live storages point at it");
  }
  return true;
}

bool views_materialize_once(const Program& p, const Step& s, const Observation& before,
                            const Observation& after, std::string* why) {
  if (after.error != ErrorKind::kNone || !is_cow_write(s, before)) return true;
  VarId w = s.args[0].var;
  const VarObs& bw = before.vars[w];
  if (!bw.is_cow) return true;
  for (size_t v = 0; v < before.vars.size(); ++v) {
    const VarObs& b = before.vars[v];
    const VarObs& a = after.vars[v];
    if (!b.live || b.alias_class != bw.alias_class) continue;
    // Note [out=]: add_out and mul_out may resize out itself (not its other views).
    if (is_scalar_out(s.op) && b.identity_class == bw.identity_class) continue;
    if (!same_geometry(a, b) || a.alias_class != b.alias_class || a.storage_nbytes != b.storage_nbytes)
      return fail(why, "C5: materialization changed the metadata of " + p.var_names[v]);
    if (a.data_class != after.vars[w].data_class || a.is_cow)
      return fail(why, "C3: " + p.var_names[v] + " does not see the materialized storage of " +
                           p.var_names[w]);
  }
  return true;
}

bool foreign_owner_raises(const Program& p, const Step& s, const Observation& before,
                          const Observation& after, std::string* why) {
  if (s.op != OpId::kLazyClone) return true;
  VarId v = s.args[0].var;
  const VarObs& b = before.vars[v];
  if (!b.foreign || observed_emptied(b)) return true;
  const VarObs& a = after.vars[v];
  if (after.error == ErrorKind::kNone)
    return fail(why, "C7: lazy_clone of foreign-owned " + p.var_names[v] + " succeeded");
  if (a.is_cow != b.is_cow || a.data_class != b.data_class || a.data_moved)
    return fail(why, "C7: the failed lazy_clone changed its source " + p.var_names[v]);
  return true;
}

// Note [Fake checks]
// After every step, every live variable's reference tensor is converted by
// one MetaConverter that lives for the whole program (a fresh one at step
// 0), as a FakeTensorMode converts the inputs a compiler traces.
// kFakeAliasing (F1, F2): a meta tensor made at this step has the real
// geometry and dtype (the memo keeps giving it while the real tensor lives,
// even after an in-place metadata op changed the real one: F2 wins);
// converting again gives the same meta tensor; variables bound to one
// tensor get one meta tensor; variables share a meta storage exactly when
// they share a real storage; a meta storage first made at this step has
// the real nbytes (0 for an emptied storage).
// kFakeMemoWeak (F3): the memo's tensor entries are exactly the live
// tensors, and after a sweep its storage entries are exactly the converted
// storages still alive: those of live variables, plus those a sparse
// variable keeps alive as its parts after the variables that viewed them
// were dropped (pending: no live tensor entry, but not dead; found by
// fake_fuzzer).
struct FakeHook {
  const Backend* reference;
  bool memo;
  std::shared_ptr<MetaConverter> conv;
  std::shared_ptr<std::set<const Storage*>> seen;
  std::shared_ptr<std::set<const TensorImpl*>> seen_tensors;
  /// Every real storage the hook converted, held weakly (F3's "alive"); an
  /// entry whose storage died is replaced when its address comes back.
  std::shared_ptr<std::map<const Storage*, WeakRc<Storage>>> converted;
  /// Per-step tables, kept for their capacity (the hook runs after every
  /// step of every fuzzed program): indexed by class id + 1, and keyed by
  /// meta storage.
  struct Scratch {
    std::vector<const Storage*> by_alias;      ///< alias class -> meta storage
    std::vector<const TensorImpl*> by_identity;  ///< identity class -> meta tensor
    FirstIndex alias_of;                        ///< meta storage -> first alias class
    FirstIndex fresh;                           ///< meta storage -> 1 when first seen now
    std::vector<uint8_t> classes;               ///< memo: bit 1 identity, bit 2 alias
    std::vector<const Storage*> named;          ///< memo: storages live entries name, sorted
    std::vector<const TensorImpl*> parts;       ///< memo: parts of live sparse variables
    std::vector<const TensorImpl*> impls;       ///< memo: live variables' tensors, sorted
  };

  /// The parts of the live real sparse variables, distinct, sorted.
  void parts_held_by_sparse(const Observation& after, std::vector<const TensorImpl*>* out) const {
    out->clear();
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      if (!after.vars[static_cast<size_t>(v)].live) continue;
      if (const SparseTensor* sp = reference->reference_sparse(v))
        for (const Tensor* part : {&(*sp)->indices, &(*sp)->compressed_indices,
                                   &(*sp)->plain_indices, &(*sp)->values})
          if (*part) out->push_back(part->get());
    }
    std::sort(out->begin(), out->end());
    out->erase(std::unique(out->begin(), out->end()), out->end());
  }
  std::shared_ptr<Scratch> scratch = std::make_shared<Scratch>();

  bool operator()(const Program& p, size_t k, const Observation&, const Observation& after,
                  std::string* why) {
    if (!reference) return true;
    if (k == 0 || !conv) {
      conv = std::make_shared<MetaConverter>();
      seen = std::make_shared<std::set<const Storage*>>();
      seen_tensors = std::make_shared<std::set<const TensorImpl*>>();
      converted = std::make_shared<std::map<const Storage*, WeakRc<Storage>>>();
    }
    const size_t nv = after.vars.size();
    Scratch& sc = *scratch;
    sc.by_alias.assign(nv + 1, nullptr);
    sc.by_identity.assign(nv + 1, nullptr);
    sc.alias_of.reset(nv);
    sc.fresh.reset(nv);
    auto slot = [](int32_t cls) { return static_cast<size_t>(cls + 1); };
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      const VarObs& o = after.vars[static_cast<size_t>(v)];
      const Tensor* t = reference->reference_tensor(v);
      if (!o.live || !t || (*t)->is_meta()) continue;  // program-made meta/fake tensors
      const std::string& name = p.var_names[static_cast<size_t>(v)];
      Result<Tensor> converted = conv->convert(*t);
      if (!converted.ok())
        return fail(why, "F4: converting " + name + " raised " + converted.error().message);
      Tensor m = std::move(converted).value();
      if (memo) {
        (*this->converted)[(*t)->storage.get()] = (*t)->storage;
        continue;
      }
      // A tensor given another storage by set_ after its conversion keeps
      // its memoized meta tensor (F2's memo by identity): only identity holds.
      const bool moved = conv->converted_storage(t->get()) != (*t)->storage.get();
      const Geometry& g = (*t)->geom;
      const bool new_meta = seen_tensors->insert(m.get()).second;
      bool same_geometry = m->geom.rank == g.rank && m->geom.offset == g.offset &&
                           m->dtype == (*t)->dtype;
      for (int d = 0; same_geometry && d < g.rank; ++d)
        same_geometry = m->geom.sizes[d] == g.sizes[d] && m->geom.strides[d] == g.strides[d];
      if (!same_geometry && new_meta)
        return fail(why, "F1: the meta tensor of " + name +
                             " has other sizes, strides, offset or dtype than the real one");
      if (conv->convert(*t).value() != m)
        return fail(why, "F2: converting " + name + " again gave another meta tensor");
      const TensorImpl*& id = sc.by_identity.at(slot(o.identity_class));
      if (!id) id = m.get();
      if (id != m.get())
        return fail(why, "F2: " + name + " is the very tensor " +
                             p.var_names[static_cast<size_t>(o.identity_class)] +
                             " but converts to another meta tensor");
      if (moved) continue;
      const Storage* ms = m->storage.get();
      const Storage*& a = sc.by_alias.at(slot(o.alias_class));
      if (!a) a = ms;
      if (a != ms)
        return fail(why, "F2: " + name + " shares its storage with " +
                             p.var_names[static_cast<size_t>(o.alias_class)] +
                             " but its meta tensor has another meta storage");
      const int32_t first = sc.alias_of.find_or_insert(ms, o.alias_class);
      if (first != o.alias_class)
        return fail(why, "F2: " + name + " and " + p.var_names[static_cast<size_t>(first)] +
                             " have distinct storages but one meta storage");
      const bool now = sc.fresh.find_or_insert(ms, seen->insert(ms).second ? 1 : 0) == 1;
      if (now && ms->nbytes() != o.storage_nbytes)
        return fail(why, "F2: the meta storage of " + name + " has " + std::to_string(ms->nbytes()) +
                             " bytes, its real storage " + std::to_string(o.storage_nbytes));
    }
    if (!memo) return true;
    int64_t tensors = 0, storages = 0;  // distinct identity and alias classes
    sc.classes.assign(nv + 1, 0);
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      const VarObs& o = after.vars[static_cast<size_t>(v)];
      const Tensor* t = reference->reference_tensor(v);
      if (!o.live || !t || (*t)->is_meta()) continue;
      uint8_t& ti = sc.classes.at(slot(o.identity_class));
      tensors += (ti & 1) == 0;
      ti |= 1;
      uint8_t& sa = sc.classes.at(slot(o.alias_class));
      storages += (sa & 2) == 0;
      sa |= 2;
    }
    // A live sparse variable's parts are alive through it: the compressed
    // constructors keep their inputs themselves (Note [Compressed parts are
    // the inputs] in impl/sparse.cpp), so a dropped input converted earlier
    // keeps its entry (found by fake_fuzzer).
    std::vector<const TensorImpl*>& parts = sc.parts;
    parts_held_by_sparse(after, &parts);
    std::vector<const TensorImpl*>& impls = sc.impls;
    impls.clear();
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      const Tensor* t = reference->reference_tensor(v);
      if (after.vars[static_cast<size_t>(v)].live && t && !(*t)->is_meta())
        impls.push_back(t->get());
    }
    std::sort(impls.begin(), impls.end());
    for (const TensorImpl* part : parts)
      tensors += !std::binary_search(impls.begin(), impls.end(), part) &&
                 conv->converted_storage(part) != nullptr;
    MemoStats s = conv->stats();
    if (s.tensors != tensors)
      return fail(why, "F3: the memo holds " + std::to_string(s.tensors) + " tensor entries for " +
                           std::to_string(tensors) +
                           " live tensors (a strong reference keeps dead tensors)");
    conv->sweep();
    s = conv->stats();
    // The storages the live tensors' memo entries name: each tensor's
    // storage, or, for a tensor set_ moved after its conversion, the one it
    // was converted from (its entry keeps that storage's entry, dead or
    // not, until the tensor dies, as PyTorch's converters do). An alive
    // converted storage no entry names is pending (a sparse variable's part,
    // or the new storage of a moved tensor); a dead one still named counts.
    std::vector<const Storage*>& named = sc.named;
    named.clear();
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      const Tensor* t = reference->reference_tensor(v);
      if (!after.vars[static_cast<size_t>(v)].live || !t || (*t)->is_meta()) continue;
      if (const Storage* from = conv->converted_storage(t->get())) named.push_back(from);
    }
    for (const TensorImpl* part : parts)
      if (const Storage* from = conv->converted_storage(part)) named.push_back(from);
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    int64_t alive = 0, held = 0;  // the map's keys are distinct storages
    for (const auto& entry : *converted) {
      if (entry.second.expired()) continue;
      ++alive;
      held += !std::binary_search(named.begin(), named.end(), entry.first);
    }
    int64_t pinned = 0;
    for (const Storage* k : named) {
      auto c = converted->find(k);
      pinned += c == converted->end() || c->second.expired();
    }
    if (s.storages != alive + pinned || s.pending != held)
      return fail(why, "F3: after a sweep the memo holds " + std::to_string(s.storages) +
                           " storage entries (" + std::to_string(s.pending) + " pending) for " +
                           std::to_string(storages) + " live storages of variables, " +
                           std::to_string(held) + " alive but named by no live tensor's entry " +
                           "(parts of sparse variables, new storages of tensors set_ moved) and " +
                           std::to_string(pinned) + " dead ones named by tensors set_ moved");
    return true;
  }
};

// The program's own conversions (steps `fake`, `meta`; impl/fake.h), checked
// on the reference's tensors with weak references, so the check keeps nothing
// alive. Per converter it remembers each conversion (real tensor -> result)
// and each real storage's meta storage.
// kFakeMemoIdentity (F1, F2): a conversion keeps sizes, strides, offset and
// dtype; converting a real tensor whose earlier result is still alive gives
// that very result; a real storage whose meta storage is alive maps to it.
// kFakeEmptiedZeroBytes (F2): a meta storage first seen at this step has the
// real storage's nbytes (0 for an emptied one).
// kFakeSweepFrees (F3): after every step the memo's tensor entries are the
// converted real tensors still bound to a variable; after `sweep` its
// storage entries are the converted real storages such tensors, or the
// parts of a live sparse variable, still use.
// kFakeUnsupportedTyped (F4): a conversion step that fails raises
// unsupported_fake_tensor (or a budget error) and leaves both memos as they were.
struct ConversionHook {
  const Backend* reference;
  Invariant inv;
  struct Conv {
    /// A conversion: the real tensor, its result, and the real storage it
    /// had then (set_ may move the tensor to another one later).
    struct Converted {
      WeakRc<TensorImpl> real, result;
      WeakRc<Storage> from;
    };
    std::vector<Converted> tensors;
    std::map<const Storage*, std::pair<WeakRc<Storage>, WeakRc<Storage>>> storages;
    std::vector<std::weak_ptr<SparseTensorImpl>> sparse;  ///< converted real sparse tensors
  };
  std::shared_ptr<std::array<Conv, 2>> conv;  ///< [0] meta, [1] fake
  /// The F3 check's tables, kept for their capacity across steps.
  struct Scratch {
    std::vector<const TensorImpl*> bound, alive;
    std::vector<const Storage*> bound_storages;
    std::vector<const SparseTensorImpl*> bound_sparse, alive_sparse;
  };
  std::shared_ptr<Scratch> scratch = std::make_shared<Scratch>();

  static bool is_conversion(OpId op) {
    return op == OpId::kMeta || op == OpId::kFake || op == OpId::kFakeFromMeta ||
           op == OpId::kToMeta;
  }

  bool operator()(const Program& p, size_t k, const Observation& before, const Observation& after,
                  std::string* why) {
    if (!reference) return true;
    if (k == 0 || !conv) conv = std::make_shared<std::array<Conv, 2>>();
    const Step& s = p.steps[k];
    if (inv == Invariant::kFakeUnsupportedTyped) {
      if (!is_conversion(s.op) || after.error == ErrorKind::kNone) return true;
      // unsupported_layout: the layout policy (oracles/layout_policy.h) refuses
      // the step before any converter sees it (fake_from_meta of a sparse
      // fake; found by the CI fuzz smoke run); the memo check below still holds.
      if (after.error != ErrorKind::kUnsupportedFakeTensor &&
          after.error != ErrorKind::kUnsupportedLayout && !allocation_error(after.error))
        return fail(why, "F4: " + std::string(s.info().name) + " failed with " +
                             std::string(error_kind_name(after.error)) +
                             ", expected unsupported_fake_tensor");
      if (before.memo_known && after.memo_known &&
          (!(before.fake_memo == after.fake_memo) || !(before.meta_memo == after.meta_memo)))
        return fail(why, "F4: a refused " + std::string(s.info().name) + " changed the memo");
      return true;
    }
    if ((s.op == OpId::kMeta || s.op == OpId::kFake) && after.error == ErrorKind::kNone) {
      if (const SparseTensor* sp = reference->reference_sparse(s.args[0].var))
        (*conv)[s.op == OpId::kFake ? 1 : 0].sparse.push_back(*sp);  // F3, below
      const Tensor* in = reference->reference_tensor(s.args[0].var);
      const Tensor* out = reference->reference_tensor(s.out);
      if (!in || !out) return true;
      Conv& c = (*conv)[s.op == OpId::kFake ? 1 : 0];
      const std::string& name = p.var_names[static_cast<size_t>(s.out)];
      if (inv == Invariant::kFakeMemoIdentity) {
        const Geometry& g = (*in)->geom;
        const Geometry& m = (*out)->geom;
        bool same = g.rank == m.rank && g.offset == m.offset && (*in)->dtype == (*out)->dtype;
        for (int d = 0; same && d < g.rank; ++d)
          same = g.sizes[d] == m.sizes[d] && g.strides[d] == m.strides[d];
        bool earlier = false;
        for (const auto& e : c.tensors) {
          if (e.real.lock() != *in) continue;
          earlier = true;
          if (auto r = e.result.lock(); r && r != *out)
            return fail(why, "F2: " + name + " is another tensor than the live earlier " +
                                 "conversion of the same real tensor");
        }
        if (!same && !earlier)
          return fail(why, "F1: " + name + " has other sizes, strides, offset or dtype than " +
                               p.var_names[static_cast<size_t>(s.args[0].var)]);
      }
      // The very result of an earlier conversion of this real tensor (F2's
      // memo): its storage was checked when it was made. After set_ moved
      // the real tensor to another storage, it still stands for the old one.
      const bool memo_hit = std::any_of(c.tensors.begin(), c.tensors.end(), [&](const auto& e) {
        return e.real.lock() == *in && e.result.lock() == *out;
      });
      if (!memo_hit) {
        auto found = c.storages.find((*in)->storage.get());
        if (found != c.storages.end() && found->second.first.lock() == (*in)->storage) {
          auto meta = found->second.second.lock();
          if (inv == Invariant::kFakeMemoIdentity && meta && meta != (*out)->storage)
            return fail(why, "F2: " + name + " has another fake storage than earlier " +
                                 "conversions of tensors sharing its real storage");
        } else {
          if (inv == Invariant::kFakeEmptiedZeroBytes &&
              (*out)->storage->nbytes() != (*in)->storage->nbytes())
            return fail(why, "F2: the fake storage of " + name + " has " +
                                 std::to_string((*out)->storage->nbytes()) +
                                 " bytes, the real one " +
                                 std::to_string((*in)->storage->nbytes()));
          c.storages[(*in)->storage.get()] = {(*in)->storage, (*out)->storage};
        }
        c.tensors.push_back({*in, *out, (*in)->storage});
      }
    }
    if (inv != Invariant::kFakeSweepFrees || !after.memo_known) return true;
    // Alive means bound to a live variable: a leaking memo keeps its real
    // tensors alive, so a weak reference alone would not see the leak.
    // Nothing converted yet (most steps of most programs): every count must
    // be 0, which needs no table (this hook runs after every fuzzed step).
    const bool none_converted = std::all_of(conv->begin(), conv->end(), [](const Conv& c) {
      return c.tensors.empty() && c.sparse.empty() && c.storages.empty();
    });
    if (none_converted) {
      for (const MemoStats* m : {&after.meta_memo, &after.fake_memo}) {
        const char* conv_name = m == &after.fake_memo ? "fake" : "meta";
        if (m->tensors != 0 || m->sparse != 0)
          return fail(why, std::string("F3: the ") + conv_name + " memo holds " +
                               std::to_string(m->tensors) + " tensor and " +
                               std::to_string(m->sparse) +
                               " sparse entries while nothing was converted");
        if (s.op == OpId::kSweep && after.error == ErrorKind::kNone && m->storages != 0)
          return fail(why, std::string("F3: after a sweep the ") + conv_name + " memo holds " +
                               std::to_string(m->storages) +
                               " storage entries while nothing was converted");
      }
      return true;
    }
    // Sorted vectors, not sets: a few dozen pointers, looked up by binary search.
    auto& bound = scratch->bound;
    auto& bound_storages = scratch->bound_storages;
    auto& bound_sparse = scratch->bound_sparse;
    bound.clear();
    bound_storages.clear();
    bound_sparse.clear();
    for (VarId v = 0; v < static_cast<VarId>(after.vars.size()); ++v) {
      if (!after.vars[static_cast<size_t>(v)].live) continue;
      if (const SparseTensor* sp = reference->reference_sparse(v)) {
        bound_sparse.push_back(sp->get());
        // Its parts' storages are alive through it (found by the CI fuzz
        // smoke run: a fake of indices(), then drop of that variable).
        // Its parts are too: the compressed constructors keep their inputs
        // themselves (Note [Compressed parts are the inputs], impl/sparse.cpp).
        for (const Tensor* part : {&(*sp)->indices, &(*sp)->compressed_indices,
                                   &(*sp)->plain_indices, &(*sp)->values})
          if (*part) {
            bound_storages.push_back((*part)->storage.get());
            bound.push_back(part->get());
          }
      }
      const Tensor* t = reference->reference_tensor(v);
      if (!t) continue;
      bound.push_back(t->get());
      bound_storages.push_back((*t)->storage.get());
    }
    auto sort_unique = [](auto& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    auto has = [](const auto& v, const auto* x) {
      return std::binary_search(v.begin(), v.end(), x);
    };
    sort_unique(bound);
    sort_unique(bound_storages);
    sort_unique(bound_sparse);
    for (int which = 0; which < 2; ++which) {
      Conv& c = (*conv)[static_cast<size_t>(which)];
      auto& alive = scratch->alive;
      alive.clear();
      for (const auto& e : c.tensors)
        if (auto t = e.real.lock(); t && has(bound, t.get())) alive.push_back(t.get());
      sort_unique(alive);
      const MemoStats& m = which ? after.fake_memo : after.meta_memo;
      const char* conv_name = which ? "fake" : "meta";
      if (m.tensors != static_cast<int64_t>(alive.size()))
        return fail(why, std::string("F3: the ") + conv_name + " memo holds " +
                             std::to_string(m.tensors) + " tensor entries for " +
                             std::to_string(alive.size()) + " live converted tensors");
      auto& alive_sparse = scratch->alive_sparse;
      alive_sparse.clear();
      for (const auto& e : c.sparse)
        if (auto t = e.lock(); t && has(bound_sparse, t.get())) alive_sparse.push_back(t.get());
      sort_unique(alive_sparse);
      if (m.sparse != static_cast<int64_t>(alive_sparse.size()))
        return fail(why, std::string("F3: the ") + conv_name + " memo holds " +
                             std::to_string(m.sparse) + " sparse entries for " +
                             std::to_string(alive_sparse.size()) + " live converted sparse tensors");
      if (s.op != OpId::kSweep || after.error != ErrorKind::kNone) continue;
      int64_t storages = 0;
      for (const auto& e : c.storages) {
        auto st = e.second.first.lock();
        storages += st && has(bound_storages, st.get()) ? 1 : 0;
      }
      // A live converted tensor that set_ moved keeps the entry of the
      // storage it was converted from, dead or not (PyTorch's converters
      // drop it at the tensor's death): once per dead storage.
      std::vector<WeakRc<Storage>> pinned;
      for (const auto& e : c.tensors) {
        auto t = e.real.lock();
        if (!t || !has(bound, t.get()) || !e.from.expired()) continue;
        const bool seen = std::any_of(pinned.begin(), pinned.end(), [&](const auto& p) {
          return !p.owner_before(e.from) && !e.from.owner_before(p);
        });
        if (!seen) pinned.push_back(e.from);
      }
      storages += static_cast<int64_t>(pinned.size());
      if (m.storages != storages)
        return fail(why, std::string("F3: after a sweep the ") + conv_name + " memo holds " +
                             std::to_string(m.storages) + " storage entries for " +
                             std::to_string(storages) +
                             " live converted storages (and dead ones of tensors set_ moved)");
    }
    return true;
  }
};

using StatelessCheck = bool (*)(const Program&, const Step&, const Observation&,
                                const Observation&, std::string*);

StepHook stateless(StatelessCheck check) {
  return [check](const Program& p, size_t k, const Observation& before, const Observation& after,
                 std::string* why) { return check(p, p.steps[k], before, after, why); };
}

}  // namespace

// kSparseFakeMetadata (F4, F8, F2), on the observations alone: a successful
// `fake`, `meta` or `to_meta` of a sparse variable gives a sparse variable of
// the same layout, sizes, dtype, sparse_dim, dense_dim, coalesced flag,
// blocksize and index dtype; nnz 0 for `fake` (PyTorch's converter), the
// input's nnz for `meta` (the faithful MetaConverter) and `to_meta` (F8);
// a fake reports the real device and `meta`/`to_meta` the meta device; and
// converting the same live sparse variable again with the same converter
// gives the very same tensor (F2: equal identity classes).
struct SparseMetadataHook {
  /// (op, input variable) -> the variable its last conversion bound.
  std::shared_ptr<std::map<std::pair<OpId, VarId>, VarId>> earlier;

  bool operator()(const Program& p, size_t k, const Observation& before, const Observation& after,
                  std::string* why) {
    if (k == 0 || !earlier) earlier = std::make_shared<std::map<std::pair<OpId, VarId>, VarId>>();
    const Step& s = p.steps[k];
    if (s.op != OpId::kFake && s.op != OpId::kMeta && s.op != OpId::kToMeta) return true;
    if (after.error != ErrorKind::kNone || after.skipped) return true;
    const VarId in_var = s.args[0].var;
    const VarObs& in = before.vars[static_cast<size_t>(in_var)];
    const VarObs& out = after.vars[static_cast<size_t>(s.out)];
    if (!in.live || !is_sparse(in.layout)) return true;
    const std::string op(s.info().name);
    const std::string name = p.var_names[static_cast<size_t>(s.out)];
    auto differs = [&](const char* field, const std::string& want, const std::string& got) {
      return fail(why, std::string(s.op == OpId::kToMeta ? "F8: " : "F4: ") + op + " " + name +
                           ": " + field + " " + got + ", expected " + want + " (the input's)");
    };
    auto num = [](int64_t x) { return std::to_string(x); };
    if (out.layout != in.layout)
      return differs("layout", std::string(layout_name(in.layout)), std::string(layout_name(out.layout)));
    bool same_sizes = out.rank == in.rank;
    for (int d = 0; same_sizes && d < in.rank; ++d) same_sizes = out.sizes[d] == in.sizes[d];
    if (!same_sizes) return differs("sizes", "rank " + num(in.rank), "rank " + num(out.rank));
    if (out.dtype != in.dtype)
      return differs("dtype", std::string(dtype_name(in.dtype)), std::string(dtype_name(out.dtype)));
    if (out.sparse_dim != in.sparse_dim) return differs("sparse_dim", num(in.sparse_dim), num(out.sparse_dim));
    if (out.dense_dim != in.dense_dim) return differs("dense_dim", num(in.dense_dim), num(out.dense_dim));
    if (out.coalesced != in.coalesced)
      return differs("coalesced", in.coalesced ? "true" : "false", out.coalesced ? "true" : "false");
    if (out.blocksize != in.blocksize)
      return differs("blocksize", num(in.blocksize[0]) + "x" + num(in.blocksize[1]),
                     num(out.blocksize[0]) + "x" + num(out.blocksize[1]));
    if (out.index_dtype != in.index_dtype)
      return differs("index_dtype", std::string(dtype_name(in.index_dtype)),
                     std::string(dtype_name(out.index_dtype)));
    const int64_t nnz = s.op == OpId::kFake ? 0 : in.nnz;
    if (out.nnz != nnz) return differs("nnz", num(nnz), num(out.nnz));
    const bool fake = s.op == OpId::kFake;
    if (out.fake != fake || (out.device == Device::kMeta) == fake)
      return fail(why, "F1: " + op + " " + name + " is on the wrong device (fake " +
                           (out.fake ? "yes" : "no") + ")");
    if (s.op == OpId::kToMeta) return true;  // F8: a fresh tensor every time
    auto found = earlier->find({s.op, in_var});
    if (found != earlier->end() && after.vars[static_cast<size_t>(found->second)].live &&
        after.vars[static_cast<size_t>(found->second)].identity_class != out.identity_class)
      return fail(why, "F2: " + op + " " + name + " is another tensor than the live earlier " +
                           "conversion " + p.var_names[static_cast<size_t>(found->second)] +
                           " of the same sparse tensor");
    (*earlier)[{s.op, in_var}] = s.out;
    return true;
  }
};

StepHook make_all_invariants_hook(const Backend* reference) {
  std::vector<StepHook> hooks;
  for (Invariant inv : {Invariant::kCloneGivesZeros, Invariant::kInputStaysEmptied,
                        Invariant::kBoundsCheckedRaise, Invariant::kRehydrateKeepsAliasing,
                        Invariant::kReshrinkToZero, Invariant::kUndersizedNotRestored,
                        Invariant::kNoCopyUntilWrite, Invariant::kLastSharerTakesOwnership,
                        Invariant::kRefcountMatchesSharers, Invariant::kViewsMaterializeOnce,
                        Invariant::kForeignOwnerRaises, Invariant::kFakeAliasing,
                        Invariant::kFakeMemoWeak, Invariant::kFakeMemoIdentity,
                        Invariant::kFakeEmptiedZeroBytes, Invariant::kFakeSweepFrees,
                        Invariant::kFakeUnsupportedTyped, Invariant::kSparseFakeMetadata})
    hooks.push_back(make_invariant_hook(inv, reference));
  return [hooks = std::move(hooks)](const Program& p, size_t k, const Observation& before,
                                    const Observation& after, std::string* why) mutable {
    for (StepHook& h : hooks)
      if (!h(p, k, before, after, why)) return false;
    return true;
  };
}

StepHook make_invariant_hook(Invariant inv, const Backend* reference) {
  switch (inv) {
    case Invariant::kFakeAliasing: return FakeHook{reference, false, {}, {}, {}, {}};
    case Invariant::kFakeMemoWeak: return FakeHook{reference, true, {}, {}, {}, {}};
    case Invariant::kFakeMemoIdentity:
    case Invariant::kFakeEmptiedZeroBytes:
    case Invariant::kFakeSweepFrees:
    case Invariant::kFakeUnsupportedTyped: return ConversionHook{reference, inv, nullptr};
    case Invariant::kSparseFakeMetadata: return SparseMetadataHook{nullptr};
    case Invariant::kCloneGivesZeros: return stateless(clone_gives_zeros);
    case Invariant::kInputStaysEmptied: return stateless(input_stays_emptied);
    case Invariant::kBoundsCheckedRaise: return stateless(bounds_checked_raise);
    case Invariant::kRehydrateKeepsAliasing: return stateless(rehydrate_keeps_aliasing);
    case Invariant::kReshrinkToZero: return ReshrinkHook{};
    case Invariant::kUndersizedNotRestored: return stateless(undersized_not_restored);
    case Invariant::kNoCopyUntilWrite: return stateless(no_copy_until_write);
    case Invariant::kLastSharerTakesOwnership: return stateless(last_sharer_takes_ownership);
    case Invariant::kRefcountMatchesSharers: return stateless(refcount_matches_sharers);
    case Invariant::kViewsMaterializeOnce: return stateless(views_materialize_once);
    case Invariant::kForeignOwnerRaises: return stateless(foreign_owner_raises);
  }
  return {};
}

}  // namespace storcheck
