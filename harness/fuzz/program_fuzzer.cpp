// The entry points of a program fuzz target (views_fuzzer, shrink_fuzzer,
// cow_fuzzer): the build compiles this file once per target with
// STORCHECK_FUZZ_TARGET set to its name, and links it with libFuzzer
// (-fsanitize=fuzzer) or with standalone_main.cpp, which replays files.
//
// Flags of its own follow libFuzzer's rule that flags starting with `--`
// belong to the target:
//   --plant-fault=NAME   switch on a planted reference bug (fault-injection builds)
//   --mutator-stats      print the per-mutator counts at exit
//
//   ./views_fuzzer -max_total_time=20 corpus/views_fuzzer
//   ./views_fuzzer --plant-fault=transpose_square_strides crash-1234
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "harness/fuzz/fuzz_target.h"
#include "harness/fuzz/mutator.h"
#include "harness/gate.h"

#ifndef STORCHECK_FUZZ_TARGET
#error "STORCHECK_FUZZ_TARGET must name the target (CMakeLists.txt sets it)"
#endif

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using namespace storcheck;

// The state of this process's target, made once in LLVMFuzzerInitialize
// (LibTorch and the backends are initialized there, not per input).
struct TargetState {
  const FuzzTarget* target = nullptr;
  std::unique_ptr<FuzzHarness> harness;
  std::unique_ptr<ProgramMutator> mutator;
  std::string plant_fault;
  bool print_stats = false;
};

TargetState& state() {
  static TargetState s;
  return s;
}

void print_stats_at_exit() {
  TargetState& s = state();
  if (s.mutator && s.print_stats)
    std::fprintf(stderr, "==storcheck== %s mutator stats:\n%s", STORCHECK_FUZZ_TARGET,
                 s.mutator->stats_text().c_str());
}

void init(int argc, char** argv) {
  TargetState& s = state();
  if (s.target) return;
  s.target = find_fuzz_target(STORCHECK_FUZZ_TARGET);
  if (!s.target) {
    std::fprintf(stderr, "Incorrect usage: no fuzz target named %s in fuzz_targets()\n",
                 STORCHECK_FUZZ_TARGET);
    std::abort();
  }
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a.rfind("--plant-fault=", 0) == 0) s.plant_fault = a.substr(14);
    if (a == "--mutator-stats") s.print_stats = true;
  }
  std::string err;
  if (!activate_fault(s.plant_fault, &err)) {
    std::fprintf(stderr, "%s: --plant-fault: %s\n", STORCHECK_FUZZ_TARGET, err.c_str());
    std::exit(2);
  }
  s.harness = std::make_unique<FuzzHarness>(*s.target);
  s.mutator = std::make_unique<ProgramMutator>(s.target->ops, fuzz_parse_limits(),
                                               &s.harness->parse_cache());
  std::atexit(print_stats_at_exit);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  init(*argc, *argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  init(0, nullptr);  // a driver that does not call LLVMFuzzerInitialize
  TargetState& s = state();
  FuzzResult r = s.harness->run(std::string_view(reinterpret_cast<const char*>(data), size));
  if (r.outcome == FuzzOutcome::kRejected) return -1;
  if (r.outcome == FuzzOutcome::kPassed) return 0;
  std::string report = finding_report(*s.target, r, s.plant_fault);
  std::fwrite(report.data(), 1, report.size(), stderr);
  std::fflush(stderr);
  std::abort();  // libFuzzer records the input as a crash
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  init(0, nullptr);
  return state().mutator->mutate(data, size, max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  init(0, nullptr);
  return state().mutator->cross_over(data1, size1, data2, size2, out, max_out_size, seed);
}
