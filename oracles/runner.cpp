#include "oracles/runner.h"

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
// 1) its operands (a drop's target included) and its result variable;
// 2) every live variable that shares a storage (alias class), a tensor
//    object (identity class) or a data address (data class, COW sharers)
//    with one of those, as the last observation says, the result variable's
//    previous binding included: a write, an in-place view op, a storage op,
//    a COW materialization or a release changes them, and a class's
//    smallest member (its id) changes when a member is bound or dropped.
// The set is closed under the classes, so each backend computes the class
// ids over it alone. Every variable is observed and compared (a "full"
// observation) after rehydrate and reshrink (they act on every emptied
// storage), after a conversion (its memo may return the tensor or storage
// of any earlier conversion: `t2 = meta t0` is t1 when `t1 = meta t0`
// came first), after every step from the first sparse step on (a sparse
// tensor's parts share one version counter across their storages, so a
// write through values() bumps the version of row_indices(); and its
// parts' storages are no variable's class; found by the lockstep test in
// harness/incremental_test.cpp), every kFullEvery run steps,
// and after the last step: a backend that changes what the step cannot
// is still caught, by the next full observation, at most kFullEvery steps
// later.
// Element values are read again only where the step could have changed
// them: every observed variable after a step that writes data or changes a
// storage or a tensor's geometry in place (categories kInplace,
// kInplaceView, kStorage), else only the step's new variable; data
// addresses (COW materialization) are metadata.
constexpr int64_t kFullEvery = 32;

static ObserveScope scope_of(const Step& step) {
  ObserveScope scope;
  switch (step.info().category) {
    case OpCategory::kFactory:
    case OpCategory::kView:
    case OpCategory::kCompute:
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
  if (step.info().category == OpCategory::kSparse) sparse_seen_ = true;
  if (sparse_seen_ || step.op == OpId::kRehydrate || step.op == OpId::kReshrink ||
      step.info().category == OpCategory::kConvert)
    return false;
  const size_t n = live_.size();
  // mark_[k]: bit 0, variable k is a seed (rule 1); bits 1, 2, 3: the
  // alias, identity, data class whose id is k is a seed's (rule 2). Class
  // ids are variable ids, so one byte per variable holds both.
  mark_.assign(n, 0);
  auto seed = [&](VarId v) {
    if (v == kNoVar) return;
    const size_t k = static_cast<size_t>(v);
    mark_[k] |= 1;
    if (!live_[k]) return;
    if (alias_[k] >= 0) mark_[static_cast<size_t>(alias_[k])] |= 2;
    if (identity_[k] >= 0) mark_[static_cast<size_t>(identity_[k])] |= 4;
    if (data_[k] >= 0) mark_[static_cast<size_t>(data_[k])] |= 8;
  };
  for (int a = 0; a < step.nargs; ++a)
    if (step.args[a].kind == ArgKind::kVar) seed(step.args[a].var);
  seed(step.out);
  dirty_.clear();
  for (size_t k = 0; k < n; ++k) {
    bool in = (mark_[k] & 1) != 0;
    if (!in && live_[k]) {
      in = (alias_[k] >= 0 && (mark_[static_cast<size_t>(alias_[k])] & 2)) ||
           (identity_[k] >= 0 && (mark_[static_cast<size_t>(identity_[k])] & 4)) ||
           (data_[k] >= 0 && (mark_[static_cast<size_t>(data_[k])] & 8));
    }
    if (in) dirty_.push_back(static_cast<VarId>(k));
  }
  return true;
}

void Runner::note_classes(const Observation& o, const std::vector<VarId>* vars) {
  auto note = [&](size_t k) {
    const VarObs& v = o.vars[k];
    live_[k] = v.live;
    alias_[k] = v.live ? v.alias_class : -1;
    identity_[k] = v.live ? v.identity_class : -1;
    data_[k] = v.live ? v.data_class : -1;
  };
  if (vars) {
    for (VarId v : *vars) note(static_cast<size_t>(v));
  } else {
    for (size_t k = 0; k < o.vars.size() && k < live_.size(); ++k) note(k);
  }
}

RunReport Runner::run(const Program& program, bool keep_trace, const StepHook& hook) {
  RunReport rep;
  const size_t nb = backends_.size();
  obs_.resize(nb);
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
  alias_.assign(nv, -1);
  identity_.assign(nv, -1);
  data_.assign(nv, -1);
  sparse_seen_ = false;
  bool last_full = true;  // nothing observed yet
  size_t last_run = 0;
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const Step& step = program.steps[k];
    TraceLine line;
    line.step = static_cast<int64_t>(k + 1);
    bool skip = false;
    for (int a = 0; a < step.nargs; ++a)
      if (step.args[a].kind == ArgKind::kVar && !bound[step.args[a].var]) skip = true;
    if (skip) {
      line.skipped = true;
      if (keep_trace) rep.trace.push_back(std::move(line));
      continue;
    }
    ++rep.steps_run;
    last_run = k;
    // Note [Incremental observation]
    const bool full = rep.steps_run % kFullEvery == 0 || !dirty_vars(step);
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
      std::string why = backends_[b]->take_refusal();
      if (why.empty()) continue;
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
