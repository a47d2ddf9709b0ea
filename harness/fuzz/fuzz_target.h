// The fuzz targets (issue 6): one per area of SEMANTICS.md, each taking
// program text as its input, plus the parser target. This header is the
// table of targets and the code behind every LLVMFuzzerTestOneInput, kept
// out of the entry points so GoogleTest can drive it.
//
// Note [What a fuzz input is]
// 1) Bytes that do not parse under fuzz_parse_limits() are rejected (the
//    entry point returns -1, so libFuzzer keeps them out of the corpus).
// 2) A program using an op outside its target's area is rejected the same
//    way: each target's corpus stays about its area, and a program that
//    belongs to another area is that target's to find.
// 3) Every other program is judged as `storcheck repro` judges it (Judge:
//    every backend compared after every step, then every SEMANTICS
//    invariant on the reference, known divergences excused) under the
//    default run-time Limits, so a finding replays with `storcheck repro`.
// 4) A program with a split, chunk or unbind step that would produce more
//    than kFuzzMaxSplitResults results is rejected before any backend runs
//    it: the reference runs the program alone first, without observing,
//    and the count comes from its shapes. Each result is a tensor in every
//    backend, so one such step on a meta tensor of huge sizes (up to the
//    kMaxSplitResults that repro allows) costs seconds under ASan, where a
//    whole program otherwise costs about a millisecond; the split code is
//    the same loop for 256 results as for 65,536.
// Parsing is tighter than repro's (fewer steps, smaller factories) to keep
// the cost per input low; whatever parses here parses there too, and
// whatever is judged here is judged the same way there.
//
//   FuzzHarness h(*find_fuzz_target("views_fuzzer"));
//   FuzzResult r = h.run("t0 = arange [3,4] f32\nt1 = t t0\n");
//   if (r.outcome == FuzzOutcome::kFinding) std::cerr << r.verdict.what;
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "generators/program_gen.h"
#include "harness/fuzz/parse_cache.h"
#include "harness/fuzz/parser_roundtrip.h"  // FuzzOutcome, check_parser_roundtrip
#include "harness/verdict.h"
#include "oracles/backend.h"
#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

struct FuzzTarget {
  std::string_view name;     ///< the executable and corpus/NAME/ folder
  std::string_view summary;
  OpSet ops;                 ///< the ops its programs may use (empty: the parser target)
  bool runs_programs = true; ///< false: parser and printer only
};

/// Every fuzz target, in build order. fake_fuzzer covers meta and fake
/// conversion; sparse layouts are not program ops yet (issue 5).
const std::vector<FuzzTarget>& fuzz_targets();
/// Null when unknown.
const FuzzTarget* find_fuzz_target(std::string_view name);

/// The parse limits of the program targets (Note [What a fuzz input is]).
Limits fuzz_parse_limits();

struct FuzzResult {
  FuzzOutcome outcome = FuzzOutcome::kRejected;
  std::string reject_reason;  ///< kRejected: the parse error or the foreign op
  Program program;            ///< parsed (not for kRejected)
  Verdict verdict;            ///< kFinding and kPassed
};

/// Runs fuzz inputs of one program target; backends (LibTorch included) are
/// made once. Single threaded.
/// Most results one split, chunk or unbind step of a fuzz input may produce
/// (Note [What a fuzz input is] 4); `storcheck repro` allows kMaxSplitResults.
inline constexpr int64_t kFuzzMaxSplitResults = 256;

class FuzzHarness {
 public:
  explicit FuzzHarness(const FuzzTarget& target);
  FuzzResult run(std::string_view text);
  const FuzzTarget& target() const { return target_; }
  /// The programs of recent inputs (Note [Parsed inputs]): run looks a text
  /// up here first; the target's mutator fills it.
  ParseCache& parse_cache() { return cache_; }

 private:
  /// Note [What a fuzz input is] 4): "" or why `p` is rejected.
  std::string oversized_split(const Program& p);

  const FuzzTarget& target_;
  ParseCache cache_;
  Judge judge_;
  std::unique_ptr<Backend> probe_;  ///< a reference of its own, for 4)
};

/// The report a program target prints before it aborts on a finding: a
/// header naming the target and the failure, the `storcheck repro` report
/// of the program, and the program text.
std::string finding_report(const FuzzTarget& target, const FuzzResult& r,
                           const std::string& plant_fault);

}  // namespace storcheck
