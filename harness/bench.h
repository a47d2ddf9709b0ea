// `storcheck bench`: the throughput report of DESIGN.md "Hard numbers" and
// issue 8. One run, on the calling thread (one core), measures:
//   - programs/s for pre-generated programs in four modes: the reference
//     alone, LibTorch CPU alone, the full differential check (both backends,
//     observations compared after every step), and end to end (generation
//     and the full check, as check_property runs a differential property);
//   - the ratios reference / LibTorch and full check / LibTorch;
//   - scaling of the full check with program length (4, 16, 64, 256 steps)
//     and with tensor size (GenConfig::max_numel 1, 64, 4096);
//   - generator cost per program and the process's peak RSS (VmHWM);
//   - the machine: CPU model, logical CPUs, memory, and the 1-minute load
//     average at the start and at the end (the rates move by up to 2x with
//     the machine and with other processes' load, so a figure is quoted
//     with them; README "Measured figures").
//
// Invariant: the programs are a pure function of (seed, programs, steps):
// program i is gen_program(cfg) drawn from the i-th split() of
// rc::Random(seed) at RapidCheck size i % 101, as harness/properties.cpp
// draws them. Every rate is the median of kBenchRepetitions timed passes
// over the same programs (steady_clock). The passes of the four modes are
// interleaved (as are those of each scaling group), so that load from other
// processes on a shared machine slows the modes alike and the ratios stay
// meaningful. Without LibTorch the LibTorch, full-check and end-to-end rows
// are printed as skipped (with the reason) and the scaling rows measure the
// reference alone.
//
//   BenchOptions o; o.programs = 2000; o.json = true;
//   int code = run_bench(o, std::cout, std::cerr);  // 0, or 2 on bad options
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "program/ir.h"

namespace storcheck {

/// Timed passes per measurement; every reported rate is their median.
inline constexpr int kBenchRepetitions = 5;

struct BenchOptions {
  uint64_t seed = 1;        ///< seed of the pre-generated programs
  int64_t programs = 2000;  ///< programs per pass in each mode (scaling rows keep programs*steps)
  int steps = 16;           ///< steps per program in the four modes
  bool json = false;        ///< one JSON object instead of the table
};

class Backend;

/// `n` programs of exactly `steps` steps (max_numel 64 otherwise the default
/// GenConfig), drawn as the invariant above says.
std::vector<Program> bench_programs(uint64_t seed, int64_t n, int steps);

/// Runs `p` through `backend`'s begin and run_step alone, without a runner,
/// observation or comparison, following Note [Step outcome rules]
/// (oracles/runner.h): a step reading an unbound variable is skipped, a
/// failed step leaves its output unbound, a refusal ends the program.
/// Returns the number of steps run.
int64_t execute_alone(Backend* backend, const Program& p);

/// The reference with a planted bug, for the shrink figures: `transpose` of
/// two dims of the same size > 1 returns its input unchanged (the bug of
/// the transpose_square_strides fault, planted in a wrapper so that builds
/// without fault injection have it too).
std::unique_ptr<Backend> make_planted_transpose_backend();

/// How long shrinking a planted failure takes, as check_property shrinks
/// (shrink_failing, harness/shrink.h), over the first failing programs of
/// the benchmark's generator (16 steps, seed `seed`).
struct ShrinkFigures {
  int64_t failures = 0;          ///< failing programs shrunk
  int64_t scanned = 0;           ///< programs drawn to find them
  double median_ms = 0;          ///< per failure, shrink_failing alone
  double median_steps = 0;       ///< steps left after shrinking (from 16)
  int64_t max_steps = 0;         ///< the longest shrunk program
  double median_candidates = 0;  ///< predicate calls (program runs) per failure
  std::string oracle;            ///< the backend the planted reference is compared with
};

/// Compares the planted reference with `oracle` (LibTorch CPU, or the plain
/// reference without LibTorch) on programs drawn from `seed` until `want`
/// have failed (at most 20,000 drawn); a divergence the known-divergence
/// list explains is no failure, as in check_property.
ShrinkFigures measure_planted_shrink(Backend* oracle, uint64_t seed, int64_t want);

/// The machine a report was measured on (Linux /proc; fields unknown
/// elsewhere): figures are quoted with it.
struct MachineInfo {
  std::string cpu_model;       ///< /proc/cpuinfo "model name"; "" when unknown
  unsigned logical_cpus = 0;   ///< std::thread::hardware_concurrency(); 0 when unknown
  int64_t mem_total_kib = -1;  ///< /proc/meminfo MemTotal; -1 when unknown
};
MachineInfo this_machine();
/// The first "model name" of /proc/cpuinfo's text, trimmed; "" when none
/// (ARM kernels name no model there).
std::string cpu_model_from(std::istream& cpuinfo);
/// MemTotal in KiB from /proc/meminfo's text; -1 when absent or malformed.
int64_t mem_total_kib_from(std::istream& meminfo);
/// The 1-minute load average from /proc/loadavg's text; -1 when malformed.
double load_average_from(std::istream& loadavg);
/// load_average_from(/proc/loadavg); -1 when unreadable.
double load_average_now();

/// Runs the benchmark and prints the table (or JSON) to `out`. Returns 0, or
/// 2 with an "Incorrect usage:" line on `err` when programs < 1 or steps is
/// outside 1..4096. Never fails on slow numbers: targets are printed beside
/// the figures, not enforced.
int run_bench(const BenchOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace storcheck
