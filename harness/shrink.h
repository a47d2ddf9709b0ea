// Step-level minimization of a failing program (DESIGN.md "Shrinking": a
// failing program is reduced until no single-step removal keeps it failing).
//
// Removing a step also removes every later step that reads what it defined
// (transitively), so each candidate is a well-formed program; variables are
// renumbered densely (t0, t1, ...) at the end.
//
//   Program small = minimize_steps(p, [&](const Program& q) { return fails(q); });
#pragma once

#include <rapidcheck/Shrinkable.h>

#include <functional>

#include "program/ir.h"

namespace storcheck {

/// The predicate: true when the candidate still fails.
using FailsFn = std::function<bool(const Program&)>;

/// Greedy one-step removal to a fixpoint; `max_tries` bounds predicate calls.
Program minimize_steps(const Program& p, const FailsFn& fails, int max_tries = 5000);
/// What check_property does with a failing program: RapidCheck's shrink
/// tree first (at most `candidates` predicate calls, taking the first
/// failing shrink at each level), then minimize_steps on what it reached.
///
///   Program small = shrink_failing(sp, fails);  // sp: the failing Shrinkable
Program shrink_failing(rc::Shrinkable<Program> sp, const FailsFn& fails, int candidates = 2000);
/// Removes step `index` and every later step that depends on its output.
Program remove_step(const Program& p, size_t index);
/// Renames the variables to t0, t1, ... in order of definition, dropping
/// names that no step defines.
Program renumber(const Program& p);

}  // namespace storcheck
