#include "oracles/runner.h"

#include <algorithm>

#include "program/text_format.h"

namespace storcheck {

std::string Divergence::to_string(const Program& p) const {
  std::string s = "step " + std::to_string(step);
  if (step >= 1 && step <= static_cast<int64_t>(p.steps.size()))
    s += " (" + print_step(p, p.steps[static_cast<size_t>(step - 1)]) + ")";
  if (mismatch.field == "invariant") return s + ": invariant broken: " + mismatch.a;
  s += ": " + mismatch.field;
  if (mismatch.var != kNoVar && mismatch.var < p.num_vars()) s += " of " + p.var_names[mismatch.var];
  s += ": " + backend_a + " " + mismatch.a + " vs " + backend_b + " " + mismatch.b;
  return s;
}

// Note [Incremental observation]
// Observing and comparing every variable after every step costs O(steps x
// variables) per program: 256-step programs cost 50 times 16-step ones
// (issue 8 asks for at most 20). So after a step the backends observe, and
// the runner compares, only the variables the step can have changed:
// 1) its operands (a drop's target included) and its result variable
//    (but see rule 7);
// 2) every live variable that shares a storage (alias class), a tensor
//    object (identity class) or a data address (data class, COW sharers)
//    with one of those, as the last observation says, the result variable's
//    previous binding included: a write, an in-place view op, a storage op,
//    a COW materialization or a release changes them, and a class's
//    smallest member (its id) changes when a member is bound or dropped.
// The set holds the id (smallest member) of every class of each variable
// in it, so each backend computes the class ids over it alone. Every
// variable is observed and compared (a "full" observation) after a step
// whose set holds a sparse-tainted variable (rule 3), after rehydrate and
// reshrink while a sparse-tainted variable lives (rule 5), periodically,
// and after the last step: a backend that changes what the step cannot is
// still caught, by the next full observation. The period is kFullEvery (32)
// run steps, or as many steps as there were live variables at the last
// observation when that is more, up to kFullEveryMax (256): a full
// observation costs one observation per live variable, and spread over
// that many steps it adds a constant per step, where every 32 steps it grew
// with the program's live variables (a tenth of a 256-step program's time,
// issue 8). A step's own set is still observed and compared right after it;
// only a change a backend makes outside it is reported later, at most
// kFullEveryMax steps after.
// 3) A sparse tensor's parts share one version counter across their
//    storages (a write through values() bumps the version of
//    row_indices()), and their storages are no variable's class (found by
//    the lockstep test in harness/incremental_test.cpp). So a variable is
//    sparse-tainted when it is an operand or the result of a sparse step
//    (sparse_coo_tensor's operands become the parts), the result of a step
//    with a tainted operand, or shares a class with a tainted variable at
//    an observation; taint never goes. Every variable that can share a
//    storage or a version counter with a part is tainted before it can be
//    written, so a step whose set has no tainted variable cannot reach a
//    part.
// 4) A conversion's memo may return the tensor or the storage of any
//    earlier conversion (`t2 = meta t0` is t1 when `t1 = meta t0` came
//    first). Conversion-tainted variables (the results of conversions,
//    then as in rule 3: derived results and class members) are all seeds
//    of a conversion step.
// 5) rehydrate acts on every storage of a live emptied tensor, reshrink on
//    every storage rehydrate restored since the last reshrink. Their seeds
//    are the variables whose storage had 0 bytes at the last observation
//    (a superset of the emptied ones), resp. the restore-tainted ones: the
//    variables of a rehydrate's set, then as in rule 3; a reshrink that
//    succeeds clears that taint. A sparse tensor's part can be such a
//    storage without a variable (its values input dropped), so while a
//    sparse-tainted variable lives these two steps observe in full.
// 6) A view shares its base's version counter (S2), and set_ moves a
//    tensor to another storage with its own counter: a view of self taken
//    before keeps that counter on the old storage (PyTorch does the same).
//    A version counter is then shared across storages, which no class
//    follows. So the runner keeps a counter group per variable (counter_):
//    a variable bound to a tensor another variable holds (identity class:
//    contiguous returning self, a converter's memo hit) joins that one's
//    group; one created over the storage of its first operand (same alias
//    class right after its step: a view, an alias) joins that operand's;
//    any other starts its own; set_ changes no group. After a set_ step
//    (failed ones too: a non-resizable storage raises after self moved)
//    every operand's group members are seeds. Found by the lockstep test
//    in harness/incremental_test.cpp when set_ joined the language; a first
//    version observed every write in full after a set_, and 256-step
//    programs cost 25.7 times 16-step ones.
// 7) A step that writes nothing (writes_no_operand: factories, views,
//    device copies, out-of-place compute but lazy_clone, which makes its
//    input COW) changes none of its operands, nor the variables sharing
//    their classes. Its result may join an operand's classes (a view its
//    storage and data address, contiguous or `to` of itself its tensor),
//    so for each class of each operand the set holds the class's id (its
//    smallest member): the backends, numbering classes over the set
//    alone, then give the result the right id. Only when the result's
//    VarId is smaller than that id does the id of every member change, and
//    the whole class is in the set, as rule 2 would put it. Rule 2 put
//    every member of an operand's classes in the set: with many views of
//    one base, each further view observed all of them (issue 8).
// (Until 2026-11 every step after the first sparse step, every conversion
// and every rehydrate and reshrink observed in full: 15% of the steps of
// 256-step programs and 72% of the variables observed.)
// Element values are read again only where the step could have changed
// them: every observed variable after a step that writes data or changes a
// storage or a tensor's geometry in place (categories kInplace,
// kInplaceView, kStorage), else only the step's new variable; data
// addresses (COW materialization) are metadata.
constexpr int64_t kFullEvery = 32, kFullEveryMax = 256;

static ObserveScope scope_of(const Step& step) {
  ObserveScope scope;
  switch (step.info().category) {
    case OpCategory::kFactory:
    case OpCategory::kView:
    case OpCategory::kCompute:
    case OpCategory::kDevice:
    case OpCategory::kConvert:
    case OpCategory::kSparse:  // reads its operand; a write through values() is kInplace
    case OpCategory::kLifetime:
      scope.all_values = false;
      scope.fresh = step.out;
      break;
    default: break;
  }
  return scope;
}

bool Runner::dirty_vars(const Step& step) {
  // Rules 3 and 4: taint by derivation, before any early return.
  const OpCategory cat = step.info().category;
  uint8_t from_operands = cat == OpCategory::kSparse    ? kSparseTaint
                          : cat == OpCategory::kConvert ? kConvertTaint
                                                        : 0;
  for (int a = 0; a < step.nargs; ++a) {
    if (step.args[a].kind != ArgKind::kVar) continue;
    const VarId v = step.args[a].var;
    if (cat == OpCategory::kSparse) add_taint(v, kSparseTaint);
    from_operands |= taint_[static_cast<size_t>(v)];
  }
  if (step.out != kNoVar) add_taint(step.out, from_operands);
  const bool restore = step.op == OpId::kRehydrate || step.op == OpId::kReshrink;
  // Rule 5's full observation comes after the set is built: a rehydrate
  // observed in full must still restore-taint its set, or a reshrink after
  // the sparse variable's drop observes none of it (found by fake_fuzzer:
  // a stale 16-byte storage read as R5 broken).
  const bool full_restore = restore && sparse_live();
  if (step.op == OpId::kSet_) version_split_ = true;  // rule 6
  // Rules 1 and 2, over the class member lists: the cost is the size of
  // the set, not the number of variables.
  dirty_.clear();
  auto seed = [&](VarId v) {
    if (v == kNoVar) return;
    add_dirty(v);
    for_classes(v, [&](VarId m) { add_dirty(m); });
  };
  // Rule 7: the operands of a step that writes nothing do not change; only
  // the ids of the classes the result may join are needed, or the whole
  // class when the result's VarId would become its id.
  auto seed_unchanged = [&](VarId v) {
    const size_t k = static_cast<size_t>(v);
    if (!live_[k]) return;
    for (int c = 0; c < kClassKinds; ++c) {
      const int32_t id = links_[k].cls[c];
      if (id < 0) continue;
      if (step.out != kNoVar && step.out < id) {
        for_class(c, id, [&](VarId m) { add_dirty(m); });
      } else {
        add_dirty(static_cast<VarId>(id));
      }
    }
  };
  const bool writes_nothing = writes_no_operand(step);
  for (int a = 0; a < step.nargs; ++a)
    if (step.args[a].kind == ArgKind::kVar)
      writes_nothing ? seed_unchanged(step.args[a].var) : seed(step.args[a].var);
  seed(step.out);
  if (cat == OpCategory::kConvert)  // rule 4
    for (VarId v : converted_)
      if (live_[static_cast<size_t>(v)]) seed(v);
  if (restore)  // rule 5
    for (size_t k = 0; k < live_.size(); ++k)
      if (live_[k] && (step.op == OpId::kRehydrate ? empty_[k] != 0
                                                   : (taint_[k] & kRestoreTaint) != 0))
        seed(static_cast<VarId>(k));
  if (version_split_)  // rule 6
    for (int a = 0; a < step.nargs; ++a) {
      if (step.args[a].kind != ArgKind::kVar) continue;
      const VarId g = counter_[static_cast<size_t>(step.args[a].var)];
      for (size_t k = 0; k < live_.size(); ++k)
        if (live_[k] && counter_[k] == g) seed(static_cast<VarId>(k));
    }
  clear_marks();
  if (step.op == OpId::kRehydrate)
    for (VarId v : dirty_) add_taint(v, kRestoreTaint);
  if (full_restore) return false;  // rule 5
  if (taints_seen_ & kSparseTaint)
    for (VarId v : dirty_)
      if (taint_[static_cast<size_t>(v)] & kSparseTaint) return false;  // rule 3
  std::sort(dirty_.begin(), dirty_.end());  // backends number classes in VarId order
  return true;
}

bool Runner::sparse_live() const {
  if (!(taints_seen_ & kSparseTaint)) return false;
  for (size_t k = 0; k < live_.size(); ++k)
    if (live_[k] && (taint_[k] & kSparseTaint)) return true;
  return false;
}

void Runner::add_taint(VarId v, uint8_t taint) {
  uint8_t& t = taint_[static_cast<size_t>(v)];
  if ((taint & kConvertTaint) && !(t & kConvertTaint)) converted_.push_back(v);
  t |= taint;
  taints_seen_ |= taint;
}

template <typename F>
void Runner::for_classes(VarId v, F&& f) {
  const size_t k = static_cast<size_t>(v);
  if (!live_[k]) return;
  for (int c = 0; c < kClassKinds; ++c) {
    const int32_t id = links_[k].cls[c];
    if (id >= 0) for_class(c, id, f);
  }
}

template <typename F>
void Runner::for_class(int c, int32_t id, F&& f) {
  uint8_t& m = mark_[static_cast<size_t>(id)];
  const uint8_t bit = static_cast<uint8_t>(2 << c);
  if (m & bit) return;  // this class's members were visited already
  if (m == 0) marked_.push_back(id);
  m |= bit;
  for (int32_t w = links_[static_cast<size_t>(id)].head[c]; w >= 0;
       w = links_[static_cast<size_t>(w)].next[c])
    f(static_cast<VarId>(w));
}

bool writes_no_operand(const Step& step) {
  switch (step.info().category) {
    case OpCategory::kFactory:
    case OpCategory::kView:
    case OpCategory::kDevice:
      return true;
    case OpCategory::kCompute:
      return step.op != OpId::kLazyClone;  // C1: its input turns COW
    default:
      return false;
  }
}

void Runner::clear_marks() {
  for (VarId v : marked_) mark_[static_cast<size_t>(v)] = 0;
  marked_.clear();
}

void Runner::note_classes(const Observation& o, const std::vector<VarId>* vars) {
  auto note = [&](size_t k) {
    const VarObs& v = o.vars[k];
    if ((live_[k] != 0) != v.live) live_count_ += v.live ? 1 : -1;
    live_[k] = v.live;
    empty_[k] = v.live && v.layout == Layout::kStrided && v.storage_nbytes == 0;
    const int32_t now[kClassKinds] = {v.live ? v.alias_class : -1, v.live ? v.identity_class : -1,
                                      v.live ? v.data_class : -1};
    for (int c = 0; c < kClassKinds; ++c) {
      ClassLinks& me = links_[k];
      if (me.cls[c] == now[c]) continue;
      if (me.cls[c] >= 0) {  // unlink from the old class's list
        if (me.prev[c] >= 0)
          links_[static_cast<size_t>(me.prev[c])].next[c] = me.next[c];
        else
          links_[static_cast<size_t>(me.cls[c])].head[c] = me.next[c];
        if (me.next[c] >= 0) links_[static_cast<size_t>(me.next[c])].prev[c] = me.prev[c];
      }
      me.cls[c] = now[c];
      me.prev[c] = me.next[c] = -1;
      if (now[c] >= 0) {  // push to the front of the new class's list
        int32_t& head = links_[static_cast<size_t>(now[c])].head[c];
        me.next[c] = head;
        if (head >= 0) links_[static_cast<size_t>(head)].prev[c] = static_cast<int32_t>(k);
        head = static_cast<int32_t>(k);
      }
    }
  };
  const size_t n = std::min(o.vars.size(), live_.size());
  auto each_observed = [&](auto&& f) {
    if (vars) {
      for (VarId v : *vars) f(static_cast<size_t>(v));
    } else {
      for (size_t k = 0; k < n; ++k) f(k);
    }
  };
  each_observed(note);
  // Rules 3 to 5: a class with a tainted member taints every member with
  // that taint. The observed set holds whole classes (the closure).
  for (uint8_t taint : {kSparseTaint, kConvertTaint, kRestoreTaint}) {
    if (!(taints_seen_ & taint)) continue;  // most programs taint nothing (issue 8)
    each_observed([&](size_t k) {
      if (!(taint_[k] & taint)) return;
      for_classes(static_cast<VarId>(k), [&](VarId m) { add_taint(m, taint); });
    });
    clear_marks();
  }
}

RunReport Runner::run(const Program& program, bool keep_trace, const StepHook& hook) {
  RunReport rep;
  const size_t nb = backends_.size();
  obs_.resize(nb);
  if (!program.steps.empty()) prefetch_step(program.steps[0]);
  for (Backend* b : backends_) b->begin(program, limits_);
  for (Observation& o : obs_) o.vars.clear();  // a new program: nothing observed yet
  std::vector<char> bound(static_cast<size_t>(program.num_vars()), 0);
  // Ends the run at step k + 1 with `m` between backends a and b.
  auto diverge = [&](size_t k, std::string_view a, std::string_view b, Mismatch m) {
    rep.diverged = true;
    rep.divergence.step = static_cast<int64_t>(k + 1);
    rep.divergence.backend_a = std::string(a);
    rep.divergence.backend_b = std::string(b);
    rep.divergence.mismatch = std::move(m);
    rep.last = obs_;
    return rep;
  };
  // A broken rule (field "invariant") or another finding of one backend.
  auto finding = [](std::string_view field, std::string a, std::string b) {
    Mismatch m;
    m.field = std::string(field);
    m.a = std::move(a);
    m.b = std::move(b);
    return m;
  };
  if (hook) {
    before_ = Observation{};
    before_.vars.assign(static_cast<size_t>(program.num_vars()), VarObs{});
  }
  const size_t nv = static_cast<size_t>(program.num_vars());
  live_.assign(nv, 0);
  empty_.assign(nv, 0);
  mark_.assign(nv, 0);
  links_.assign(nv, ClassLinks{});
  converted_.clear();
  version_split_ = false;
  counter_.resize(nv);
  for (size_t k = 0; k < nv; ++k) counter_[k] = static_cast<VarId>(k);
  taint_.assign(nv, 0);
  taints_seen_ = 0;
  bool last_full = true;  // nothing observed yet
  int64_t last_full_at = 0;  // steps_run at the last full observation
  live_count_ = 0;
  size_t last_run = 0;
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const Step& step = program.steps[k];
    if (k + 1 < program.steps.size()) prefetch_step(program.steps[k + 1]);
    TraceLine line;
    line.step = static_cast<int64_t>(k + 1);
    if (reads_unbound(step, bound)) {
      line.skipped = true;
      if (keep_trace) rep.trace.push_back(std::move(line));
      continue;
    }
    ++rep.steps_run;
    last_run = k;
    // Note [Incremental observation]
    const bool listed = dirty_vars(step);  // always: it also updates the taint (rule 3)
    const bool full = rep.steps_run - last_full_at >=
                          std::min(std::max(kFullEvery, live_count_), kFullEveryMax) ||
                      !listed;
    if (full) last_full_at = rep.steps_run;
    const std::vector<VarId>* only = full ? nullptr : &dirty_;
    last_full = full;
    ObserveScope scope = scope_of(step);
    scope.vars = only;
    for (size_t b = 0; b < nb; ++b) {
      Error e = backends_[b]->run_step(step);
      backends_[b]->observe(&obs_[b], scope);
      obs_[b].error = e.kind;
      obs_[b].error_message = std::move(e.message);
      obs_[b].skipped = false;
      if (keep_trace) {
        line.errors.push_back(obs_[b].error);
        line.messages.push_back(obs_[b].error_message);
      }
    }
    for (size_t b = 0; b < nb; ++b) {
      std::string why;
      if (!backends_[b]->take_refusal(&why)) continue;
      // --eager-unsafe: plain LibTorch crashing on the refused step is a
      // finding (Note [Crash-isolated unsafe mode], oracles/torch_backend.cpp).
      std::string unsafe = backends_[b]->take_unsafe_finding();
      if (!unsafe.empty()) {
        if (keep_trace) rep.trace.push_back(std::move(line));
        return diverge(k, backends_[0]->name(), backends_[b]->name(),
                       finding(backends_[b]->finding_field(), "(refused)", unsafe));
      }
      rep.refused_step = static_cast<int64_t>(k + 1);
      rep.refusal = "step " + std::to_string(k + 1) + " (" + print_step(program, step) + "): " +
                    std::string(backends_[b]->name()) + " refused: " + why;
      if (keep_trace) {
        rep.trace.push_back(std::move(line));
        rep.last = obs_;
      }
      return rep;
    }
    if (keep_trace && step.op == OpId::kMemoStats && nb > 0 && obs_[0].memo_known) {
      auto memo = [](const MemoStats& m) {
        return std::to_string(m.tensors) + " tensors, " + std::to_string(m.storages) +
               " storages (" + std::to_string(m.pending) + " pending), " +
               std::to_string(m.sparse) + " sparse";
      };
      line.note = "memo of fake: " + memo(obs_[0].fake_memo) + "; of meta: " + memo(obs_[0].meta_memo);
    }
    if (keep_trace) rep.trace.push_back(line);
    for (size_t b = 1; b < nb; ++b) {
      Mismatch m;
      if (!compare_observations(obs_[0], backends_[0]->capabilities(), obs_[b],
                                backends_[b]->capabilities(), &m, only))
        return diverge(k, backends_[0]->name(), backends_[b]->name(), std::move(m));
    }
    if (nb > 0) note_classes(obs_[0], only);
    if (nb > 0 && step.out != kNoVar && obs_[0].error == ErrorKind::kNone) {  // rule 6
      const VarObs& o = obs_[0].vars[static_cast<size_t>(step.out)];
      VarId g = step.out;
      if (o.live && o.identity_class >= 0 && o.identity_class != step.out) {
        g = counter_[static_cast<size_t>(o.identity_class)];  // the very tensor (a memo hit)
      } else if (step.nargs > 0 && step.args[0].kind == ArgKind::kVar) {
        const VarObs& in = obs_[0].vars[static_cast<size_t>(step.args[0].var)];
        if (o.live && in.live && o.alias_class >= 0 && o.alias_class == in.alias_class)
          g = counter_[static_cast<size_t>(step.args[0].var)];
      }
      counter_[static_cast<size_t>(step.out)] = g;
    }
    if (step.op == OpId::kReshrink && nb > 0 && obs_[0].error == ErrorKind::kNone)
      for (uint8_t& t : taint_) t &= static_cast<uint8_t>(~kRestoreTaint);  // rule 5
    if (hook) {
      std::string why;
      if (!hook(program, k, before_, obs_[0], &why))
        return diverge(k, backends_[0]->name(), "SEMANTICS", finding("invariant", why, ""));
      if (full) {
        before_ = obs_[0];
      } else {  // every field but the other variables, which are as they were
        std::vector<VarObs> kept = std::move(before_.vars), now = std::move(obs_[0].vars);
        before_ = obs_[0];
        obs_[0].vars = std::move(now);
        before_.vars = std::move(kept);
        before_.vars.resize(obs_[0].vars.size());
        for (VarId v : dirty_)
          before_.vars[static_cast<size_t>(v)] = obs_[0].vars[static_cast<size_t>(v)];
      }
    }
    for (size_t b = 0; b < nb; ++b) {
      std::string broken = backends_[b]->take_invariant_finding();
      if (!broken.empty())
        return diverge(k, backends_[b]->name(), "SEMANTICS", finding("invariant", broken, ""));
    }
    for (size_t b = 0; b < nb; ++b) {
      std::string unsafe = backends_[b]->take_unsafe_finding();
      if (!unsafe.empty())
        return diverge(k, backends_[0]->name(), backends_[b]->name(),
                       finding(backends_[b]->finding_field(), "(guarded)", unsafe));
    }
    bool failed = obs_[0].error != ErrorKind::kNone;
    if (failed) ++rep.steps_failed;
    if (step.out != kNoVar) bound[step.out] = failed ? 0 : 1;
    if (step.op == OpId::kDrop) bound[step.args[0].var] = 0;
  }
  // Note [Incremental observation]: a last full observation, unless the
  // last step's was one; a difference is reported at the last step run.
  if (!last_full) {
    for (size_t b = 0; b < nb; ++b) backends_[b]->observe(&obs_[b]);
    for (size_t b = 1; b < nb; ++b) {
      Mismatch m;
      if (!compare_observations(obs_[0], backends_[0]->capabilities(), obs_[b],
                                backends_[b]->capabilities(), &m))
        return diverge(last_run, backends_[0]->name(), backends_[b]->name(), std::move(m));
    }
  }
  if (keep_trace) rep.last = obs_;  // a copy per program is measurable (issue 8)
  return rep;
}

}  // namespace storcheck
