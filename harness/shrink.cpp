#include "harness/shrink.h"

#include <vector>

namespace storcheck {

Program remove_step(const Program& p, size_t index) {
  std::vector<char> dead(static_cast<size_t>(p.num_vars()), 0);
  Program out;
  out.var_names = p.var_names;
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    bool drop = k == index;
    for (int a = 0; !drop && a < s.nargs; ++a)
      if (s.args[a].kind == ArgKind::kVar && dead[s.args[a].var]) drop = true;
    if (drop) {
      if (s.out != kNoVar) dead[s.out] = 1;
      // An in-place step that is removed leaves its inputs alive.
      continue;
    }
    out.steps.push_back(s);
  }
  return out;
}

Program renumber(const Program& p) {
  std::vector<VarId> map(static_cast<size_t>(p.num_vars()), kNoVar);
  Program out;
  out.steps.reserve(p.steps.size());
  out.var_names.reserve(p.var_names.size());
  for (const Step& s : p.steps) {
    Step t = s;
    for (int a = 0; a < t.nargs; ++a)
      if (t.args[a].kind == ArgKind::kVar) t.args[a].var = map[t.args[a].var];
    if (s.out != kNoVar) {
      map[s.out] = out.new_var("t" + std::to_string(out.num_vars()));
      t.out = map[s.out];
    }
    out.steps.push_back(t);
  }
  return out;
}

Program shrink_failing(rc::Shrinkable<Program> sp, const FailsFn& fails, int candidates) {
  bool progress = true;
  while (progress && candidates > 0) {
    progress = false;
    auto seq = sp.shrinks();
    while (auto cand = seq.next()) {
      if (--candidates <= 0) break;
      if (fails(cand->value())) {
        sp = std::move(*cand);
        progress = true;
        break;
      }
    }
  }
  return minimize_steps(sp.value(), fails);
}

Program minimize_steps(const Program& p, const FailsFn& fails, int max_tries) {
  Program cur = p;
  int tries = 0;
  bool progress = true;
  while (progress && tries < max_tries) {
    progress = false;
    // From the end: later steps depend on earlier ones, so they go first.
    for (size_t k = cur.steps.size(); k-- > 0 && tries < max_tries;) {
      if (k >= cur.steps.size()) continue;
      Program cand = remove_step(cur, k);
      ++tries;
      if (fails(cand)) {
        cur = std::move(cand);
        progress = true;
      }
    }
  }
  return renumber(cur);
}

}  // namespace storcheck
