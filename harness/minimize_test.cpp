#include "harness/minimize.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "impl/fault.h"

namespace storcheck {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct FaultOff {
  ~FaultOff() { set_active_fault(Fault::kNone); }
};

TEST(Minimize, RemovesEveryStepTheFailureDoesNotNeed) {
  if (!fault_injection_available()) GTEST_SKIP() << "built without STORCHECK_FAULT_INJECTION";
  FaultOff off;
  MinimizeOptions o;
  o.path = temp_file("minimize-in.sc",
                     "t0 = zeros [4] i64\nt1 = arange [3,3] f32\nadd_ t0 1\nt2 = clone t0\n"
                     "t3 = transpose t1 0 1\nt4 = unsqueeze t2 0\n");
  o.out_path = ::testing::TempDir() + "minimize-out.sc";
  o.plant_fault = "transpose_square_strides";
  std::ostringstream out, err;
  EXPECT_EQ(run_minimize(o, out, err), 1) << err.str();
  EXPECT_EQ(out.str(), "");
  std::string small = read_all(o.out_path);
  EXPECT_NE(small.find("\nt0 = arange [3,3] f32\nt1 = transpose t0 0 1\n"), std::string::npos)
      << small;
  EXPECT_EQ(small.find("zeros"), std::string::npos) << small;
  EXPECT_NE(small.find("# minimized: 6 -> 2 steps, failure kept: divergence transpose strides"),
            std::string::npos)
      << small;
  EXPECT_NE(err.str().find("6 -> 2 steps"), std::string::npos);
}

TEST(Minimize, AProgramThatPassesIsLeftAlone) {
  MinimizeOptions o;
  o.path = temp_file("minimize-pass.sc", "t0 = arange [3,3] f32\nt1 = transpose t0 0 1\n");
  o.out_path = ::testing::TempDir() + "minimize-pass-out.sc";
  std::remove(o.out_path.c_str());
  std::ostringstream out, err;
  EXPECT_EQ(run_minimize(o, out, err), 0);
  EXPECT_NE(err.str().find("does not fail"), std::string::npos);
  EXPECT_FALSE(std::ifstream(o.out_path).good());
}

TEST(Minimize, AMalformedFileIsAnInputError) {
  MinimizeOptions o;
  o.path = temp_file("minimize-bad.sc", "t0 = arange [3,3 f32\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_minimize(o, out, err), 2);
  EXPECT_NE(err.str().find("minimize-bad.sc:1:"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace storcheck
