// Reference-only invariant checks of SEMANTICS.md, run after every step by
// the invariant properties (shrink.*, later cow.*): each is a StepHook that
// compares the reference's observations before and after the step.
//
// A hook object may keep state across the steps of one program (reshrink
// needs to know what rehydrate restored), so properties make a fresh one per
// program with make_invariant_hook.
//
//   StepHook h = make_invariant_hook(Invariant::kCloneGivesZeros);
//   runner.run(program, false, h);   // divergence.field == "invariant" on failure
#pragma once

#include "oracles/runner.h"

namespace storcheck {

enum class Invariant {
  kCloneGivesZeros,        ///< R3: clone paths of emptied inputs give zeros
  kInputStaysEmptied,      ///< R3: the emptied input stays emptied
  kBoundsCheckedRaise,     ///< R4/S8: bounds-checked ops raise, compute is never run
  kRehydrateKeepsAliasing, ///< R5: rehydrate sizes, zeroes and keeps aliasing
  kReshrinkToZero,         ///< R5: reshrink returns what rehydrate restored to 0 bytes
  kUndersizedNotRestored,  ///< R7: undersized storages are not restored
  kNoCopyUntilWrite,       ///< C3/C4: copies only when a write hits a shared block
  kLastSharerTakesOwnership, ///< C4: the last sharer keeps the address, no copy
  kRefcountMatchesSharers, ///< C2: a block's count is its live sharers
  kViewsMaterializeOnce,   ///< C3/C5: one materialization for all views, metadata kept
  kForeignOwnerRaises,     ///< C7: lazy_clone of foreign data raises, source untouched
  kFakeAliasing,           ///< F1/F2: meta conversion keeps geometry, identity, aliasing
  kFakeMemoWeak,           ///< F3: the memo holds live tensors only; a sweep frees dead storages
  // The program's own `fake`/`meta` steps (the reference's converters):
  kFakeMemoIdentity,       ///< F1/F2: same live tensor, same fake; one fake storage per storage
  kFakeEmptiedZeroBytes,   ///< F2: a new fake storage has the real nbytes (0 when emptied)
  kFakeSweepFrees,         ///< F3: memo entries are the live converted tensors; sweeps free dead storages
  kFakeUnsupportedTyped,   ///< F4: a refused conversion raises unsupported_fake_tensor, memo unchanged
  kSparseFakeMetadata,     ///< F4/F8/F2: a sparse variable's fake/meta/to_meta keeps its metadata
};

/// `reference` is the reference backend (Backend::reference_tensor), which
/// kFakeAliasing and kFakeMemoWeak convert after every step; without it they
/// check nothing.
StepHook make_invariant_hook(Invariant inv, const Backend* reference = nullptr);
/// Every invariant at once (for `storcheck repro`): the first broken one
/// reports, its reason prefixed with the SEMANTICS id.
StepHook make_all_invariants_hook(const Backend* reference = nullptr);

}  // namespace storcheck
