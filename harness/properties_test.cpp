// What the properties' configs draw (harness/properties.cpp), where a
// property's coverage depends on it.
#include "harness/properties.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "generators/program_gen.h"
#include "harness/test_support.h"
#include "impl/fault.h"
#include "oracles/known_divergences.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

const Property& property(std::string_view name) {
  for (const Property& p : properties())
    if (p.name == name) return p;
  ADD_FAILURE() << "no property " << name;
  return properties().front();
}

// Note [Fake twin] (oracles/fake_twin_backend.cpp): the cross-ref compares
// sparse twins too, so a quarter of its programs are sparse, with the
// accessors, to_dense and coalesce, and none converts (its twins are not
// meant to agree on conversions).
TEST(Properties, CrossrefDrawsSparseProgramsWithoutConversions) {
  for (std::string_view name : {"fake.crossref_matches_eager", "fake.fallback_rules"}) {
    SCOPED_TRACE(std::string(name));
    const Property& prop = property(name);
    rc::Gen<Program> gen = gen_program(prop.config);
    rc::Random root(11);
    const int n = 800;
    int sparse = 0;
    std::set<OpId> seen;
    for (int i = 0; i < n; ++i) {
      rc::Random r = root.split();
      const Program p = gen(r, i % 101).value();
      bool has_sparse = false;
      for (const Step& s : p.steps) {
        EXPECT_NE(s.info().category, OpCategory::kConvert) << s.info().name;
        EXPECT_NE(s.info().category, OpCategory::kStorage) << s.info().name;
        has_sparse |= s.info().category == OpCategory::kSparse;
        seen.insert(s.op);
      }
      sparse += has_sparse;
    }
    EXPECT_GT(sparse, n * 15 / 100);
    EXPECT_LT(sparse, n * 35 / 100);
    for (OpId op : {OpId::kToSparseCoo, OpId::kToSparseCsc, OpId::kToSparseBsr,
                    OpId::kSparseCooTensor, OpId::kToDense, OpId::kCoalesce, OpId::kValues,
                    OpId::kCrowIndices, OpId::kDrop})
      EXPECT_TRUE(seen.count(op)) << op_info(op).name;
  }
}

// Issue 3's example of a planted COW fault: a write through a view of a COW
// tensor that does not materialize (Fault::kViewWriteSkipsCow writes into
// the shared block). The reference's own COW invariants catch it, each
// with its rule, in a few programs and shrunk to a few steps; the
// reference-count rule (C2) holds, as the fault keeps every sharer.
TEST(Properties, CowInvariantsCatchAViewWriteThatSkipsMaterialization) {
  if (!fault_injection_available())
    GTEST_SKIP() << "build without fault injection (-DSTORCHECK_FAULT_INJECTION=ON)";
  FaultScope fault(Fault::kViewWriteSkipsCow);
  ASSERT_TRUE(fault.ok());
  struct Want {
    const char* property;
    const char* rule;  ///< "" : the property holds
  };
  for (Want w : {Want{"cow.views_materialize_once", "invariant broken: C3: "},
                 Want{"cow.last_sharer_takes_ownership", "invariant broken: C4: "},
                 Want{"cow.refcount_matches_sharers", ""}}) {
    SCOPED_TRACE(w.property);
    CheckOptions opt;
    opt.seed = 1;
    opt.programs = 3000;
    opt.write_ahead = false;
    BackendSet backends = BackendSet::make();
    CheckResult r = check_property(property(w.property), opt, backends);
    ASSERT_FALSE(r.skipped) << r.skip_reason;
    if (*w.rule == '\0') {
      EXPECT_TRUE(r.passed) << r.failure_text;
      continue;
    }
    ASSERT_FALSE(r.passed) << "not caught in " << opt.programs << " programs";
    EXPECT_NE(r.failure_text.find(w.rule), std::string::npos) << r.failure_text;
    EXPECT_LE(r.counterexample.steps.size(), 5u);
    // The shrunk program writes through a lazy clone's storage.
    bool cloned = false;
    for (const Step& s : r.counterexample.steps) cloned |= s.op == OpId::kLazyClone;
    EXPECT_TRUE(cloned);
  }
  // Without the fault the first property holds on the same programs.
  set_active_fault(Fault::kNone);
  CheckOptions opt;
  opt.seed = 1;
  opt.programs = 3000;
  opt.write_ahead = false;
  BackendSet backends = BackendSet::make();
  EXPECT_TRUE(check_property(property("cow.views_materialize_once"), opt, backends).passed);
}

// `--steps N` (gate, check): every property draws programs of N records,
// view chains included; 0 keeps its own 16. A record is one step, but in a
// sparse program (Note [Sparse programs] in generators/program_gen.cpp) a
// scenario of one or more steps.
TEST(Properties, StepsSetsEveryPropertysProgramLength) {
  for (const Property& prop : properties()) {
    SCOPED_TRACE(std::string(prop.name));
    for (int steps : {0, 5, 64}) {
      const size_t n = static_cast<size_t>(steps > 0 ? steps : 16);
      const GenConfig c = config_with_steps(prop, steps);
      const bool sparse_builder = c.sparse_per_mille > 0 || c.sparse_focus;
      rc::Gen<Program> gen = prop.view_chains ? gen_view_chain(c) : gen_program(c);
      rc::Random root(21);
      for (int i = 0; i < 40; ++i) {
        rc::Random r = root.split();
        const Program p = gen(r, i % 101).value();
        if (sparse_builder) {
          EXPECT_GE(p.steps.size(), n) << print_program(p);
          EXPECT_LE(p.steps.size(), 8 * n) << print_program(p);
        } else {
          EXPECT_EQ(p.steps.size(), n) << print_program(p);
        }
      }
    }
  }
}

}  // namespace
}  // namespace storcheck

namespace storcheck {
namespace {

// Note [Past a known divergence] (harness/properties.cpp): LibTorch 1.13's
// resize_ of a non-resizable storage changes the sizes before it raises
// (resize-nonresizable-not-atomic-1.13), at step 3; the planted transpose
// fault diverges at step 5. The check goes on past the first and finds the
// second, in the program without step 3, which fails as it is.
class PastKnownDivergence : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!backends_.torch_cpu) GTEST_SKIP() << "storcheck was built without LibTorch";
    if (torch_version().rfind("1.13", 0) != 0)
      GTEST_SKIP() << "resize-nonresizable-not-atomic-1.13 is a divergence of LibTorch 1.13; "
                      "this is "
                   << torch_version();
  }
  static Program parse(const std::string& text) {
    ParseResult r = parse_program(text);
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    return r.program;
  }
  BackendSet backends_ = BackendSet::make();
  const Property& prop_ = property("views.ref_matches_eager");
};

constexpr const char* kKnownThenTranspose =
    "t0 = arange [] f32\n"
    "set_nonresizable t0\n"
    "resize_ t0 [1,3]\n"
    "t1 = arange [2,2] f32\n"
    "t2 = transpose t1 0 1\n";

TEST_F(PastKnownDivergence, TheStepsAfterAKnownDivergenceAreChecked) {
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  const Program p = parse(kKnownThenTranspose);
  ProgramVerdict v = judge_program(prop_, runner, p);
  EXPECT_FALSE(v.failed) << v.text;
  EXPECT_EQ(v.known, (std::vector<std::string_view>{"resize-nonresizable-not-atomic-1.13"}));
  EXPECT_EQ(v.steps, 5);  // steps 1-3, then 4 and 5 of the rerun: each once
}

TEST_F(PastKnownDivergence, AFailureAfterItIsTheProgramWithoutTheStep) {
  FaultScope fault(Fault::kTransposeSquareStrides);
  if (!fault.ok()) GTEST_SKIP() << "build without fault injection (-DSTORCHECK_FAULT_INJECTION=ON)";
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  const Program p = parse(kKnownThenTranspose);
  std::vector<Program> reruns;
  ProgramVerdict v =
      judge_program(prop_, runner, p, [&](const Program& q) { reruns.push_back(q); });
  ASSERT_TRUE(v.failed);
  EXPECT_EQ(v.known, (std::vector<std::string_view>{"resize-nonresizable-not-atomic-1.13"}));
  ASSERT_EQ(reruns.size(), 1u);
  EXPECT_EQ(print_program(v.failing), print_program(reruns[0]));
  ASSERT_EQ(v.failing.steps.size(), 4u);
  for (const Step& s : v.failing.steps) EXPECT_NE(s.op, OpId::kResize_);
  EXPECT_NE(v.text.find("step 4"), std::string::npos) << v.text;
  EXPECT_NE(v.text.find("strides"), std::string::npos) << v.text;
  // It fails as it is, with no known divergence on the way.
  ProgramVerdict again = judge_program(prop_, runner, v.failing);
  EXPECT_TRUE(again.failed);
  EXPECT_TRUE(again.known.empty());
  EXPECT_EQ(again.text, v.text);
}

// The refused steps are passed the same way (Note [Past a known
// divergence]): the reference refuses the sum at step 4 (Note [sum in f64]),
// and the four steps after it are checked in a rerun without it.
constexpr const char* kRefusedThenTranspose =
    "t0 = arange [5] f64\n"
    "t1 = as_strided t0 [] [] 4\n"
    "fill_ t1 9007199254740992\n"
    "t2 = sum t0\n"
    "t3 = arange [2,2] f32\n"
    "t4 = transpose t3 0 1\n"
    "t5 = arange [2] f32\n"
    "t6 = clone t5\n";

class PastARefusedStep : public PastKnownDivergence {
 protected:
  void SetUp() override {
    if (!backends_.torch_cpu) GTEST_SKIP() << "storcheck was built without LibTorch";
  }
};

TEST_F(PastARefusedStep, TheStepsAfterItAreChecked) {
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  std::vector<Program> reruns;
  ProgramVerdict v = judge_program(prop_, runner, parse(kRefusedThenTranspose),
                                   [&](const Program& q) { reruns.push_back(q); });
  EXPECT_FALSE(v.failed) << v.text;
  EXPECT_TRUE(v.known.empty());
  EXPECT_EQ(v.refused_steps, 1);
  EXPECT_NE(v.refusal.find("step 4 (t2 = sum t0): reference refused: sum:"), std::string::npos)
      << v.refusal;
  ASSERT_EQ(reruns.size(), 1u);
  EXPECT_EQ(reruns[0].steps.size(), 7u);
  for (const Step& s : reruns[0].steps) EXPECT_NE(s.op, OpId::kSum);
  EXPECT_EQ(v.steps, 8);  // steps 1-4, then 5-8 in the rerun: each once
}

TEST_F(PastARefusedStep, AFailureAfterItIsTheProgramWithoutTheStep) {
  FaultScope fault(Fault::kTransposeSquareStrides);
  if (!fault.ok()) GTEST_SKIP() << "build without fault injection (-DSTORCHECK_FAULT_INJECTION=ON)";
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  ProgramVerdict v = judge_program(prop_, runner, parse(kRefusedThenTranspose));
  ASSERT_TRUE(v.failed);
  EXPECT_EQ(v.refused_steps, 1);
  ASSERT_EQ(v.failing.steps.size(), 7u);
  EXPECT_NE(v.text.find("step 5"), std::string::npos) << v.text;
  ProgramVerdict again = judge_program(prop_, runner, v.failing);
  EXPECT_TRUE(again.failed);
  EXPECT_EQ(again.refused_steps, 0);
  EXPECT_EQ(again.text, v.text);
}

// Where fewer steps follow the refused one than precede it, no rerun: it
// would repeat more steps than it checks.
TEST_F(PastARefusedStep, NoRerunWhenFewerStepsFollow) {
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  int reruns = 0;
  ProgramVerdict v = judge_program(
      prop_, runner,
      parse("t0 = arange [5] f64\nt1 = as_strided t0 [] [] 4\nfill_ t1 9007199254740992\n"
            "t2 = sum t0\nt3 = arange [2] f32\n"),
      [&](const Program&) { ++reruns; });
  EXPECT_FALSE(v.failed) << v.text;
  EXPECT_EQ(v.refused_steps, 1);
  EXPECT_EQ(reruns, 0);
  EXPECT_EQ(v.steps, 4);
}

TEST_F(PastKnownDivergence, AtMostkMaxKnownPassedArePassed) {
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  std::string text = "t0 = arange [] f32\nset_nonresizable t0\n";
  for (int k = 0; k < kMaxKnownPassed + 4; ++k) text += "resize_ t0 [1,3]\n";
  int reruns = 0;
  ProgramVerdict v = judge_program(prop_, runner, parse(text), [&](const Program&) { ++reruns; });
  EXPECT_FALSE(v.failed) << v.text;
  EXPECT_EQ(v.known.size(), static_cast<size_t>(kMaxKnownPassed) + 1);
  EXPECT_EQ(reruns, kMaxKnownPassed);
}

}  // namespace
}  // namespace storcheck

namespace storcheck {
namespace {

// What check_property reports is the program that fails as it is: without
// the steps where known divergences were passed (unshrunk here, so the
// generated program's 256 steps less those). views.errors_agree's many
// invalid steps make LibTorch 1.13's known divergences frequent in 256-step
// programs, and some of these failures are found past one.
TEST_F(PastKnownDivergence, TheCounterexampleFailsAsItIs) {
  FaultScope fault(Fault::kTransposeSquareStrides);
  if (!fault.ok()) GTEST_SKIP() << "build without fault injection (-DSTORCHECK_FAULT_INJECTION=ON)";
  const Property& prop = property("views.errors_agree");
  Runner runner({backends_.reference.get(), backends_.torch_cpu.get()}, Limits{});
  int past_known = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(seed);
    CheckOptions opt;
    opt.seed = seed;
    opt.programs = 200;
    opt.steps = 256;
    opt.shrink = false;
    opt.write_ahead = false;
    CheckResult r = check_property(prop, opt, backends_);
    ASSERT_FALSE(r.passed);
    ASSERT_LE(r.counterexample.steps.size(), 256u);
    past_known += r.counterexample.steps.size() < 256u;
    ProgramVerdict v = judge_program(prop, runner, r.counterexample);
    EXPECT_TRUE(v.failed);
    EXPECT_TRUE(v.known.empty());
    EXPECT_EQ(v.text, r.failure_text);
  }
  EXPECT_GE(past_known, 1);
}

}  // namespace
}  // namespace storcheck
