// Whole programs per backend (Google Benchmark): 1,000 pre-generated 16-step
// programs (seed 1, as `storcheck bench` draws them) per iteration, through
// a Runner over one backend (run, observe after every step) or through the
// backend's run_step alone; and the full check over 16,000 steps of 16- and
// of 256-step programs (the length-scaling target); and finding and
// shrinking a planted failure (`shrink/planted_transpose`: the reference with
// a planted transpose bug against LibTorch, shrunk as check_property
// shrinks). These are rows of
// `storcheck bench` that a profiler wants alone in a process:
//
//   perf record -g build/storcheck_bench --benchmark_filter='programs/16steps/reference$'
//
// Items per second are programs per second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "harness/bench.h"
#include "oracles/backend.h"
#include "oracles/runner.h"

namespace storcheck {
namespace {

constexpr int64_t kPrograms = 1000;

const std::vector<Program>& programs() {
  static const std::vector<Program> set = bench_programs(1, kPrograms, 16);
  return set;
}

std::unique_ptr<Backend> make(bool torch) {
  return torch ? make_torch_cpu_backend() : make_reference_backend();
}

void bm_runner(benchmark::State& state, bool torch) {
  std::unique_ptr<Backend> b = make(torch);
  if (!b) {
    state.SkipWithError("built without LibTorch");
    return;
  }
  Runner runner({b.get()}, Limits{});
  const std::vector<Program>& set = programs();
  for (auto _ : state)
    for (const Program& p : set) benchmark::DoNotOptimize(runner.run(p).steps_run);
  state.SetItemsProcessed(state.iterations() * kPrograms);
}

/// Finds the first failing program of seed 1 with the planted transpose bug
/// and shrinks it (measure_planted_shrink, harness/bench.h), per iteration.
void bm_shrink(benchmark::State& state) {
  std::unique_ptr<Backend> torch = make(true);  // null: the plain reference is the oracle
  ShrinkFigures f;
  for (auto _ : state) f = measure_planted_shrink(torch.get(), 1, 1);
  state.counters["steps_after"] = f.median_steps;
  state.counters["programs_run"] = f.median_candidates;
}

/// run_step alone (execute_alone, harness/bench.h).
void bm_execution(benchmark::State& state, bool torch) {
  std::unique_ptr<Backend> b = make(torch);
  if (!b) {
    state.SkipWithError("built without LibTorch");
    return;
  }
  const std::vector<Program>& set = programs();
  for (auto _ : state)
    for (const Program& p : set) benchmark::DoNotOptimize(execute_alone(b.get(), p));
  state.SetItemsProcessed(state.iterations() * kPrograms);
}

/// The full check (both backends, compared after every step) over 16,000
/// steps of `steps`-step programs: the scaling rows of `storcheck bench`.
void bm_full(benchmark::State& state, int steps) {
  std::unique_ptr<Backend> ref = make(false), torch = make(true);
  if (!torch) {
    state.SkipWithError("built without LibTorch");
    return;
  }
  const int64_t n = std::max<int64_t>(1, 16 * kPrograms / steps);
  const std::vector<Program> set = bench_programs(1, n, steps);
  Runner runner({ref.get(), torch.get()}, Limits{});
  for (auto _ : state)
    for (const Program& p : set) benchmark::DoNotOptimize(runner.run(p).steps_run);
  state.SetItemsProcessed(state.iterations() * n);
}

const bool registered = [] {
  for (bool torch : {false, true}) {
    const std::string b = torch ? "torch_cpu" : "reference";
    benchmark::RegisterBenchmark(("programs/16steps/" + b).c_str(), bm_runner, torch)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("programs/16steps/" + b + "/execution").c_str(), bm_execution,
                                 torch)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("shrink/planted_transpose", bm_shrink)
      ->Unit(benchmark::kMillisecond);
  for (int steps : {16, 256})
    benchmark::RegisterBenchmark(("programs/" + std::to_string(steps) + "steps/full").c_str(),
                                 bm_full, steps)
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace storcheck
