// The Runner drives several backends through one program in lock step and
// compares their observations after every step (DESIGN.md "Observations and
// oracles").
//
// Note [Step outcome rules]
// 1) A step whose inputs are all bound runs on every backend.
// 2) A step that reads an unbound variable (its defining step failed) runs on
//    no backend: it is "skipped" and its own output stays unbound.
// 3) A failed step leaves its output unbound; the comparator has already
//    checked that every backend failed with the same ErrorKind.
// 4) `drop` unbinds its variable on every backend.
// 5) A step that some backend refuses (Backend::take_refusal: it cannot
//    express the op, or cannot run it as faithfully as the others, e.g. the
//    PyTorch backend on a step where storcheck's LibTorch backend applies a
//    policy check) ends the run without a divergence: the program is not
//    comparable from there on (RunReport::refusal), and a property counts it
//    apart (CheckResult::refused) instead of failing or passing silently;
//    it checks the steps after it in a rerun without it (Note [Past a
//    known divergence] in harness/properties.cpp).
// The first differing step ends the run: later steps could only differ more.
//
//   Runner r({ref.get(), torch.get()}, Limits{});
//   RunReport rep = r.run(program, /*trace=*/true);
//   if (rep.diverged) std::cout << rep.divergence.to_string(program);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "oracles/backend.h"
#include "oracles/compare.h"

namespace storcheck {

/// Rule 2: whether `step` reads a variable that `bound` (per VarId: its
/// defining step succeeded and no drop came after) says is unbound.
inline bool reads_unbound(const Step& step, const std::vector<char>& bound) {
  for (int a = 0; a < step.nargs; ++a)
    if (step.args[a].kind == ArgKind::kVar && !bound[static_cast<size_t>(step.args[a].var)])
      return true;
  return false;
}

/// Prefetches every cache line of `step`: a Step is about 400 bytes (seven
/// lines) and cold in a pre-generated program set, so the loops that run
/// steps (Runner::run, the benchmark's execute_alone) call it for the first
/// step before the backends' begin() and for the next step while this one
/// runs (issue 8). Prefetching the first four lines only (the head and two
/// arguments) left a step's later arguments to stall the backend: all seven
/// made the reference's execution-only row 4% faster in `storcheck bench`
/// (medians of four alternating runs each, 2026-12-07).
inline void prefetch_step(const Step& step) {
  const char* p = reinterpret_cast<const char*>(&step);
  for (size_t off = 0; off < sizeof(Step); off += 64) __builtin_prefetch(p + off);
  __builtin_prefetch(p + sizeof(Step) - 1);
}

/// Rule 7 of Note [Incremental observation] (oracles/runner.cpp): a
/// factory, a view, a device copy or an out-of-place compute step other than
/// lazy_clone writes none of its operands' observable state (storage,
/// version, data address, geometry, values, COW state).
bool writes_no_operand(const Step& step);

/// Where and how two backends first differed.
struct Divergence {
  int64_t step = 0;  ///< 1-based step number
  std::string backend_a, backend_b;
  Mismatch mismatch;
  /// "step 2 (t1 = transpose t0 0 1): strides of t1: reference [1, 4] vs torch_cpu [4, 1]"
  std::string to_string(const Program& p) const;
};

/// One line of a trace: the step and each backend's outcome.
struct TraceLine {
  int64_t step = 0;
  bool skipped = false;
  std::vector<ErrorKind> errors;        ///< per backend
  std::vector<std::string> messages;    ///< per backend
  /// What a `memo_stats` step observed (the first backend's memos, F3).
  std::string note;
};

struct RunReport {
  bool diverged = false;
  /// An invariant hook failed (divergence.mismatch.field == "invariant",
  /// mismatch.a holds the reason).
  Divergence divergence;
  /// Rule 5: "step 3 (drop t1): pytorch refused: REASON" ("" when none).
  std::string refusal;
  int64_t refused_step = 0;  ///< rule 5: the refused step, 1-based (0: none)
  int64_t steps_run = 0;     ///< steps executed (not skipped)
  int64_t steps_failed = 0;  ///< steps every backend rejected alike
  std::vector<TraceLine> trace;
  /// Observations after the last step compared (per backend): at a
  /// divergence, or after the whole program when run with keep_trace.
  std::vector<Observation> last;
};

/// Called after every step that ran, with the first backend's observations
/// before and after it; returns false (and says why) when an invariant of
/// SEMANTICS.md is broken. Used by the reference-only invariant properties.
using StepHook = std::function<bool(const Program& p, size_t step, const Observation& before,
                                   const Observation& after, std::string* why)>;

class Runner {
 public:
  Runner(std::vector<Backend*> backends, const Limits& limits)
      : backends_(std::move(backends)), limits_(limits) {}
  RunReport run(const Program& program, bool keep_trace = false, const StepHook& hook = {});
  const std::vector<Backend*>& backends() const { return backends_; }

 private:
  std::vector<Backend*> backends_;
  Limits limits_;
  std::vector<Observation> obs_;
  Observation before_;
  // Note [Incremental observation]: after the last observation (from the
  // first backend's), each variable's alias, identity and data class (-1
  // when dead) and each class's live members as a doubly linked list
  // threaded through the members' ClassLinks (head on the class id's own
  // entry: one allocation per program, O(1) moves), the variables the next
  // step may change (dirty_), and scratch marks (mark_, all zero between
  // calls; marked_ lists the ones set).
  static constexpr int kClassKinds = 3;
  struct ClassLinks {
    int32_t cls[kClassKinds] = {-1, -1, -1};   ///< this variable's class ids
    int32_t head[kClassKinds] = {-1, -1, -1};  ///< first member of the class with this id
    int32_t next[kClassKinds] = {-1, -1, -1};
    int32_t prev[kClassKinds] = {-1, -1, -1};
  };
  std::vector<ClassLinks> links_;
  std::vector<uint8_t> live_, mark_;
  int64_t live_count_ = 0;  ///< live variables at the last observation
  /// Live strided variables whose storage had 0 bytes (rule 5).
  std::vector<uint8_t> empty_;
  std::vector<VarId> marked_, dirty_;
  /// Per variable, kSparseTaint (rule 3), kConvertTaint (rule 4) and
  /// kRestoreTaint (rule 5); converted_ lists the variables with
  /// kConvertTaint.
  std::vector<uint8_t> taint_;
  /// Every taint some variable took in this program (a superset of the
  /// taints live variables hold): the passes for a taint nobody took are
  /// skipped.
  uint8_t taints_seen_ = 0;
  std::vector<VarId> converted_;
  /// A set_ step ran (rule 6): version counters may be shared across storages.
  bool version_split_ = false;
  /// Per variable, its version counter's group (rule 6): the group of the
  /// variable bound to the same tensor, else its first operand's when it was
  /// created over that operand's storage (a view), else its own VarId.
  std::vector<VarId> counter_;
  static constexpr uint8_t kSparseTaint = 1, kConvertTaint = 2, kRestoreTaint = 4;
  /// Fills dirty_ for `step`; false when every variable must be observed.
  bool dirty_vars(const Step& step);
  void add_taint(VarId v, uint8_t taint);
  /// Whether a live variable is sparse-tainted.
  bool sparse_live() const;
  /// Appends v to dirty_ unless it is there (mark_ bit 0).
  void add_dirty(VarId v) {  // in the header: a call per member cost a tenth of dirty_vars
    uint8_t& m = mark_[static_cast<size_t>(v)];
    if (m & 1) return;
    if (m == 0) marked_.push_back(v);
    m |= 1;
    dirty_.push_back(v);
  }
  /// Calls f(member) for every member of each class of live variable v not
  /// visited since the last clear_marks() (mark_ bits 1, 2, 3 on the class id).
  template <typename F>
  void for_classes(VarId v, F&& f);
  /// The same for class kind c's class with id `id`.
  template <typename F>
  void for_class(int c, int32_t id, F&& f);
  void clear_marks();
  /// Records the classes of the observed variables (all when `vars` is null).
  void note_classes(const Observation& o, const std::vector<VarId>* vars);
};

}  // namespace storcheck
