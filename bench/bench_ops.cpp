// Per-op cost of each backend (Google Benchmark): for every op of
// program/ops.def, the time of one Backend::run_step of that op on a 4x4 f32
// tensor, on the reference and on the LibTorch CPU backend; plus the cost of
// observing and of comparing 8 live 4x4 variables.
//
// Benchmarks (registered at start-up, one per op and backend; an op without
// an example, or whose example fails or is refused on a backend, is a
// skipped benchmark that says why):
//   op/<op>/<backend>          one run_step of the op (kExamples below)
//   observe/8vars/<backend>    one Backend::observe of 8 live 4x4 variables
//   compare/8vars              one compare_observations of those observations
//
// Note [Timing only the op]
// Each iteration resets the backend (begin) and replays the example's setup
// steps, then times the op's run_step alone with steady_clock and reports it
// through UseManualTime/SetIterationTime. This is the "setup outside the
// timed region" method; manual timing is used instead of PauseTiming/
// ResumeTiming because a pair of those cost about 1.7 us per iteration on
// the development machine, more than most ops (they read the wall and CPU
// clocks), while the steady_clock reads add about one now() (~28 ns on the
// development machine), which the figures include. Tearing down the previous
// iteration's tensors happens in begin, outside the timed region. Op
// benchmarks set MinTime(kOpMinSeconds), which overrides
// --benchmark_min_time for them.
//
//   build/storcheck_bench --benchmark_filter=op/transpose/
//   build/storcheck_bench --benchmark_filter='compare|observe'
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oracles/backend.h"
#include "oracles/compare.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

using Clock = std::chrono::steady_clock;

/// Timed op time per op benchmark. An iteration's untimed setup costs up to
/// 50 times a cheap op (drop: ~50 ns timed, ~2.5 us replayed), so Google
/// Benchmark's default 0.5 s of timed time took 8 minutes for the table;
/// 20 ms of op time is 10^4 to 5*10^5 iterations and about 30 s in all.
/// STORCHECK_BENCH_OP_MIN_TIME (seconds) overrides it: the ctest
/// bench.every_op_has_an_example runs every op row once, briefly.
constexpr double kOpMinSeconds = 0.02;

double op_min_seconds() {
  if (const char* env = std::getenv("STORCHECK_BENCH_OP_MIN_TIME")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v > 0 && v <= 10) return v;
    std::fprintf(stderr,
                 "storcheck_bench: STORCHECK_BENCH_OP_MIN_TIME='%s' is not a number of seconds in "
                 "(0, 10]; using %g\n",
                 env, kOpMinSeconds);
  }
  return kOpMinSeconds;
}

/// One op's example: a whole program whose last step is the op measured.
struct OpExample {
  std::string_view op;
  std::string_view program;
};

// Every program starts from a 4x4 f32 tensor (factories measure themselves).
// An op of ops.def with no row here is registered as a skipped benchmark
// that says to add one.
constexpr OpExample kExamples[] = {
    // Factories
    {"arange", "t0 = arange [4,4] f32"},
    {"zeros", "t0 = zeros [4,4] f32"},
    {"ones", "t0 = ones [4,4] f32"},
    {"full", "t0 = full [4,4] 1.5 f32"},
    {"rand", "t0 = rand [4,4] f32 7"},
    {"empty_strided", "t0 = empty_strided [4,4] [4,1] f32"},
    {"from_blob", "t0 = from_blob [4,4] f32"},
    // Views
    {"view", "t0 = arange [4,4] f32\nt1 = view t0 [16]"},
    {"reshape", "t0 = arange [4,4] f32\nt1 = reshape t0 [2,8]"},
    {"as_strided", "t0 = arange [4,4] f32\nt1 = as_strided t0 [2,2] [4,1] 1"},
    {"select", "t0 = arange [4,4] f32\nt1 = select t0 0 1"},
    {"slice", "t0 = arange [4,4] f32\nt1 = slice t0 0 0 2 1"},
    {"narrow", "t0 = arange [4,4] f32\nt1 = narrow t0 1 1 2"},
    {"transpose", "t0 = arange [4,4] f32\nt1 = transpose t0 0 1"},
    {"t", "t0 = arange [4,4] f32\nt1 = t t0"},
    {"permute", "t0 = arange [4,4] f32\nt1 = permute t0 [1,0]"},
    {"movedim", "t0 = arange [4,4] f32\nt1 = movedim t0 0 1"},
    {"expand", "t0 = arange [4,4] f32\nt1 = expand t0 [2,4,4]"},
    {"unsqueeze", "t0 = arange [4,4] f32\nt1 = unsqueeze t0 0"},
    {"squeeze", "t0 = arange [4,4] f32\nt1 = unsqueeze t0 0\nt2 = squeeze t1 0"},
    {"flatten", "t0 = arange [4,4] f32\nt1 = flatten t0 0 1"},
    {"unflatten", "t0 = arange [4,4] f32\nt1 = unflatten t0 1 [2,2]"},
    {"diagonal", "t0 = arange [4,4] f32\nt1 = diagonal t0 0 0 1"},
    {"unfold", "t0 = arange [4,4] f32\nt1 = unfold t0 1 2 1"},
    {"split", "t0 = arange [4,4] f32\nt1 = split t0 2 0 1"},
    {"chunk", "t0 = arange [4,4] f32\nt1 = chunk t0 2 1 0"},
    {"unbind", "t0 = arange [4,4] f32\nt1 = unbind t0 0 2"},
    {"alias", "t0 = arange [4,4] f32\nt1 = alias t0"},
    {"detach", "t0 = arange [4,4] f32\nt1 = detach t0"},
    // In-place writes
    {"add_", "t0 = arange [4,4] f32\nadd_ t0 1.5"},
    {"mul_", "t0 = arange [4,4] f32\nmul_ t0 2"},
    {"fill_", "t0 = arange [4,4] f32\nfill_ t0 3"},
    {"zero_", "t0 = arange [4,4] f32\nzero_ t0"},
    {"copy_", "t0 = arange [4,4] f32\nt1 = ones [4,4] f32\ncopy_ t0 t1"},
    {"mutable_data_ptr", "t0 = arange [4,4] f32\nt1 = lazy_clone t0\nmutable_data_ptr t1"},
    // In-place metadata changes
    {"transpose_", "t0 = arange [4,4] f32\ntranspose_ t0 0 1"},
    {"t_", "t0 = arange [4,4] f32\nt_ t0"},
    {"unsqueeze_", "t0 = arange [4,4] f32\nunsqueeze_ t0 0"},
    {"squeeze_", "t0 = arange [4,4] f32\nunsqueeze_ t0 0\nsqueeze_ t0 0"},
    {"as_strided_", "t0 = arange [4,4] f32\nas_strided_ t0 [2,2] [4,1] 1"},
    {"resize_", "t0 = arange [4,4] f32\nresize_ t0 [8,4]"},  // grows the storage
    // Out-of-place compute
    {"add", "t0 = arange [4,4] f32\nt1 = add t0 1.5"},
    {"mul", "t0 = arange [4,4] f32\nt1 = mul t0 2"},
    {"clone", "t0 = arange [4,4] f32\nt1 = clone t0"},
    {"contiguous", "t0 = arange [4,4] f32\nt1 = transpose t0 0 1\nt2 = contiguous t1"},  // copies
    {"clone_preserve_strides", "t0 = arange [4,4] f32\nt1 = clone_preserve_strides t0"},
    {"to", "t0 = arange [4,4] f32\nt1 = to t0 f64"},
    {"sum", "t0 = arange [4,4] f32\nt1 = sum t0"},
    {"lazy_clone", "t0 = arange [4,4] f32\nt1 = lazy_clone t0"},
    // Storage shrink and restore
    {"shrink", "t0 = arange [4,4] f32\nshrink t0"},
    {"rehydrate", "t0 = arange [4,4] f32\nshrink t0\nrehydrate"},
    {"reshrink", "t0 = arange [4,4] f32\nshrink t0\nrehydrate\nreshrink"},
    {"resize_storage", "t0 = arange [4,4] f32\nresize_storage t0 32"},
    {"set_nonresizable", "t0 = arange [4,4] f32\nset_nonresizable t0"},
    // Lifetime
    {"drop", "t0 = arange [4,4] f32\ndrop t0"},
    // Note [Layout policy] Case 8: view(dtype) takes i32/i64/u8 only
    {"view_dtype", "t0 = arange [4,4] i32\nt1 = view_dtype t0 u8"},
    {"add_out", "t0 = arange [4,4] f32\nt1 = zeros [4,4] f32\nadd_out t1 t0 1.5"},
    {"mul_out", "t0 = arange [4,4] f32\nt1 = zeros [4,4] f32\nmul_out t1 t0 2"},
    {"set_", "t0 = arange [4,4] f32\nt1 = zeros [4,4] f32\nset_ t0 t1"},
    // Meta and fake conversion (F1-F3)
    {"meta", "t0 = arange [4,4] f32\nt1 = meta t0"},
    {"fake", "t0 = arange [4,4] f32\nt1 = fake t0"},
    {"to_meta", "t0 = arange [4,4] f32\nt1 = to_meta t0"},
    {"fake_from_meta", "t0 = arange [4,4] f32\nt1 = meta t0\nt2 = fake_from_meta t1"},
    {"sweep", "t0 = arange [4,4] f32\nt1 = fake t0\ndrop t0\nsweep"},
    {"memo_stats", "t0 = arange [4,4] f32\nt1 = fake t0\nmemo_stats"},
    // Sparse layouts (F4)
    {"to_sparse_coo", "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2"},
    {"to_sparse_csr", "t0 = arange [4,4] f32\nt1 = to_sparse_csr t0"},
    {"to_sparse_csc", "t0 = arange [4,4] f32\nt1 = to_sparse_csc t0"},
    {"to_sparse_bsr", "t0 = arange [4,4] f32\nt1 = to_sparse_bsr t0 [2,2]"},
    {"to_sparse_bsc", "t0 = arange [4,4] f32\nt1 = to_sparse_bsc t0 [2,2]"},
    {"to_dense", "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2\nt2 = to_dense t1"},
    {"coalesce", "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2\nt2 = coalesce t1"},
    {"sparse_coo_tensor",
     "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2\nt2 = indices t1\nt3 = values t1\n"
     "t4 = sparse_coo_tensor t2 t3 [4,4]"},
    {"sparse_csr_tensor",
     "t0 = arange [5] i64\nt1 = arange [4] i64\nt2 = rand [4] f32 1\n"
     "t3 = sparse_csr_tensor t0 t1 t2 [4,4]"},
    {"sparse_csc_tensor",
     "t0 = arange [5] i64\nt1 = arange [4] i64\nt2 = rand [4] f32 1\n"
     "t3 = sparse_csc_tensor t0 t1 t2 [4,4]"},
    {"sparse_bsr_tensor",
     "t0 = arange [3] i64\nt1 = arange [2] i64\nt2 = rand [2,2,2] f32 1\n"
     "t3 = sparse_bsr_tensor t0 t1 t2 [4,4]"},
    {"sparse_bsc_tensor",
     "t0 = arange [3] i64\nt1 = arange [2] i64\nt2 = rand [2,2,2] f32 1\n"
     "t3 = sparse_bsc_tensor t0 t1 t2 [4,4]"},
    {"indices", "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2\nt2 = indices t1"},
    {"values", "t0 = arange [4,4] f32\nt1 = to_sparse_coo t0 2\nt2 = values t1"},
    {"crow_indices", "t0 = arange [4,4] f32\nt1 = to_sparse_csr t0\nt2 = crow_indices t1"},
    {"col_indices", "t0 = arange [4,4] f32\nt1 = to_sparse_csr t0\nt2 = col_indices t1"},
    {"ccol_indices", "t0 = arange [4,4] f32\nt1 = to_sparse_csc t0\nt2 = ccol_indices t1"},
    {"row_indices", "t0 = arange [4,4] f32\nt1 = to_sparse_csc t0\nt2 = row_indices t1"},
    // Devices (issue 11): without a GPU the cuda row is skipped with the
    // step's error as its reason
    {"cuda", "t0 = arange [4,4] f32\nt1 = cuda t0"},
    {"cpu", "t0 = arange [4,4] f32\nt1 = cpu t0"},
};

/// 8 live 4x4 variables: views, copies, and a fresh factory.
constexpr std::string_view kEightVars =
    "t0 = arange [4,4] f32\n"
    "t1 = transpose t0 0 1\n"
    "t2 = clone t0\n"
    "t3 = add t0 1.5\n"
    "t4 = alias t0\n"
    "t5 = mul t2 2\n"
    "t6 = contiguous t1\n"
    "t7 = rand [4,4] f32 7\n";

const OpExample* find_example(std::string_view op) {
  for (const OpExample& e : kExamples)
    if (e.op == op) return &e;
  return nullptr;
}

/// Runs every step of `p` on `b` from a fresh begin; "" or why a step failed
/// or was refused.
std::string replay(Backend& b, const Program& p) {
  b.begin(p, Limits{});
  for (size_t k = 0; k < p.steps.size(); ++k) {
    Error e = b.run_step(p.steps[k]);
    const std::string what =
        "step " + std::to_string(k + 1) + " (" + print_step(p, p.steps[k]) + ")";
    if (e.kind != ErrorKind::kNone)
      return what + " failed: " + std::string(error_kind_name(e.kind)) + ": " + e.message;
    // A refused step (cuda without a GPU) would time the refusal, not the op.
    if (std::string why; b.take_refusal(&why)) return what + " refused: " + why;
  }
  return "";
}

/// See Note [Timing only the op].
void bm_op(benchmark::State& state, Backend* b, const Program* p) {
  const Step& op = p->steps.back();
  const size_t setup = p->steps.size() - 1;
  const Limits limits;
  for (auto _ : state) {
    b->begin(*p, limits);
    for (size_t k = 0; k < setup; ++k) b->run_step(p->steps[k]);
    Clock::time_point t0 = Clock::now();
    Error e = b->run_step(op);
    Clock::time_point t1 = Clock::now();
    benchmark::DoNotOptimize(e.kind);
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
}

void bm_observe(benchmark::State& state, Backend* b, const Program* p) {
  replay(*b, *p);
  Observation obs;
  for (auto _ : state) {
    b->observe(&obs);
    benchmark::DoNotOptimize(obs.vars.data());
  }
}

void bm_compare(benchmark::State& state, Backend* a, Backend* b, const Program* p) {
  Observation oa, ob;
  replay(*a, *p);
  a->observe(&oa);
  replay(*b, *p);
  b->observe(&ob);
  const Capabilities ca = a->capabilities(), cb = b->capabilities();
  Mismatch m;
  if (!compare_observations(oa, ca, ob, cb, &m)) {
    state.SkipWithError(("the observations differ (" + m.field + "): nothing to time").c_str());
    return;
  }
  for (auto _ : state) {
    bool same = compare_observations(oa, ca, ob, cb, &m);
    benchmark::DoNotOptimize(same);
  }
}

void skip_with(benchmark::State& state, const std::string& why) {
  state.SkipWithError(why.c_str());
  for (auto _ : state) {
  }
}

Program parse_or_empty(std::string_view text, std::string* error) {
  ParseResult r = parse_program(text);
  if (!r.ok()) *error = "example does not parse: " + r.error.to_string();
  return r.program;
}

/// Keeps the backends and programs alive while the benchmarks run.
struct Registry {
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Program>> programs;
};

void register_all(Registry& reg) {
  reg.backends.push_back(make_reference_backend());
  if (std::unique_ptr<Backend> torch = make_torch_cpu_backend())
    reg.backends.push_back(std::move(torch));

  for (const OpInfo& info : op_table()) {
    const OpExample* ex = find_example(info.name);
    std::string error;
    Program p;
    if (!ex)
      error = "no example for '" + std::string(info.name) +
              "': add a row to kExamples in bench/bench_ops.cpp";
    else
      p = parse_or_empty(ex->program, &error);
    if (error.empty() && (p.steps.empty() || p.steps.back().op != info.id))
      error = "the example's last step is not " + std::string(info.name);
    reg.programs.push_back(std::make_unique<Program>(std::move(p)));
    const Program* prog = reg.programs.back().get();
    for (const std::unique_ptr<Backend>& b : reg.backends) {
      std::string name = "op/" + std::string(info.name) + "/" + std::string(b->name());
      std::string why = error.empty() ? replay(*b, *prog) : error;
      if (!why.empty()) {
        benchmark::RegisterBenchmark(name.c_str(), skip_with, why);
        continue;
      }
      benchmark::RegisterBenchmark(name.c_str(), bm_op, b.get(), prog)
          ->UseManualTime()
          ->MinTime(op_min_seconds());
    }
  }

  std::string error;
  reg.programs.push_back(std::make_unique<Program>(parse_or_empty(kEightVars, &error)));
  const Program* eight = reg.programs.back().get();
  for (const std::unique_ptr<Backend>& b : reg.backends) {
    std::string name = "observe/8vars/" + std::string(b->name());
    std::string why = error.empty() ? replay(*b, *eight) : error;
    if (!why.empty())
      benchmark::RegisterBenchmark(name.c_str(), skip_with, why);
    else
      benchmark::RegisterBenchmark(name.c_str(), bm_observe, b.get(), eight);
  }
  // The reference against LibTorch, or against itself when LibTorch is absent.
  Backend* a = reg.backends.front().get();
  Backend* b = reg.backends.back().get();
  if (!error.empty())
    benchmark::RegisterBenchmark("compare/8vars", skip_with, error);
  else
    benchmark::RegisterBenchmark("compare/8vars", bm_compare, a, b, eight);
}

}  // namespace
}  // namespace storcheck

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  storcheck::Registry reg;
  storcheck::register_all(reg);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
