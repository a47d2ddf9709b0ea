#include "harness/verdict.h"

#include "harness/invariants.h"
#include "oracles/known_divergences.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {

namespace {

std::string signature_of(const Program& p, const Divergence& d) {
  std::string op(op_info(p.steps[static_cast<size_t>(d.step - 1)].op).name);
  if (d.mismatch.field != "invariant") return "divergence " + op + " " + d.mismatch.field;
  // The hook's reason starts with the SEMANTICS id ("R3: ...").
  const std::string& why = d.mismatch.a;
  return "invariant " + op + " " + why.substr(0, why.find(':'));
}

}  // namespace

Judge::Judge(const Limits& limits) : backends_(BackendSet::make()), limits_(limits) {}

// Note [Judging like repro]
// `storcheck repro` runs every backend without invariants; a divergence is
// expected when the known list explains it, else a failure; only when the
// backends agree does it run the reference alone with every invariant. The
// fast path runs both checks in one pass (the hook sees the reference's
// observations, the same in either run); when that pass finds anything, the
// two passes of repro decide, so the verdict is always repro's.
Verdict Judge::judge(const Program& p) {
  Verdict v;
  std::vector<Backend*> all = backends_.all();
  // Each judgement frees what it allocated: libFuzzer re-runs an input
  // under LeakSanitizer whenever mallocs and frees of a run differ, which
  // tensors kept until the next program would make them do every time.
  struct Release {
    const std::vector<Backend*>& all;
    const Limits& limits;
    ~Release() {
      static const Program kEmpty;
      for (Backend* b : all) b->begin(kEmpty, limits);
    }
  } release{all, limits_};
  {
    Runner fast(all, limits_);
    if (!fast.run(p, false, make_all_invariants_hook(all[0])).diverged) return v;
  }
  Runner runner(all, limits_);
  RunReport rep = runner.run(p);
  if (rep.diverged) {
    const Divergence& d = rep.divergence;
    std::string_view op = op_info(p.steps[static_cast<size_t>(d.step - 1)].op).name;
    v.what = d.to_string(p);
    v.signature = signature_of(p, d);
    v.kind = match_known_divergence(op, d.mismatch, torch_version()) ? Verdict::Kind::kKnown
                                                                     : Verdict::Kind::kDivergence;
    return v;
  }
  Runner alone({all[0]}, limits_);
  RunReport inv = alone.run(p, false, make_all_invariants_hook(all[0]));
  if (inv.diverged) {
    v.kind = Verdict::Kind::kInvariant;
    v.what = inv.divergence.to_string(p);
    v.signature = signature_of(p, inv.divergence);
  }
  return v;
}

}  // namespace storcheck
