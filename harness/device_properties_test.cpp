// The device properties (issue 11) where no CUDA LibTorch is usable, and the
// code the LibTorch CUDA backend runs (Note [Device backends],
// oracles/torch_backend.cpp) exercised on CPU: torch_cpu_staged moves every
// byte the backend itself touches through tensor ops and host copies, as on
// a GPU, and must agree with the reference and with plain torch_cpu.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "generators/program_gen.h"
#include "harness/gate.h"
#include "harness/properties.h"
#include "oracles/backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

const Property& property(std::string_view name) {
  const Property* p = find_property(name);
  if (!p) ADD_FAILURE() << "no property " << name;
  return p ? *p : properties().front();
}

const std::vector<std::string_view> kDeviceProperties = {
    "device.cpu_matches_cuda", "device.ref_matches_torch_cuda", "shrink.frees_device_memory",
    "cow.device_copy_only_on_write"};

TEST(DeviceProperties, AreInTheGateOrderAndNeedCuda) {
  for (std::string_view name : kDeviceProperties) {
    SCOPED_TRACE(std::string(name));
    EXPECT_TRUE(property(name).needs_cuda());
    EXPECT_FALSE(property(name).needs_pytorch());
  }
  EXPECT_FALSE(property("views.ref_matches_eager").needs_cuda());
}

TEST(DeviceProperties, SkipWithTheReasonWithoutACudaBackend) {
  std::string why;
  if (make_torch_cuda_backend(false, &why)) GTEST_SKIP() << "a CUDA device is usable here";
  ASSERT_FALSE(why.empty());
  for (std::string_view name : kDeviceProperties) {
    SCOPED_TRACE(std::string(name));
    BackendSet backends = BackendSet::make();
    CheckOptions opt;
    opt.programs = 10;
    CheckResult r = check_property(property(name), opt, backends);
    EXPECT_TRUE(r.skipped);
    EXPECT_TRUE(r.passed);
    EXPECT_EQ(r.programs, 0);
    EXPECT_EQ(r.skip_reason, "needs the LibTorch CUDA backend: " + why);
  }
}

/// Checks `programs` programs of property `name` on `backends`: all pass.
CheckResult expect_passes(std::string_view name, uint64_t seed, int64_t programs,
                          BackendSet& backends) {
  SCOPED_TRACE(std::string(name));
  CheckOptions opt;
  opt.seed = seed;
  opt.programs = programs;
  CheckResult r = check_property(property(name), opt, backends);
  EXPECT_FALSE(r.skipped) << r.skip_reason;
  EXPECT_TRUE(r.passed) << r.failure_text;
  EXPECT_EQ(r.programs, programs);
  EXPECT_GT(r.steps, programs * 4);
  return r;
}

/// The device properties' backends with torch_cpu_staged standing in for CUDA.
BackendSet staged_set() {
  BackendSet s = BackendSet::make();
  s.torch_cuda = make_torch_cpu_staged_backend();
  s.torch_cuda_memory = make_torch_cpu_staged_backend();
  return s;
}

TEST(DeviceProperties, StagedDevicePathsPassEveryDeviceProperty) {
  BackendSet backends = staged_set();
  if (!backends.torch_cuda) GTEST_SKIP() << "storcheck was built without LibTorch";
  // The same programs on one device: nothing refused.
  EXPECT_EQ(expect_passes("device.cpu_matches_cuda", 5, 400, backends).refused, 0);
  // Device programs (cuda steps, factories onto CUDA): the CPU stand-in
  // refuses each CUDA step and the run is compared up to it.
  for (std::string_view name : {"device.ref_matches_torch_cuda", "shrink.frees_device_memory"}) {
    CheckResult r = expect_passes(name, 5, 400, backends);
    EXPECT_GT(r.refused, 100) << name;
    EXPECT_LT(r.refused, 400) << name;
    EXPECT_NE(r.first_refusal.find("no usable CUDA device"), std::string::npos) << r.first_refusal;
  }
  // Without _lazy_clone (LibTorch < 2.3) the COW one says why it skips.
  CheckResult cow = check_property(property("cow.device_copy_only_on_write"), CheckOptions{},
                                   backends);
  if (!backends.torch_cuda_memory->capabilities().cow) {
    EXPECT_TRUE(cow.skipped);
    EXPECT_NE(cow.skip_reason.find("needs LibTorch 2.3+"), std::string::npos) << cow.skip_reason;
  }
}

// The differential properties against LibTorch, with the staged backend as
// their LibTorch: shrink, COW, meta/fake and sparse programs cross every
// staged path (zero_bytes, host_bytes, copy_storage, device-side from_blob).
TEST(DeviceProperties, StagedBackendAgreesWithTheReferenceOnTheTorchProperties) {
  BackendSet backends = BackendSet::make();
  backends.torch_cpu = make_torch_cpu_staged_backend();
  if (!backends.torch_cpu) GTEST_SKIP() << "storcheck was built without LibTorch";
  EXPECT_EQ(backends.torch_cpu->name(), "torch_cpu_staged");
  for (std::string_view name : {"views.ref_matches_eager", "shrink.matches_eager",
                                "cow.matches_torch", "fake.matches_libtorch_meta",
                                "fake.sparse_metadata"})
    expect_passes(name, 9, 300, backends);
}

// Every byte path of the staged backend, step by step, against torch_cpu's
// pointers: the same observations (values included) after every step.
TEST(DeviceProperties, StagedObservationsEqualDirectOnes) {
  std::unique_ptr<Backend> direct = make_torch_cpu_backend();
  std::unique_ptr<Backend> staged = make_torch_cpu_staged_backend();
  if (!direct) GTEST_SKIP() << "storcheck was built without LibTorch";
  const char* text =
      "# storcheck program v1\n"
      "t0 = empty_strided [3,2] [1,4] f32\n"   // zero_bytes over the whole storage
      "t1 = rand [2,3] f64 7\n"                // drawn on the host, then moved
      "t2 = from_blob [4] i32\n"               // foreign-owned memory
      "t3 = transpose t1 0 1\n"
      "add_ t3 1.5\n"
      "t4 = lazy_clone t3\n"                   // copy_storage (LibTorch < 2.3)
      "resize_ t0 [5,3]\n"                     // zero_bytes of the grown bytes
      "resize_storage t1 80\n"                 // resize_bytes, then zero_bytes
      "shrink t1\n"
      "t5 = clone t3\n"                        // restore: zeros on the device
      "rehydrate\n"                            // resize_bytes and zero_bytes per storage
      "mul_ t3 2\n"
      "t6 = to_sparse_csr t4\n"               // indices read on the host
      "t7 = to_dense t6\n"
      "reshrink\n";
  ParseResult parsed = parse_program(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  Runner runner({direct.get(), staged.get()}, Limits{});
  RunReport rep = runner.run(parsed.program, /*keep_trace=*/true);
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(parsed.program);
  EXPECT_TRUE(rep.refusal.empty()) << rep.refusal;
  EXPECT_EQ(rep.steps_run, static_cast<int64_t>(parsed.program.steps.size()));
  EXPECT_EQ(rep.steps_failed, 0);
  ASSERT_EQ(rep.last.size(), 2u);
  // The rand values arrived (not zeros), and the restored clone is zeros.
  const VarObs& t5 = rep.last[1].vars[5];
  ASSERT_TRUE(t5.values_known);
  EXPECT_EQ(t5.values, std::vector<uint8_t>(t5.values.size(), 0));
}

// The device programs on the reference whose home device is CUDA: every
// cuda and cpu step does what the generator's model says (the same tensor
// when it is there, a copy on the other device, zeros for an emptied input,
// R3), and the reference reports each variable's device.
TEST(DevicePrograms, ReferenceMovesTensorsAsTheModelSays) {
  GenConfig cfg = device_config(shrink_config());
  cfg.invalid_per_mille = 0;
  rc::Gen<std::vector<StepChoice>> choices =
      rc::gen::container<std::vector<StepChoice>>(16, gen_step_choice(cfg));
  std::unique_ptr<Backend> ref = make_reference_backend(DeviceType::kCuda);
  EXPECT_EQ(ref->capabilities().device, Device::kCuda);
  int same = 0, copies = 0, restores = 0, on_cpu = 0, placed = 0;
  for (int k = 0; k < 400; ++k) {
    std::vector<StepTrace> trace;
    const Program p = build_program(choices(rc::Random(300 + k), 100).value(), cfg, &trace);
    ref->begin(p, Limits{});
    std::vector<char> bound(static_cast<size_t>(p.num_vars()), 0);
    Observation before, after;
    for (size_t j = 0; j < p.steps.size(); ++j) {
      const Step& s = p.steps[j];
      if (reads_unbound(s, bound)) continue;
      ref->observe(&before);
      const Error e = ref->run_step(s);
      ref->observe(&after);
      if (s.out != kNoVar) bound[s.out] = e.kind == ErrorKind::kNone;
      if (s.op == OpId::kDrop) bound[s.args[0].var] = 0;
      SCOPED_TRACE(print_program(p) + "at: " + print_step(p, s));
      if (s.device != DeviceArg::kHome && e.kind == ErrorKind::kNone) {  // a factory's device
        EXPECT_EQ(after.vars[static_cast<size_t>(s.out)].device,
                  s.device == DeviceArg::kCuda ? Device::kCuda : Device::kCpu);
        ++placed;
      }
      if (s.op != OpId::kCuda && s.op != OpId::kCpu) continue;
      const StepTrace& t = trace[j];
      EXPECT_EQ(e.kind != ErrorKind::kNone, t.expect_error) << e.message;
      if (e.kind != ErrorKind::kNone) continue;
      const VarObs& in = before.vars[static_cast<size_t>(s.args[0].var)];
      // The model knows where its input is (home: CUDA).
      EXPECT_EQ(t.input.away, in.device == Device::kCpu);
      const VarObs& out = after.vars[static_cast<size_t>(s.out)];
      const Device target = s.op == OpId::kCuda ? Device::kCuda : Device::kCpu;
      EXPECT_EQ(out.device, target);
      on_cpu += target == Device::kCpu;
      const VarObs& input_now = after.vars[static_cast<size_t>(s.args[0].var)];
      if (in.device == target) {  // the same tensor object
        EXPECT_EQ(out.identity_class, input_now.identity_class);
        ++same;
      } else {
        EXPECT_NE(out.alias_class, input_now.alias_class);
        EXPECT_EQ(out.values_known, true);
        if (observed_emptied(in)) {
          EXPECT_EQ(out.values, std::vector<uint8_t>(out.values.size(), 0));
          EXPECT_EQ(out.offset, 0);
          ++restores;
        } else {
          EXPECT_EQ(out.values, in.values);
          ++copies;
        }
      }
    }
  }
  EXPECT_GT(same, 20);
  EXPECT_GT(copies, 50);
  EXPECT_GT(restores, 5);
  EXPECT_GT(on_cpu, 20);
  EXPECT_GT(placed, 100);
}

// LibTorch without a usable CUDA device refuses a cuda step; the steps
// before it are compared as usual (a cpu step on a CPU tensor is the same
// tensor in both backends).
TEST(DevicePrograms, TorchWithoutCudaRefusesTheCudaStep) {
  std::string why;
  if (make_torch_cuda_backend(false, &why)) GTEST_SKIP() << "a CUDA device is usable here";
  std::unique_ptr<Backend> ref = make_reference_backend(), torch = make_torch_cpu_backend();
  if (!torch) GTEST_SKIP() << "storcheck was built without LibTorch";
  ParseResult parsed = parse_program(
      "# storcheck program v1\n"
      "t0 = arange [2,3] f32\n"
      "t1 = cpu t0\n"
      "t2 = cuda t1\n"
      "add_ t2 1\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  Runner runner({ref.get(), torch.get()}, Limits{});
  RunReport rep = runner.run(parsed.program, /*keep_trace=*/true);
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(parsed.program);
  EXPECT_EQ(rep.steps_run, 3);
  EXPECT_NE(rep.refusal.find(
                "step 3 (t2 = cuda t1): torch_cpu refused: cuda: no usable CUDA device"),
            std::string::npos)
      << rep.refusal;
  ASSERT_EQ(rep.last.size(), 2u);
  EXPECT_EQ(rep.last[0].vars[1].identity_class, rep.last[0].vars[0].identity_class);
  EXPECT_EQ(rep.last[0].vars[2].device, Device::kCuda);  // the reference moved it
}

// `storcheck repro` of a device property's finding names the backends it
// needs when they are absent, and replays on the ones there are.
TEST(DevicePrograms, ReproOfADeviceFindingSaysWhyItCannotReplayOnCuda) {
  std::string why;
  if (make_torch_cuda_backend(false, &why)) GTEST_SKIP() << "a CUDA device is usable here";
  if (!make_torch_cpu_backend()) GTEST_SKIP() << "storcheck was built without LibTorch";
  const std::string text =
      "# storcheck program v1\n"
      "# property: device.ref_matches_torch_cuda\n"
      "t0 = arange [2,2] f32\n"
      "t1 = cuda t0\n";
  ParseResult parsed = parse_program(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  std::ostringstream out;
  EXPECT_EQ(print_repro_report(parsed.program, text, "f.sc", false, Limits{}, out), 0);
  EXPECT_NE(out.str().find("note: the file is a device.ref_matches_torch_cuda finding, but the "
                           "LibTorch CUDA backend is absent: " + why),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("not comparable from step 2 (t1 = cuda t0): torch_cpu refused"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(header_value(text, "property"), "device.ref_matches_torch_cuda");
  EXPECT_EQ(header_value(text, "known"), "");
}

// Sparse results and their parts are on their input's device, whatever the
// backend's home device.
TEST(DevicePrograms, SparseResultsStayOnTheirInputsDevice) {
  std::unique_ptr<Backend> ref = make_reference_backend(DeviceType::kCuda);
  ParseResult parsed = parse_program(
      "# storcheck program v1\n"
      "t0 = arange [2,3] f32 cpu\n"
      "t1 = to_sparse_coo t0 2\n"
      "t2 = values t1\n"
      "t3 = to_dense t1\n"
      "t4 = zeros [2,3] f32\n"
      "t5 = to_sparse_csr t4\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error.to_string();
  Runner runner({ref.get()}, Limits{});
  RunReport rep = runner.run(parsed.program, /*keep_trace=*/true);
  EXPECT_EQ(rep.steps_failed, 0);
  ASSERT_EQ(rep.last.size(), 1u);
  const std::vector<Device> want = {Device::kCpu, Device::kCpu, Device::kCpu,
                                    Device::kCpu, Device::kCuda, Device::kCuda};
  for (size_t v = 0; v < want.size(); ++v) EXPECT_EQ(rep.last[0].vars[v].device, want[v]) << v;
}

}  // namespace
}  // namespace storcheck
