#include "generators/program_gen.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "program/text_format.h"

namespace storcheck {
namespace {

/// Draws a value from gen deterministically (seed, size): for counting tests.
template <typename T>
T sample(const rc::Gen<T>& gen, uint64_t seed, int size) {
  return gen(rc::Random(seed), size).value();
}

bool valid(const Program& p, std::string* why) {
  bool ok = false;
  ParseError e = validate_program(p, Limits{}, &ok);
  if (!ok) *why = e.to_string() + "\n" + print_program(p);
  return ok;
}

int64_t product(const IntList& l) {
  int64_t n = 1;
  for (int64_t x : l) n *= x;
  return n;
}

RC_GTEST_PROP(ProgramGen, EveryProgramPassesValidateWithDefaultLimits, ()) {
  Program p = *gen_program(GenConfig{});
  std::string why;
  RC_ASSERT(valid(p, &why));
}

RC_GTEST_PROP(ProgramGen, HighInvalidShareStillWellFormed, ()) {
  GenConfig cfg;
  cfg.invalid_per_mille = 500;
  cfg.max_steps = 40;
  Program p = *gen_program(cfg);
  std::string why;
  RC_ASSERT(valid(p, &why));
}

RC_GTEST_PROP(ProgramGen, PrintParseRoundTripsToEqualProgram, ()) {
  Program p = *gen_program(GenConfig{});
  std::string text = print_program(p);
  ParseResult r = parse_program(text);
  RC_ASSERT(r.ok());
  RC_ASSERT(r.program == p);
}

RC_GTEST_PROP(ProgramGen, RespectsMinAndMaxSteps, ()) {
  GenConfig cfg;
  cfg.max_steps = *rc::gen::inRange(1, 40);
  cfg.min_steps = *rc::gen::inRange(0, cfg.max_steps + 1);
  Program p = *gen_program(cfg);
  RC_ASSERT(static_cast<int>(p.steps.size()) <= cfg.max_steps);
  RC_ASSERT(static_cast<int>(p.steps.size()) >= cfg.min_steps);
}

RC_GTEST_PROP(ProgramGen, RemovingAnyChoiceStillYieldsWellFormedProgram, ()) {
  GenConfig cfg;
  auto choices = *rc::gen::container<std::vector<StepChoice>>(gen_step_choice(cfg));
  RC_PRE(!choices.empty());
  size_t k = *rc::gen::inRange<size_t>(0, choices.size());
  choices.erase(choices.begin() + k);
  std::string why;
  RC_ASSERT(valid(build_program(choices, cfg), &why));
}

RC_GTEST_PROP(ProgramGen, FactoriesStayWithinMaxNumel, ()) {
  GenConfig cfg;
  cfg.max_numel = *rc::gen::inRange<int64_t>(1, 200);
  cfg.invalid_per_mille = 0;
  Program p = *gen_program(cfg);
  for (const Step& s : p.steps) {
    if (s.info().category != OpCategory::kFactory) continue;
    RC_ASSERT(product(s.args[0].list) <= cfg.max_numel);
  }
}

RC_GTEST_PROP(ProgramGen, NoEdgeValuesMeansNoEmptyFactoriesAndNoNanScalars, ()) {
  GenConfig cfg;
  cfg.edge_values = false;
  cfg.invalid_per_mille = 0;
  Program p = *gen_program(cfg);
  for (const Step& s : p.steps) {
    if (s.info().category == OpCategory::kFactory) RC_ASSERT(product(s.args[0].list) > 0);
    for (int k = 0; k < s.nargs; ++k)
      if (s.args[k].kind == ArgKind::kScalar && s.args[k].scalar.kind == ScalarLit::Kind::kFloat)
        RC_ASSERT(std::isfinite(s.args[k].scalar.f));
  }
}

TEST(ProgramGen, EveryOpAppearsWithin2000Programs) {
  std::array<int, kNumOps> seen{};
  rc::Gen<Program> gen = gen_program(GenConfig{});
  for (int k = 0; k < 2000; ++k) {
    Program p = sample(gen, 1000 + k, k % 100);
    for (const Step& s : p.steps) ++seen[static_cast<int>(s.op)];
  }
  for (const OpInfo& info : op_table())
    EXPECT_GT(seen[static_cast<int>(info.id)], 0) << "op " << info.name << " never generated";
}

TEST(ProgramGen, OpSubsetDrawsOnlyThoseOpsPlusSeedFactory) {
  GenConfig cfg;
  cfg.ops = ops_in({OpCategory::kView});
  rc::Gen<Program> gen = gen_program(cfg);
  for (int k = 0; k < 200; ++k) {
    Program p = sample(gen, 7 + k, 50);
    for (const Step& s : p.steps)
      EXPECT_TRUE(s.info().category == OpCategory::kView || s.op == OpId::kArange)
          << print_step(p, s);
  }
}

TEST(ProgramGen, ZeroInvalidShareKeepsSelectAndTransposeArgsInRange) {
  GenConfig cfg;
  cfg.invalid_per_mille = 0;
  cfg.ops = ops_in({OpCategory::kFactory, OpCategory::kView, OpCategory::kInplaceView});
  rc::Gen<StepChoice> choice = gen_step_choice(cfg);
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(choice);
  int selects = 0, transposes = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 99 + k, 40), cfg, &trace);
    ASSERT_EQ(trace.size(), p.steps.size());
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      const StepTrace& t = trace[j];
      ASSERT_FALSE(t.invalid) << print_step(p, s);
      int64_t r = t.input.sizes.size();
      if (s.op == OpId::kSelect) {
        ++selects;
        int64_t d = s.args[1].i, i = s.args[2].i;
        ASSERT_TRUE(d >= -r && d < r) << print_step(p, s) << " rank " << r;
        int64_t size = t.input.sizes[d < 0 ? d + r : d];
        ASSERT_TRUE(i >= -size && i < size) << print_step(p, s) << " size " << size;
      }
      if (s.op == OpId::kTranspose || s.op == OpId::kTranspose_) {
        ++transposes;
        int64_t R = r > 0 ? r : 1;
        for (int a = 1; a <= 2; ++a)
          ASSERT_TRUE(s.args[a].i >= -R && s.args[a].i < R) << print_step(p, s) << " rank " << r;
      }
    }
  }
  EXPECT_GT(selects, 20);
  EXPECT_GT(transposes, 20);
}

TEST(ProgramGen, DefaultShareMakesSomeButFewStepsInvalid) {
  GenConfig cfg;
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(gen_step_choice(cfg));
  int steps = 0, invalid = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<StepTrace> trace;
    Program p = build_program(sample(choices, 5 + k, 30), cfg, &trace);
    for (const StepTrace& t : trace) {
      ++steps;
      invalid += t.invalid;
    }
  }
  EXPECT_GT(invalid, 0);
  EXPECT_LT(invalid * 10, steps);  // about 5%, well under 10%
}

TEST(ProgramGen, BuildProgramPadsEmptyChoicesToMinSteps) {
  GenConfig cfg;
  cfg.min_steps = 3;
  Program p = build_program({}, cfg);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(print_program(p), std::string(kProgramHeader) +
                                  "\nt0 = arange [] f32\nt1 = arange [] f32\nt2 = arange [] f32\n");
}

RC_GTEST_PROP(ViewChain, EachViewReadsThePreviousResult, ()) {
  GenConfig cfg;
  Program p = *gen_view_chain(cfg);
  std::string why;
  RC_ASSERT(valid(p, &why));
  RC_ASSERT(!p.steps.empty());
  RC_ASSERT(p.steps[0].info().category == OpCategory::kFactory);
  for (size_t k = 1; k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    RC_ASSERT(s.info().category == OpCategory::kView);
    RC_ASSERT(s.args[0].var == p.steps[k - 1].out);
  }
}

RC_GTEST_PROP(Shapes, GenShapeRespectsRankAndNumel, ()) {
  int max_rank = *rc::gen::inRange(0, kMaxRank + 1);
  int64_t max_numel = *rc::gen::inRange<int64_t>(1, 500);
  IntList s = *gen_shape(max_rank, max_numel);
  RC_ASSERT(s.size() <= max_rank);
  RC_ASSERT(product(s) <= max_numel);
  for (int64_t x : s) RC_ASSERT(x >= 0);
}

TEST(Shapes, GenDtypeCoversEveryDtype) {
  std::array<int, kNumDTypes> seen{};
  for (int k = 0; k < 300; ++k) ++seen[static_cast<int>(sample(gen_dtype(), k, 50))];
  for (int k = 0; k < kNumDTypes; ++k) EXPECT_GT(seen[k], 0) << dtype_token(static_cast<DTypeArg>(k));
}

TEST(OpSets, OpsInSelectsCategories) {
  OpSet s = ops_in({OpCategory::kFactory});
  EXPECT_EQ(s.count(), 6u);
  EXPECT_TRUE(s.test(static_cast<int>(OpId::kRand)));
  EXPECT_FALSE(s.test(static_cast<int>(OpId::kView)));
  EXPECT_EQ(all_ops().count(), static_cast<size_t>(kNumOps));
}

}  // namespace
}  // namespace storcheck
