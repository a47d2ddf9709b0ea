#include "harness/shrink.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace storcheck
