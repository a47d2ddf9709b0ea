// Tests of Note [Incremental observation] (oracles/runner.cpp): after each
// step the runner has the backends observe only the variables the step can
// have changed. That is sound only if the list holds the id of every alias,
// identity and data-address class of a listed variable and covers every
// change a correct backend makes; these tests check it against a full
// observation after every step of generated programs, and check that a
// backend changing a variable outside the list is still caught.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "generators/program_gen.h"
#include "oracles/compare.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// Two references in lockstep: `incremental_` observes what the runner
/// asks for; `full_` observes every variable. After every step the two
/// observations must agree on every field of every variable; a difference
/// is reported as this backend's invariant finding.
class CheckedIncremental final : public Backend {
 public:
  CheckedIncremental() : incremental_(make_reference_backend()), full_(make_reference_backend()) {}
  std::string_view name() const override { return "checked_incremental"; }
  Capabilities capabilities() const override { return incremental_->capabilities(); }
  void begin(const Program& p, const Limits& l) override {
    program_ = &p;
    incremental_->begin(p, l);
    full_->begin(p, l);
    full_obs_ = Observation{};
  }
  Error run_step(const Step& s) override {
    step_ = &s;
    full_->run_step(s);
    return incremental_->run_step(s);
  }
  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    if (scope.vars) ++partial_;
    incremental_->observe(obs, scope);
    ObserveScope all = scope;
    all.vars = nullptr;
    full_->observe(&full_obs_, all);
    full_obs_.error = obs->error;  // filled by the runner afterwards; not under test
    Mismatch m;
    Capabilities caps = capabilities();
    caps.cow_refs = true;  // the reference's COW reference counts too
    if (!compare_observations(*obs, caps, full_obs_, caps, &m) && finding_.empty())
      finding_ = "after " + print_step(*program_, *step_) + ": " + m.field + " of " +
                 (m.var == kNoVar ? std::string("-") : program_->var_names[m.var]) + ": " + m.a +
                 " (observed incrementally) vs " + m.b + " (in full)";
  }
  std::string take_invariant_finding() override { return std::exchange(finding_, {}); }
  int64_t partial() const { return partial_; }

 private:
  std::unique_ptr<Backend> incremental_, full_;
  Observation full_obs_;
  const Program* program_ = nullptr;
  const Step* step_ = nullptr;
  std::string finding_;
  int64_t partial_ = 0;
};

/// Runs `n` programs of `cfg`; returns the share of steps that observed a
/// list rather than every variable.
double expect_incremental_equals_full(const GenConfig& cfg, uint64_t seed, int n) {
  CheckedIncremental b;
  Runner runner({&b}, Limits{});
  rc::Gen<Program> gen = gen_program(cfg);
  rc::Random root(seed);
  int64_t steps = 0;
  for (int i = 0; i < n; ++i) {
    rc::Random r = root.split();
    Program p = gen(r, i % 101).value();
    RunReport rep = runner.run(p);
    EXPECT_FALSE(rep.diverged) << "program " << i << ":\n"
                               << print_program(p) << rep.divergence.to_string(p);
    if (rep.diverged) return 0;
    steps += rep.steps_run;
  }
  return steps > 0 ? static_cast<double>(b.partial()) / static_cast<double>(steps) : 0;
}

TEST(IncrementalObservation, EqualsFullObservationOnLongStridedPrograms) {
  GenConfig cfg;
  cfg.ops = all_ops();
  cfg.min_steps = 40;
  cfg.max_steps = 120;
  // Most steps observed a list, not everything: the test tests something.
  EXPECT_GT(expect_incremental_equals_full(cfg, 11, 150), 0.5);
}

TEST(IncrementalObservation, EqualsFullObservationUnderEveryFocus) {
  struct Case {
    const char* name;
    GenConfig cfg;
    double min_partial;  ///< conversions and steps reaching sparse parts observe in full
  };
  for (Case c : {Case{"shrink", shrink_config(), 0.5}, Case{"cow", cow_config(), 0.5},
                 Case{"fake", fake_config(), 0.1}, Case{"sparse", sparse_config(), 0.1}}) {
    SCOPED_TRACE(c.name);
    c.cfg.min_steps = 24;
    c.cfg.max_steps = 64;
    double partial = expect_incremental_equals_full(c.cfg, 12, 120);
    EXPECT_GE(partial, c.min_partial);
  }
}

/// Runs `text` through a CheckedIncremental; returns how many steps
/// observed a list.
int64_t expect_program_incremental_equals_full(const char* text) {
  ParseResult parsed = parse_program(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error.to_string();
  CheckedIncremental b;
  Runner runner({&b}, Limits{});
  RunReport rep = runner.run(parsed.program);
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(parsed.program);
  EXPECT_EQ(rep.steps_failed, 0);
  return b.partial();
}

// Rule 3 of the note: sparse_coo_tensor makes t1 its values part, so
// writes through t1, through a view of t1 taken before the sparse step, and
// through that view after t1 is dropped all change t2 (values and version),
// which shares no variable's storage class; so do writes through a view of
// a compressed tensor's values(). Each write observes in full;
// the steps before the sparse step still observe a list.
TEST(IncrementalObservation, WritesReachingASparsePartObserveEverything) {
  const char* prologue =
      "t0 = zeros [1,3] i64\nt1 = rand [3,2] f32 8\nt3 = view t1 [6]\nt4 = zeros [2] f32\n"
      "t2 = sparse_coo_tensor t0 t1 [4,2]\n";
  for (const char* tail : {"fill_ t1 5\n", "fill_ t3 5\n", "drop t1\nfill_ t3 5\n",
                           "t7 = to_sparse_csr t1\nt5 = values t7\n"
                           "t6 = select t5 0 1\nadd_ t6 2\n"}) {
    SCOPED_TRACE(tail);
    std::string text = std::string(prologue) + tail + "add_ t4 1\n";
    EXPECT_GE(expect_program_incremental_equals_full(text.c_str()), 3);
  }
}

// Rule 5: rehydrate restores t1's storage; reshrink empties it again after
// t1 is dropped, through a view taken after the rehydrate (restore-tainted
// by derivation) and through a sparse tensor's values part (t2; a live
// sparse-tainted variable makes both steps observe in full).
TEST(IncrementalObservation, ReshrinkReachesStoragesWhoseRestoredVariableDied) {
  EXPECT_GE(expect_program_incremental_equals_full(
                "t1 = rand [3,2] f32 8\nt4 = zeros [2] f32\nshrink t1\nrehydrate\n"
                "t5 = view t1 [6]\ndrop t1\nreshrink\nadd_ t4 1\n"),
            6);
  EXPECT_GE(expect_program_incremental_equals_full(
                "t0 = zeros [1,3] i64\nt1 = rand [3,2] f32 8\nt2 = sparse_coo_tensor t0 t1 [4,2]\n"
                "shrink t1\nrehydrate\ndrop t1\nreshrink\nt4 = zeros [2] f32\nadd_ t4 1\n"),
            2);
}

/// The reference, except that after step `at` it also writes 7 into every
/// element of variable `victim`, which that step does not touch.
class StrayWriter final : public Backend {
 public:
  StrayWriter(int64_t at, VarId victim) : inner_(make_reference_backend()), at_(at), victim_(victim) {}
  std::string_view name() const override { return "stray_writer"; }
  void begin(const Program& p, const Limits& l) override {
    step_ = 0;
    inner_->begin(p, l);
  }
  Error run_step(const Step& s) override {
    Error e = inner_->run_step(s);
    if (++step_ == at_) {
      Step fill;
      fill.op = OpId::kFill_;
      fill.nargs = 2;
      fill.args[0].kind = ArgKind::kVar;
      fill.args[0].var = victim_;
      fill.args[1] = Arg::scalar_arg(ScalarLit::floating(7));
      EXPECT_EQ(inner_->run_step(fill).kind, ErrorKind::kNone);
    }
    return e;
  }
  void observe(Observation* obs, const ObserveScope& scope = {}) override { inner_->observe(obs, scope); }

 private:
  std::unique_ptr<Backend> inner_;
  int64_t at_;
  VarId victim_;
  int64_t step_ = 0;
};

/// The reference against a StrayWriter that fills t0 after step `at`.
RunReport run_with_stray_write(const std::string& text, int64_t at = 3) {
  ParseResult parsed = parse_program(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error.to_string();
  static Program p;  // outlives the backends' use of it
  p = parsed.program;
  auto ref = make_reference_backend();
  StrayWriter stray(at, /*victim=*/0);
  Runner runner({ref.get(), &stray}, Limits{});
  RunReport rep = runner.run(p);
  EXPECT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.mismatch.field, "version");  // fill_ bumps it; compared before values
  EXPECT_EQ(rep.divergence.mismatch.var, 0) << rep.divergence.to_string(p);
  return rep;
}

TEST(IncrementalObservation, AChangeOutsideTheListIsCaughtByTheLastFullObservation) {
  // Step 3 (add_ t1 1) lists t1 alone; t0's version differs from then on,
  // and the full observation after the last step (5) compares it.
  RunReport rep = run_with_stray_write(
      "t0 = zeros [4] f32\nt1 = zeros [4] f32\nadd_ t1 1\nt2 = ones [2] f32\nt3 = t t2\n");
  EXPECT_EQ(rep.divergence.step, 5);
}

/// `vars` factories t0..t{vars-1}, then add_ on the last one up to `steps` steps.
std::string factories_then_adds(int vars, int steps) {
  std::string text;
  for (int k = 0; k < vars; ++k) text += "t" + std::to_string(k) + " = zeros [2] f32\n";
  for (int k = vars; k < steps; ++k) text += "add_ t" + std::to_string(vars - 1) + " 1\n";
  return text;
}

TEST(IncrementalObservation, AChangeOutsideTheListIsCaughtByThePeriodicFullObservation) {
  // Four live variables: the period is kFullEvery, 32 run steps.
  RunReport rep = run_with_stray_write(factories_then_adds(4, 100), 3);
  EXPECT_EQ(rep.divergence.step, 32);
}

TEST(IncrementalObservation, ThePeriodIsTheLiveVariablesWhenThereAreMore) {
  // Full observations at steps 32 and then 32 + 40: forty variables live
  // from step 40 on, so the stray write after step 40 is reported at 72.
  RunReport rep = run_with_stray_write(factories_then_adds(40, 100), 40);
  EXPECT_EQ(rep.divergence.step, 72);
}

TEST(IncrementalObservation, AChangeInsideTheListIsCaughtAtItsStep) {
  // t0 shares t1's storage: listed at step 3.
  RunReport rep = run_with_stray_write(
      "t0 = zeros [4] f32\nt1 = view t0 [2,2]\nadd_ t1 1\nt2 = ones [2] f32\nt3 = t t2\n");
  EXPECT_EQ(rep.divergence.step, 3);
}

/// The reference, recording what the runner asked it to observe after
/// each step: the listed variables, or {-1} for everything.
class ListRecorder final : public Backend {
 public:
  ListRecorder() : inner_(make_reference_backend()) {}
  std::string_view name() const override { return "list_recorder"; }
  void begin(const Program& p, const Limits& l) override {
    lists.clear();
    inner_->begin(p, l);
  }
  Error run_step(const Step& s) override { return inner_->run_step(s); }
  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    lists.push_back(scope.vars ? *scope.vars : std::vector<VarId>{-1});
    inner_->observe(obs, scope);
  }
  std::vector<std::vector<VarId>> lists;  ///< per observe call

 private:
  std::unique_ptr<Backend> inner_;
};

// Rule 7: a view of t2, which shares t0's storage with two more views,
// lists its operand (its own identity class), the class's id t0 and the
// result only; a write through one of them lists the whole class, and so
// does lazy_clone, which makes its input COW (C1). The lockstep check
// (CheckedIncremental) agrees on the same program.
TEST(IncrementalObservation, AStepThatWritesNothingListsTheClassIdsOfItsOperands) {
  const char* text =
      "t0 = zeros [4] f32\nt1 = view t0 [4]\nt2 = view t0 [2,2]\nt3 = t t2\n"
      "t4 = select t3 0 1\nadd_ t1 1\nt5 = lazy_clone t2\nt6 = ones [2] f32\n";
  ParseResult parsed = parse_program(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  ListRecorder rec;
  Runner runner({&rec}, Limits{});
  RunReport rep = runner.run(parsed.program);
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(parsed.program);
  ASSERT_EQ(rep.steps_run, 8);
  ASSERT_EQ(rep.steps_failed, 0);
  ASSERT_EQ(rec.lists.size(), 9u);  // a list after each step, then the last full observation
  using L = std::vector<VarId>;
  EXPECT_EQ(rec.lists[3], (L{0, 2, 3}));           // t3 = t t2
  EXPECT_EQ(rec.lists[4], (L{0, 3, 4}));           // t4 = select t3 0 1
  EXPECT_EQ(rec.lists[5], (L{0, 1, 2, 3, 4}));     // add_ t1 1: every view of t0
  EXPECT_EQ(rec.lists[6], (L{0, 1, 2, 3, 4, 5}));  // lazy_clone t2: t2's classes and t5
  EXPECT_EQ(rec.lists[7], (L{6}));                 // a factory: its result
  EXPECT_EQ(rec.lists[8], (L{-1}));
  EXPECT_GE(expect_program_incremental_equals_full(text), 7);
}

// Program's invariant (ids in order of definition) puts a result's VarId
// above its operands', so a result never becomes an existing class's id;
// a hand-built program that breaks it (v0 defined last, as a view of v1,
// which v2 views) lists the whole class, whose every member's id changes.
TEST(IncrementalObservation, AResultWithASmallerIdThanTheClassListsTheWholeClass) {
  Program p;
  const VarId v0 = p.new_var("v0"), v1 = p.new_var("v1"), v2 = p.new_var("v2");
  Step make;
  make.op = OpId::kZeros;
  make.out = v1;
  make.nargs = 2;
  make.args[0] = Arg::ints({4});
  make.args[1] = Arg::dtype_arg(DTypeArg::kF32);
  auto view_of = [](VarId out, VarId in) {
    Step s;
    s.op = OpId::kView;
    s.out = out;
    s.nargs = 2;
    s.args[0] = Arg::variable(in);
    s.args[1] = Arg::ints({2, 2});
    return s;
  };
  p.steps = {make, view_of(v2, v1), view_of(v0, v1)};
  ListRecorder rec;
  Runner runner({&rec}, Limits{});
  RunReport rep = runner.run(p);
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rec.lists.size(), 4u);
  EXPECT_EQ(rec.lists[2], (std::vector<VarId>{v0, v1, v2}));
  CheckedIncremental checked;
  Runner lockstep({&checked}, Limits{});
  RunReport rep2 = lockstep.run(p);
  EXPECT_FALSE(rep2.diverged) << rep2.divergence.to_string(p);
}

}  // namespace
}  // namespace storcheck
