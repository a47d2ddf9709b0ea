// `storcheck bench` runs to completion on a small set and reports every row
// it promises (the figures themselves are machine-dependent and not checked).
#include "harness/bench.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace storcheck {
namespace {

BenchOptions small_bench() {
  BenchOptions o;
  o.seed = 3;
  o.programs = 50;
  o.steps = 4;
  return o;
}

TEST(Bench, TablePrintsEveryModeRatioAndScalingRow) {
  std::ostringstream out, err;
  ASSERT_EQ(run_bench(small_bench(), out, err), 0) << err.str();
  const std::string s = out.str();
  for (const char* label : {"reference only", "LibTorch only", "full check (pre-generated)",
                            "end to end (generation included)", "ratio reference / LibTorch only:",
                            "ratio full check / LibTorch only:", "reference, execution only",
                            "LibTorch, execution only",
                            "ratio reference / LibTorch, execution only:",
                            "scaling with program length",
                            "scaling with tensor size", "generator:", "peak RSS (VmHWM):"})
    EXPECT_NE(s.find(label), std::string::npos) << "missing '" << label << "' in:\n" << s;
  EXPECT_TRUE(err.str().empty()) << err.str();
}

TEST(Bench, JsonStartsWithBraceAndHasProgramsPerSecond) {
  BenchOptions o = small_bench();
  o.json = true;
  std::ostringstream out, err;
  ASSERT_EQ(run_bench(o, out, err), 0) << err.str();
  const std::string s = out.str();
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.front(), '{');
  EXPECT_EQ(s[s.find_last_not_of(" \n")], '}');
  int depth = 0;  // braces and brackets balance (no strings here hold them)
  for (char c : s) {
    depth += (c == '{' || c == '[') - (c == '}' || c == ']');
    ASSERT_GE(depth, 0) << s;
  }
  EXPECT_EQ(depth, 0) << s;
  EXPECT_NE(s.find("\"programs_per_second\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"reference_over_torch\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"length_scaling\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"peak_rss_kib\""), std::string::npos) << s;
  // The execution-only passes run the very steps the observed runs do
  // (Note [Step outcome rules]): same steps_run per pass.
  auto steps_run = [&](const std::string& mode) -> long long {
    size_t at = s.find("{\"mode\": \"" + mode + "\"");
    if (at == std::string::npos) return -1;
    at = s.find("\"steps_run\": ", at);
    return at == std::string::npos ? -1 : std::atoll(s.c_str() + at + 13);
  };
  EXPECT_GT(steps_run("reference"), 0) << s;
  EXPECT_EQ(steps_run("reference_execution"), steps_run("reference")) << s;
  EXPECT_EQ(steps_run("torch_cpu_execution"), steps_run("torch_cpu")) << s;
  EXPECT_NE(s.find("\"reference_over_torch_execution_only\""), std::string::npos) << s;
}

TEST(Bench, RejectsZeroProgramsAsIncorrectUsage) {
  BenchOptions o = small_bench();
  o.programs = 0;
  std::ostringstream out, err;
  EXPECT_EQ(run_bench(o, out, err), 2);
  EXPECT_NE(err.str().find("Incorrect usage:"), std::string::npos) << err.str();
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace storcheck
