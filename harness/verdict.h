// What `storcheck repro` decides about a program, as a value: pass, an
// expected (known) divergence, a divergence between backends, or a broken
// SEMANTICS invariant on the reference. The fuzz targets (harness/fuzz/) and
// `storcheck minimize` judge programs with it, so every finding they report
// is one that `storcheck repro` replays.
//
// Invariant: judge(p) fails exactly when `storcheck repro` on print_program(p)
// (no `# known:` header) exits 1, and Verdict::signature is the same for
// both. The signature names the first failure without step numbers or
// values (`divergence transpose strides`, `invariant shrink R3`), so it stays
// the same while a program is minimized, and deduplicates crashes.
//
//   Judge judge;                       // backends made once
//   Verdict v = judge.judge(program);
//   if (v.failed()) std::cerr << v.what << "\n";
#pragma once

#include <string>

#include "harness/properties.h"
#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

struct Verdict {
  enum class Kind {
    kPass,        ///< no divergence; every invariant holds on the reference
    kKnown,       ///< backends diverge as a known-divergence entry explains
    kDivergence,  ///< backends diverge (not explained)
    kInvariant,   ///< the reference breaks a SEMANTICS invariant
  };
  Kind kind = Kind::kPass;
  std::string what;       ///< "step 2 (t1 = transpose t0 0 1): strides of t1: ..." ("" on pass)
  std::string signature;  ///< "divergence transpose strides" ("" on pass)
  bool failed() const { return kind == Kind::kDivergence || kind == Kind::kInvariant; }
};

/// Judges programs on every available backend (reference first), reusing
/// the backends across calls. Single threaded.
class Judge {
 public:
  explicit Judge(const Limits& limits = Limits{});
  /// The verdict of `storcheck repro` for `p`. A passing program costs one
  /// run of every backend with the invariants checked on the reference.
  Verdict judge(const Program& p);
  /// True when LibTorch is linked (else only the invariants are checked).
  bool has_torch() const { return backends_.torch_cpu != nullptr; }

 private:
  BackendSet backends_;
  Limits limits_;
};

}  // namespace storcheck
