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
  // Every op but the device ones (cuda, cpu): they need a GPU.
  EXPECT_EQ(fake->ops, all_ops() & ~device_ops());
  EXPECT_EQ(device_ops().count(), 2u);
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
  // Devices need a GPU: no program target takes them (issue 11).
  FuzzHarness fake(*find_fuzz_target("fake_fuzzer"));
  r = fake.run("t0 = arange [2] f32\nt1 = cuda t0\n");
  EXPECT_EQ(r.reject_reason, "op 'cuda' is outside fake_fuzzer's area");
  r = fake.run("t0 = arange [2] f32 cpu\n");
  EXPECT_EQ(r.reject_reason, "a factory's device argument is outside fake_fuzzer's area");
}

// Note [What a fuzz input is] 4).
TEST(FuzzHarness, RejectsASplitIntoMoreResultsThanTheFuzzLimit) {
  FuzzHarness views(*find_fuzz_target("views_fuzzer"));
  FuzzResult r = views.run("t0 = arange [1000] f32\nt1 = split t0 1 0 3\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kRejected);
  EXPECT_EQ(r.reject_reason,
            "step 2 (split) would produce 1000 results, more than the fuzz limit of 256");
  r = views.run("t0 = arange [300] f32\nt1 = unbind t0 0 0\n");
  EXPECT_EQ(r.reject_reason,
            "step 2 (unbind) would produce 300 results, more than the fuzz limit of 256");
  // chunk 1000 of 600 elements: chunks of 1, 600 results.
  r = views.run("t0 = arange [600] f32\nt1 = chunk t0 1000 0 0\n");
  EXPECT_EQ(r.reject_reason,
            "step 2 (chunk) would produce 600 results, more than the fuzz limit of 256");
  // The shapes are the reference's: a meta tensor of huge sizes.
  FuzzHarness fake(*find_fuzz_target("fake_fuzzer"));
  r = fake.run("t0 = zeros [2,3] f64\nt1 = meta t0\nresize_ t1 [100000,100000]\n"
               "t2 = split t1 2 1 1\n");
  EXPECT_EQ(r.reject_reason,
            "step 4 (split) would produce 50000 results, more than the fuzz limit of 256");
}

TEST(FuzzHarness, JudgesSplitsUpToTheFuzzLimitAndSkipsAsTheRunnerDoes) {
  FuzzHarness h(*find_fuzz_target("views_fuzzer"));
  FuzzResult r = h.run("t0 = arange [256] f32\nt1 = split t0 1 0 255\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kPassed) << r.reject_reason << r.verdict.what;
  // chunk 1000 of 200 elements: 200 results.
  r = h.run("t0 = arange [200] f32\nt1 = chunk t0 1000 0 0\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kPassed) << r.reject_reason << r.verdict.what;
  // t1 fails (1000 elements do not view as [3,5]), so the split reading it is skipped.
  r = h.run("t0 = arange [1000] f32\nt1 = view t0 [3,5]\nt2 = split t1 1 0 0\n");
  EXPECT_EQ(r.outcome, FuzzOutcome::kPassed) << r.reject_reason << r.verdict.what;
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
