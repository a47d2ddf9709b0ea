#include "harness/shrink.h"

#include <gtest/gtest.h>

#include "generators/program_gen.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

Program parse_ok(const char* text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

TEST(RemoveStep, AlsoRemovesTransitiveDependents) {
  Program p = parse_ok(
      "t0 = arange [4] f32\nt1 = zeros [2] f32\nt2 = view t0 [2,2]\nt3 = t t2\nadd_ t1 1\n");
  Program q = remove_step(p, 0);
  EXPECT_EQ(print_program(q), "# storcheck program v1\nt1 = zeros [2] f32\nadd_ t1 1\n");
  bool ok = false;
  validate_program(q, Limits{}, &ok);
  EXPECT_TRUE(ok);
}

TEST(Renumber, NamesVariablesDenselyInDefinitionOrder) {
  Program p = parse_ok("a = arange [4] f32\nb = zeros [2] f32\nc = t b\n");
  Program q = renumber(remove_step(p, 0));
  EXPECT_EQ(print_program(q), "# storcheck program v1\nt0 = zeros [2] f32\nt1 = t t0\n");
}

TEST(MinimizeSteps, ReachesAOneMinimalProgram) {
  // "Fails" while the program still transposes a tensor that was written to.
  Program p = parse_ok(
      "t0 = arange [3,4] f32\nt1 = zeros [2] f32\nfill_ t1 2\nt2 = clone t1\nadd_ t0 1\n"
      "t3 = ones [5] i32\nt4 = transpose t0 0 1\nt5 = clone t4\n");
  auto fails = [](const Program& q) {
    bool wrote = false;
    for (const Step& s : q.steps) {
      if (s.op == OpId::kAdd_) wrote = true;
      if (s.op == OpId::kTranspose && wrote) return true;
    }
    return false;
  };
  Program m = minimize_steps(p, fails);
  EXPECT_EQ(print_program(m),
            "# storcheck program v1\nt0 = arange [3,4] f32\nadd_ t0 1\nt1 = transpose t0 0 1\n");
  // One-minimal: no single-step removal keeps it failing.
  for (size_t k = 0; k < m.steps.size(); ++k) EXPECT_FALSE(fails(remove_step(m, k)));
}

TEST(ShrinkFailing, WalksTheShrinkTreeThenEndsOneMinimal) {
  // "Fails" while a transpose remains: from a generated program with one,
  // the result ends at a transpose and needs every step it keeps.
  auto fails = [](const Program& q) {
    for (const Step& s : q.steps)
      if (s.op == OpId::kTranspose) return true;
    return false;
  };
  GenConfig cfg;
  cfg.min_steps = cfg.max_steps = 16;
  rc::Gen<Program> gen = gen_program(cfg);
  rc::Random root(7);
  int shrunk = 0;
  for (int i = 0; i < 500 && shrunk < 3; ++i) {
    rc::Shrinkable<Program> sp = gen(root.split(), 50);
    if (!fails(sp.value())) continue;
    int calls = 0;
    Program m = shrink_failing(sp, [&](const Program& q) {
      ++calls;
      return fails(q);
    });
    ASSERT_FALSE(m.steps.empty());
    EXPECT_TRUE(fails(m));
    EXPECT_EQ(m.steps.back().op, OpId::kTranspose) << print_program(m);
    EXPECT_LT(m.steps.size(), sp.value().steps.size());
    for (size_t k = 0; k < m.steps.size(); ++k) EXPECT_FALSE(fails(remove_step(m, k)));
    EXPECT_GT(calls, 0);
    ++shrunk;
  }
  EXPECT_EQ(shrunk, 3);
}

TEST(ShrinkFailing, StopsWalkingTheTreeAfterItsCandidateBudget) {
  GenConfig cfg;
  cfg.min_steps = cfg.max_steps = 16;
  rc::Shrinkable<Program> sp = gen_program(cfg)(rc::Random(11), 50);
  int calls = 0;
  // Everything fails: the tree walk takes every first shrink until the
  // budget runs out; minimize_steps then removes steps one at a time.
  Program m = shrink_failing(
      sp,
      [&](const Program&) {
        ++calls;
        return true;
      },
      5);
  EXPECT_TRUE(m.steps.empty());
  EXPECT_GE(calls, 4);  // the 4 tree candidates, then step removals
}

}  // namespace
}  // namespace storcheck
