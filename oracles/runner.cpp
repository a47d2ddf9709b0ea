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
// Metadata is observed for every variable after every step; element values
// only where the step could have changed them: every variable after a step
// that writes data or changes a storage or a tensor's geometry in place
// (categories kInplace, kInplaceView, kStorage), else only the step's new
// variable. A backend bug that writes during a read is still caught: the
// values are compared again, in full, at the next writing step, and data
// addresses (COW materialization) are metadata, compared every step.
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
    for (size_t b = 0; b < nb; ++b) {
      Error e = backends_[b]->run_step(step);
      backends_[b]->observe(&obs_[b], scope_of(step));
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
                                backends_[b]->capabilities(), &m))
        return diverge(k, backends_[0]->name(), backends_[b]->name(), std::move(m));
    }
    if (hook) {
      std::string why;
      if (!hook(program, k, before_, obs_[0], &why))
        return diverge(k, backends_[0]->name(), "SEMANTICS", finding("invariant", why, ""));
      before_ = obs_[0];
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
  if (keep_trace) rep.last = obs_;  // a copy per program is measurable (issue 8)
  return rep;
}

}  // namespace storcheck
