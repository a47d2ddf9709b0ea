// The GPU tests of the LibTorch CUDA backend (issue 11, ctest label gpu):
// each device property on real CUDA eager execution. Without a CUDA build
// of LibTorch or a usable device every test skips with the reason
// (make_torch_cuda_backend); scripts/test-device.sh runs them on a GPU.
#include <gtest/gtest.h>

#include <string>

#include "harness/properties.h"
#include "oracles/backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// Skips the calling test when no CUDA backend can be made.
#define SKIP_WITHOUT_CUDA()                                                  \
  do {                                                                       \
    std::string why;                                                         \
    if (!make_torch_cuda_backend(false, &why)) GTEST_SKIP() << why;          \
  } while (0)

void check(std::string_view name, int64_t programs) {
  SCOPED_TRACE(std::string(name));
  const Property* prop = find_property(name);
  ASSERT_NE(prop, nullptr);
  BackendSet backends = BackendSet::make();
  CheckOptions opt;
  opt.seed = 1;
  opt.programs = programs;
  CheckResult r = check_property(*prop, opt, backends);
  if (r.skipped) GTEST_SKIP() << r.skip_reason;
  EXPECT_TRUE(r.passed) << r.failure_text << "\n" << r.reproducer_path;
  EXPECT_EQ(r.programs, programs);
  std::printf("%s: %lld programs, %lld steps, %lld known divergences, %.2f s\n",
              std::string(name).c_str(), static_cast<long long>(r.programs),
              static_cast<long long>(r.steps), static_cast<long long>(r.known), r.seconds);
}

TEST(TorchCuda, CpuMatchesCuda) {
  SKIP_WITHOUT_CUDA();
  check("device.cpu_matches_cuda", 3000);
}

TEST(TorchCuda, ReferenceMatchesTorchCuda) {
  SKIP_WITHOUT_CUDA();
  check("device.ref_matches_torch_cuda", 3000);
}

TEST(TorchCuda, ShrinkFreesDeviceMemory) {
  SKIP_WITHOUT_CUDA();
  check("shrink.frees_device_memory", 3000);
}

TEST(TorchCuda, CowDeviceCopyOnlyOnWrite) {
  SKIP_WITHOUT_CUDA();
  check("cow.device_copy_only_on_write", 3000);
}

// Tensors live on the device and report it; a shrink of a 16 KiB storage
// passes the memory check (it frees at least 16 KiB), with the same
// observations as LibTorch on CPU.
TEST(TorchCuda, TensorsAreOnTheDeviceAndShrinkFrees) {
  std::string why;
  std::unique_ptr<Backend> cuda = make_torch_cuda_backend(true, &why);
  if (!cuda) GTEST_SKIP() << why;
  EXPECT_EQ(cuda->name(), "torch_cuda");
  EXPECT_EQ(cuda->capabilities().device, Device::kCuda);
  std::unique_ptr<Backend> cpu = make_torch_cpu_backend();
  ParseResult parsed = parse_program(
      "# storcheck program v1\n"
      "t0 = arange [64,64] f32\n"
      "t1 = transpose t0 0 1\n"
      "shrink t0\n"
      "t2 = clone t1\n"
      "rehydrate\n"
      "add_ t1 2\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  Runner runner({cpu.get(), cuda.get()}, Limits{});
  RunReport rep = runner.run(parsed.program, /*keep_trace=*/true);
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(parsed.program);
  EXPECT_EQ(rep.steps_failed, 0);
  ASSERT_EQ(rep.last.size(), 2u);
  EXPECT_EQ(rep.last[1].vars[0].device, Device::kCuda);
  EXPECT_EQ(rep.last[0].vars[0].device, Device::kCpu);
}

}  // namespace
}  // namespace storcheck
