#include "harness/fuzz/fuzz_target.h"

#include <gtest/gtest.h>

#include "impl/fault.h"

namespace storcheck {
namespace {

TEST(FuzzTargets, AreasNestViewsInShrinkInCowInFake) {
  const FuzzTarget* views = find_fuzz_target("views_fuzzer");
  const FuzzTarget* shrink = find_fuzz_target("shrink_fuzzer");
  const FuzzTarget* cow = find_fuzz_target("cow_fuzzer");
  const FuzzTarget* fake = find_fuzz_target("fake_fuzzer");
  ASSERT_TRUE(views && shrink && cow && fake);
  EXPECT_FALSE(views->ops.test(static_cast<size_t>(OpId::kShrink)));
  EXPECT_FALSE(views->ops.test(static_cast<size_t>(OpId::kLazyClone)));
  EXPECT_TRUE(views->ops.test(static_cast<size_t>(OpId::kAsStrided)));
  EXPECT_TRUE(shrink->ops.test(static_cast<size_t>(OpId::kRehydrate)));
  EXPECT_FALSE(shrink->ops.test(static_cast<size_t>(OpId::kFromBlob)));
  EXPECT_TRUE(cow->ops.test(static_cast<size_t>(OpId::kFromBlob)));
  EXPECT_FALSE(cow->ops.test(static_cast<size_t>(OpId::kFake)));
  EXPECT_EQ(fake->ops.count(), static_cast<size_t>(kNumOps));
  EXPECT_EQ((views->ops & ~shrink->ops).count(), 0u);
  EXPECT_EQ((shrink->ops & ~cow->ops).count(), 0u);
  EXPECT_EQ((cow->ops & ~fake->ops).count(), 0u);
}

TEST(FuzzHarness, RejectsTextThatDoesNotParse) {
  FuzzHarness h(*find_fuzz_target("views_fuzzer"));
  FuzzResult r = h.run("t0 = no_such_op [2] f32\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kRejected);
  EXPECT_NE(r.reject_reason.find("unknown op 'no_such_op'"), std::string::npos) << r.reject_reason;
}

TEST(FuzzHarness, RejectsProgramsBeyondTheFuzzLimits) {
  FuzzHarness h(*find_fuzz_target("views_fuzzer"));
  std::string text = "t0 = arange [2] f32\n";
  for (int k = 0; k < 70; ++k) text += "add_ t0 1\n";
  FuzzResult r = h.run(text);
  EXPECT_EQ(r.outcome, FuzzOutcome::kRejected);
  EXPECT_NE(r.reject_reason.find("max_steps 64"), std::string::npos) << r.reject_reason;
}

TEST(FuzzHarness, RejectsAnOpOutsideTheTargetsArea) {
  FuzzHarness h(*find_fuzz_target("views_fuzzer"));
  FuzzResult r = h.run("t0 = arange [2] f32\nt1 = lazy_clone t0\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kRejected);
  EXPECT_EQ(r.reject_reason, "op 'lazy_clone' is outside views_fuzzer's area");
  FuzzHarness cow(*find_fuzz_target("cow_fuzzer"));
  EXPECT_EQ(cow.run("t0 = arange [2] f32\nt1 = lazy_clone t0\n").outcome, FuzzOutcome::kPassed);
}

TEST(FuzzHarness, PassesAProgramThatAgrees) {
  FuzzHarness h(*find_fuzz_target("shrink_fuzzer"));
  FuzzResult r = h.run("t0 = arange [2,3] f32\nt1 = transpose t0 0 1\nshrink t0\nt2 = clone t1\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kPassed) << r.verdict.what;
  EXPECT_EQ(r.program.steps.size(), 4u);
}

struct FaultGuard {
  explicit FaultGuard(Fault f) { ok = set_active_fault(f); }
  ~FaultGuard() { set_active_fault(Fault::kNone); }
  bool ok = false;
};

TEST(FuzzHarness, FindsAPlantedFaultWithTheSignatureRepro) {
  FaultGuard g(Fault::kTransposeSquareStrides);
  if (!g.ok) GTEST_SKIP() << "built without STORCHECK_FAULT_INJECTION";
  FuzzHarness h(*find_fuzz_target("views_fuzzer"));
  FuzzResult r = h.run("t0 = arange [3,3] f32\nt1 = transpose t0 0 1\n");
  ASSERT_EQ(r.outcome, FuzzOutcome::kFinding);
  std::string report = finding_report(h.target(), r, "transpose_square_strides");
  EXPECT_NE(report.find("DIVERGENCE at step 2 (t1 = transpose t0 0 1)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("--plant-fault transpose_square_strides"), std::string::npos);
  // The signature has no step number: a longer program with the same fault
  // gives the same one (deduplication, minimization).
  FuzzResult longer =
      h.run("t0 = zeros [2] i64\nt1 = arange [3,3] f32\nadd_ t1 1\nt2 = transpose t1 0 1\n");
  ASSERT_EQ(longer.outcome, FuzzOutcome::kFinding);
  EXPECT_EQ(r.verdict.signature, "divergence transpose strides");
  EXPECT_EQ(longer.verdict.signature, r.verdict.signature);
}

TEST(ParserRoundtrip, AcceptsAProgramAndRejectsGarbage) {
  std::string why;
  EXPECT_EQ(check_parser_roundtrip("t0 = full [2] -0.0 f64\nt1 = expand t0 [3,-1]\n", &why),
            FuzzOutcome::kPassed)
      << why;
  EXPECT_EQ(check_parser_roundtrip(std::string_view("t0 = \0zeros", 11), &why),
            FuzzOutcome::kRejected);
  EXPECT_EQ(check_parser_roundtrip("t0 = zeros [2,] f32\n", &why), FuzzOutcome::kRejected);
  EXPECT_TRUE(why.empty());
}

}  // namespace
}  // namespace storcheck
