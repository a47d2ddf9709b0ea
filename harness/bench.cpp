#include "harness/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "generators/program_gen.h"
#include "harness/gate.h"
#include "harness/shrink.h"
#include "oracles/backend.h"
#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"
#include "oracles/runner.h"

namespace storcheck {

namespace {

/// One timed pass over a set of programs, or (after run_interleaved) the
/// median of kBenchRepetitions of them.
struct Measure {
  double seconds = 0;     ///< pass time (median after run_interleaved)
  int64_t programs = 0;   ///< programs per pass
  int64_t steps_run = 0;  ///< steps executed per pass (skipped steps excluded)
  int64_t diverged = 0;   ///< programs whose run ended at a divergence, per pass
  double programs_per_second() const { return seconds > 0 ? programs / seconds : 0; }
  double us_per_program() const { return programs > 0 ? 1e6 * seconds / programs : 0; }
  double us_per_step() const { return steps_run > 0 ? 1e6 * seconds / steps_run : 0; }
  double steps_per_second() const { return seconds > 0 ? steps_run / seconds : 0; }
};

/// One row of the four-mode table.
struct ModeRow {
  const char* key = "";     ///< JSON name
  const char* label = "";   ///< table label
  const char* target = "";  ///< DESIGN.md target, "" when none
  double target_pps = 0;    ///< programs/s the target asks for, 0 when none
  bool skipped = false;
  std::string why;  ///< the skip reason when not LibTorch's
  Measure m;
};

ModeRow mode_row(const char* key, const char* label, const char* target, double target_pps) {
  ModeRow r;
  r.key = key;
  r.label = label;
  r.target = target;
  r.target_pps = target_pps;
  return r;
}

/// One row of a scaling table.
struct ScaleRow {
  int steps = 0;
  int64_t max_numel = 0;
  Measure m;
};

struct BenchReport {
  BenchOptions opt;
  bool have_torch = false;
  std::string skip_reason;  ///< why LibTorch rows are skipped
  std::string torch_version;
  std::vector<ModeRow> modes;
  std::vector<ScaleRow> by_length;
  std::vector<ScaleRow> by_numel;
  const char* scaling_mode = "";  ///< "full check" or "reference only"
  double generator_us = 0;        ///< per program
  ShrinkFigures shrink;           ///< a planted failure shrunk (measure_planted_shrink)
  int64_t peak_rss_kib = -1;      ///< VmHWM after the four modes; -1: unreadable
  int64_t program_set_kib = 0;    ///< the modes' pre-generated programs, about
  int64_t peak_rss_end_kib = -1;  ///< VmHWM at the end (scaling sets included)
  double total_seconds = 0;
  MachineInfo machine;
  double load_start = -1, load_end = -1;  ///< 1-minute load averages; -1 unknown
};

using Clock = std::chrono::steady_clock;

/// RapidCheck size cycles 0..kMaxSize over the programs (CheckOptions default).
constexpr int kMaxSize = 100;
constexpr int kLengths[] = {4, 16, 64, 256};
constexpr int64_t kNumels[] = {1, 64, 4096};
/// Fewest programs per pass in a scaling row.
constexpr int64_t kMinScalePrograms = 8;
/// Planted failures the shrink figures shrink.
constexpr int64_t kShrinkFailures = 10;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

GenConfig bench_config(int steps, int64_t max_numel) {
  GenConfig c;
  c.min_steps = steps;
  c.max_steps = steps;
  c.max_numel = max_numel;
  return c;
}

/// Program i from the i-th split of rc::Random(seed), as check_property draws.
std::vector<Program> pregenerate(const GenConfig& cfg, uint64_t seed, int64_t n) {
  rc::Gen<Program> gen = gen_program(cfg);
  rc::Random root(seed);
  std::vector<Program> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    rc::Random r = root.split();
    out.push_back(gen(r, static_cast<int>(i % (kMaxSize + 1))).value());
  }
  return out;
}

/// One timed pass over a set of programs; fills every field of a Measure.
using Pass = std::function<Measure()>;

/// Runs each pass kBenchRepetitions times, the passes interleaved (pass 1,
/// pass 2, ..., then again), so that a burst of load on a shared machine
/// slows every mode alike and the ratios stay meaningful. Each result is the
/// median pass time with the counts of the last pass.
std::vector<Measure> run_interleaved(const std::vector<Pass>& passes) {
  std::vector<std::vector<double>> times(passes.size());
  std::vector<Measure> out(passes.size());
  for (int rep = 0; rep < kBenchRepetitions; ++rep) {
    for (size_t k = 0; k < passes.size(); ++k) {
      out[k] = passes[k]();
      times[k].push_back(out[k].seconds);
    }
  }
  for (size_t k = 0; k < passes.size(); ++k) out[k].seconds = median(times[k]);
  return out;
}

/// A pass: every program through `runner` (run, observe, compare).
Pass runs_pass(Runner* runner, const std::vector<Program>* programs) {
  return [runner, programs] {
    Measure m;
    m.programs = static_cast<int64_t>(programs->size());
    Clock::time_point t0 = Clock::now();
    for (const Program& p : *programs) {
      RunReport r = runner->run(p);
      m.steps_run += r.steps_run;
      m.diverged += r.diverged ? 1 : 0;
    }
    m.seconds = seconds_since(t0);
    return m;
  };
}

/// A pass: every program through one backend's run_step alone
/// (execute_alone): what the backend's execution costs.
Pass execution_pass(Backend* backend, const std::vector<Program>* programs) {
  return [backend, programs] {
    Measure m;
    m.programs = static_cast<int64_t>(programs->size());
    Clock::time_point t0 = Clock::now();
    for (const Program& p : *programs) m.steps_run += execute_alone(backend, p);
    m.seconds = seconds_since(t0);
    return m;
  };
}

/// A pass: generation and the run together, program by program, as
/// check_property runs a differential property.
Pass end_to_end_pass(Runner* runner, const GenConfig& cfg, uint64_t seed, int64_t n) {
  return [runner, gen = gen_program(cfg), seed, n] {
    Measure m;
    m.programs = n;
    Clock::time_point t0 = Clock::now();
    rc::Random root(seed);
    for (int64_t i = 0; i < n; ++i) {
      rc::Random r = root.split();
      rc::Shrinkable<Program> sp = gen(r, static_cast<int>(i % (kMaxSize + 1)));
      Program p = sp.value();
      RunReport rep = runner->run(p);
      m.steps_run += rep.steps_run;
      m.diverged += rep.diverged ? 1 : 0;
    }
    m.seconds = seconds_since(t0);
    return m;
  };
}

/// The median of kBenchRepetitions passes over one program set.
/// Programs the PyTorch row runs (CPython costs about 1000x the reference).
constexpr int64_t kPythonPrograms = 200;

Measure time_runs(const std::vector<Backend*>& backends, const std::vector<Program>& programs) {
  Runner runner(backends, Limits{});
  return run_interleaved({runs_pass(&runner, &programs)}).front();
}

/// Median microseconds to draw one program (the Shrinkable and its value).
double time_generator(const GenConfig& cfg, uint64_t seed, int64_t n) {
  std::vector<double> times;
  size_t sink = 0;
  for (int rep = 0; rep < kBenchRepetitions; ++rep) {
    Clock::time_point t0 = Clock::now();
    std::vector<Program> v = pregenerate(cfg, seed, n);
    times.push_back(seconds_since(t0));
    sink += v.back().steps.size();
  }
  return sink > 0 ? 1e6 * median(times) / static_cast<double>(n) : 0;
}

/// Heap bytes of a program set, about (steps and names).
int64_t program_bytes(const std::vector<Program>& programs) {
  size_t n = programs.capacity() * sizeof(Program);
  for (const Program& p : programs) {
    n += p.steps.capacity() * sizeof(Step);
    for (const std::string& name : p.var_names) n += sizeof(std::string) + name.capacity();
  }
  return static_cast<int64_t>(n);
}

/// VmHWM of this process in KiB, -1 when unreadable (not Linux).
int64_t peak_rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

/// "12,345" style integers are hard to paste into tools; keep plain digits.
std::string fixed0(double v) { return fmt("%.0f", v); }

std::string pad(std::string s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

const ModeRow* find_mode(const BenchReport& r, const char* key) {
  for (const ModeRow& m : r.modes)
    if (std::string(m.key) == key) return &m;
  return nullptr;
}

/// reference/LibTorch and full/LibTorch; negative when a row is skipped.
double ratio(const BenchReport& r, const char* num, const char* den) {
  const ModeRow* a = find_mode(r, num);
  const ModeRow* b = find_mode(r, den);
  if (!a || !b || a->skipped || b->skipped || b->m.programs_per_second() <= 0) return -1;
  return a->m.programs_per_second() / b->m.programs_per_second();
}

/// Per-program cost of a length row relative to the 16-step row (-1: none).
double cost_vs_16(const BenchReport& r, const ScaleRow& row) {
  for (const ScaleRow& s : r.by_length)
    if (s.steps == 16 && s.m.us_per_program() > 0)
      return row.m.us_per_program() / s.m.us_per_program();
  return -1;
}

// Note [The reference's 10x target]
// DESIGN.md asks of "the reference backend alone" that it be at least 10x
// faster than "the LibTorch backend on the same programs". The report
// measures it on the execution rows: each backend's begin() and run_step()
// over the same pre-generated programs, with the same steps run (Note [Step
// outcome rules]), and nothing else. The observed rows ("reference only",
// "LibTorch only") add the runner's bookkeeping and an observation of every
// variable a step can have changed, after every step: that cost is the
// oracle's, not the backend's execution, and much of it (the runner's
// bookkeeping) is the same whatever the backend; on 2026-12-07 it added
// about 5.4 us per 16-step program to the reference and 10.8 us to LibTorch
// (bench/README.md), so with it the ratio is about 4.5x whatever the
// reference's execution costs: for 10x the reference's observation and the
// runner would have to cost under a tenth of LibTorch's. The observed ratio
// is printed beside the target, with no target of its own. The full check,
// the rate the gate runs at, has its own target (15,000 programs/s).

/// One target of DESIGN.md "Hard numbers" (issue 8) checked against a run.
struct TargetCheck {
  const char* key;    ///< JSON name
  const char* what;   ///< "full check of 16-step programs"
  const char* bound;  ///< ">= 15000 programs/s"
  double value;       ///< measured; negative when the row was skipped
  double limit;
  bool at_least;  ///< value >= limit (else value <= limit)
  bool known() const { return value >= 0; }
  bool met() const { return known() && (at_least ? value >= limit : value <= limit); }
};

/// The report's targets. The rate targets are for 16-step programs only;
/// with other --steps they are left unknown.
std::vector<TargetCheck> targets(const BenchReport& r) {
  auto pps = [&](const char* key) {
    const ModeRow* m = find_mode(r, key);
    return !m || m->skipped || r.opt.steps != 16 ? -1.0 : m->m.programs_per_second();
  };
  double longest = -1;
  for (const ScaleRow& s : r.by_length)
    if (s.steps == 256 && r.have_torch) longest = cost_vs_16(r, s);
  return {
      {"full_check_programs_per_second", "full check, 16-step programs, pre-generated",
       ">= 15000 programs/s", pps("full_check"), 15000, true},
      {"end_to_end_programs_per_second", "end to end, generation included", ">= 10000 programs/s",
       pps("end_to_end"), 10000, true},
      {"reference_over_torch_execution_only", "reference / LibTorch, each backend alone", ">= 10x",
       ratio(r, "reference_execution", "torch_cpu_execution"), 10, true},
      {"cost_256_over_16_steps", "256-step program / 16-step program (full check)", "<= 20x",
       longest, 20, false},
  };
}

/// "met", "missed", or "unknown" (a skipped row).
const char* verdict(const TargetCheck& t) {
  return !t.known() ? "unknown" : t.met() ? "met" : "missed";
}

/// "AMD EPYC, 2 logical CPUs, 23.4 GiB; load average 0.91 at the start,
/// 1.02 at the end (1 minute)", with "unknown" for what /proc did not give.
std::string describe_machine(const BenchReport& r) {
  const MachineInfo& m = r.machine;
  auto load = [](double v) { return v < 0 ? std::string("unknown") : fmt("%.2f", v); };
  return (m.cpu_model.empty() ? std::string("unknown CPU model") : m.cpu_model) + ", " +
         (m.logical_cpus > 0 ? std::to_string(m.logical_cpus) : std::string("unknown")) +
         " logical CPUs, " +
         (m.mem_total_kib < 0 ? std::string("unknown memory")
                              : fmt("%.1f", m.mem_total_kib / (1024.0 * 1024.0)) + " GiB") +
         "; load average " + load(r.load_start) + " at the start, " + load(r.load_end) +
         " at the end (1 minute; other processes' load slows every row)";
}

void print_table(const BenchReport& r, std::ostream& out) {
  out << "storcheck bench: seed " << r.opt.seed << ", " << r.opt.programs << " programs of "
      << r.opt.steps << " steps per pass, median of " << kBenchRepetitions << " passes, 1 thread\n";
  out << "LibTorch: " << (r.have_torch ? r.torch_version : "absent, " + r.skip_reason) << "\n";
  out << "machine: " << describe_machine(r) << "\n\n";

  out << pad("mode", 34, false) << pad("programs/s", 12) << pad("us/program", 12)
      << pad("steps/s", 12) << "  target\n";
  for (const ModeRow& m : r.modes) {
    out << pad(m.label, 34, false);
    if (m.skipped) {
      out << "  skipped: " << (m.why.empty() ? r.skip_reason : m.why) << "\n";
      continue;
    }
    out << pad(fixed0(m.m.programs_per_second()), 12) << pad(fmt("%.1f", m.m.us_per_program()), 12)
        << pad(fixed0(m.m.steps_per_second()), 12);
    if (*m.target) {
      out << "  " << m.target;
      if (m.target_pps > 0 && r.opt.steps != 16)
        out << " (for 16 steps)";
      else if (m.target_pps > 0)
        out << (m.m.programs_per_second() >= m.target_pps ? " (met)" : " (missed)");
    }
    out << "\n";
  }
  out << "\n";
  double rt = ratio(r, "reference", "torch_cpu");
  double ft = ratio(r, "full_check", "torch_cpu");
  if (rt < 0) {
    out << "ratio reference / LibTorch only:   skipped: " << r.skip_reason << "\n";
    out << "ratio full check / LibTorch only:  skipped: " << r.skip_reason << "\n";
  } else {
    const double xt = ratio(r, "reference_execution", "torch_cpu_execution");
    out << "ratio reference / LibTorch, execution only: " << fmt("%.2f", xt)
        << "x  (target >= 10x: " << (xt >= 10 ? "met" : "missed")
        << "; each backend alone, begin and run_step on the same programs)\n";
    out << "ratio reference / LibTorch only:   " << fmt("%.2f", rt)
        << "x  (both observed after every step: the runner's observation, no target;"
           " Note [The reference's 10x target])\n";
    out << "ratio full check / LibTorch only:  " << fmt("%.2f", ft)
        << "x  (1.0 would mean the reference and the comparison cost nothing)\n";
  }
  if (const ModeRow* full = find_mode(r, "full_check"); full && !full->skipped)
    out << "diverged programs per pass (full check): " << full->m.diverged << " of "
        << full->m.programs << " (a divergence ends its program early)\n";

  out << "\nscaling with program length (" << r.scaling_mode << ", max_numel 64, about "
      << r.opt.programs * r.opt.steps << " steps per pass)\n";
  out << pad("steps", 8) << pad("programs", 10) << pad("programs/s", 12) << pad("us/program", 12)
      << pad("us/step", 10) << pad("vs 16 steps", 13) << "\n";
  for (const ScaleRow& s : r.by_length) {
    double c = cost_vs_16(r, s);
    out << pad(std::to_string(s.steps), 8) << pad(std::to_string(s.m.programs), 10)
        << pad(fixed0(s.m.programs_per_second()), 12) << pad(fmt("%.1f", s.m.us_per_program()), 12)
        << pad(fmt("%.2f", s.m.us_per_step()), 10) << pad(c < 0 ? "-" : fmt("%.2fx", c), 13);
    if (s.steps == 256 && c >= 0) out << "  target <= 20x (" << (c <= 20 ? "met" : "missed") << ")";
    out << "\n";
  }

  out << "\nscaling with tensor size (" << r.scaling_mode << ", " << r.opt.steps
      << " steps, GenConfig::max_numel)\n";
  out << pad("max_numel", 10) << pad("programs", 10) << pad("programs/s", 12)
      << pad("us/program", 12) << pad("us/step", 10) << "\n";
  for (const ScaleRow& s : r.by_numel) {
    out << pad(std::to_string(s.max_numel), 10) << pad(std::to_string(s.m.programs), 10)
        << pad(fixed0(s.m.programs_per_second()), 12) << pad(fmt("%.1f", s.m.us_per_program()), 12)
        << pad(fmt("%.2f", s.m.us_per_step()), 10) << "\n";
  }

  out << "\ngenerator: " << fmt("%.1f", r.generator_us) << " us per program (" << r.opt.steps
      << " steps)\n";
  const ShrinkFigures& sh = r.shrink;
  if (sh.failures == 0) {
    out << "shrink (planted transpose bug vs " << sh.oracle << "): no failure in " << sh.scanned
        << " programs\n";
  } else {
    out << "shrink (planted transpose bug vs " << sh.oracle << "): median "
        << fmt("%.1f", sh.median_ms) << " ms per failure over " << sh.failures << " failures ("
        << sh.scanned << " programs drawn), " << fixed0(sh.median_candidates)
        << " programs run, 16 steps to median " << fmt("%.1f", sh.median_steps) << " (longest "
        << sh.max_steps << ")\n";
  }
  auto mib = [](int64_t kib) {
    return kib < 0 ? std::string("unavailable") : fmt("%.1f", kib / 1024.0) + " MiB";
  };
  out << "peak RSS (VmHWM): " << mib(r.peak_rss_kib) << " after the four modes, with "
      << mib(r.program_set_kib) << " of pre-generated programs"
      << (r.have_torch ? " and LibTorch's libraries" : "") << "; " << mib(r.peak_rss_end_kib)
      << " at the end (scaling sets)\n";
  out << "bench time: " << fmt("%.1f", r.total_seconds) << " s\n";
  std::vector<TargetCheck> ts = targets(r);
  int met = 0, known = 0;
  for (const TargetCheck& t : ts) {
    met += t.met() ? 1 : 0;
    known += t.known() ? 1 : 0;
  }
  out << "\ntargets (DESIGN.md \"Hard numbers\"; the gate's own figures are printed by the "
         "gate): "
      << met << " of " << ts.size() << " met"
      << (known < static_cast<int>(ts.size())
              ? " (the others unknown: a skipped row, or not 16 steps)"
              : "")
      << "\n";
  for (const TargetCheck& t : ts)
    out << "  " << pad(t.what, 50, false) << pad(t.bound, 22, false)
        << pad(t.known() ? fmt("%.2f", t.value) : std::string("-"), 10) << "  " << verdict(t)
        << "\n";
}

std::string json_measure(const Measure& m) {
  return "\"programs\": " + std::to_string(m.programs) +
         ", \"programs_per_second\": " + fmt("%.1f", m.programs_per_second()) +
         ", \"us_per_program\": " + fmt("%.3f", m.us_per_program()) +
         ", \"steps_per_second\": " + fmt("%.1f", m.steps_per_second()) +
         ", \"us_per_step\": " + fmt("%.4f", m.us_per_step()) +
         ", \"steps_run\": " + std::to_string(m.steps_run) +
         ", \"diverged\": " + std::to_string(m.diverged);
}

void print_json(const BenchReport& r, std::ostream& out) {
  out << "{\n";
  out << "  \"seed\": " << r.opt.seed << ", \"programs\": " << r.opt.programs
      << ", \"steps\": " << r.opt.steps << ", \"repetitions\": " << kBenchRepetitions
      << ", \"threads\": 1,\n";
  out << "  \"torch\": " << (r.have_torch ? "true" : "false") << ", \"torch_version\": "
      << json_string(r.torch_version) << ", \"skip_reason\": " << json_string(r.skip_reason)
      << ",\n";
  auto num_or_null = [](double v) { return v < 0 ? std::string("null") : fmt("%.4f", v); };
  out << "  \"machine\": {\"cpu_model\": "
      << (r.machine.cpu_model.empty() ? std::string("null") : json_string(r.machine.cpu_model))
      << ", \"logical_cpus\": "
      << (r.machine.logical_cpus > 0 ? std::to_string(r.machine.logical_cpus) : "null")
      << ", \"mem_total_kib\": "
      << (r.machine.mem_total_kib < 0 ? std::string("null")
                                      : std::to_string(r.machine.mem_total_kib))
      << ", \"load_average_start\": " << num_or_null(r.load_start)
      << ", \"load_average_end\": " << num_or_null(r.load_end) << "},\n";
  out << "  \"modes\": [\n";
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const ModeRow& m = r.modes[k];
    out << "    {\"mode\": \"" << m.key << "\", ";
    if (m.skipped)
      out << "\"skipped\": true, \"programs_per_second\": null";
    else
      out << "\"skipped\": false, " << json_measure(m.m);
    out << (k + 1 < r.modes.size() ? "},\n" : "}\n");
  }
  out << "  ],\n";
  out << "  \"ratios\": {\"reference_over_torch\": "
      << num_or_null(ratio(r, "reference", "torch_cpu"))
      << ", \"full_check_over_torch\": " << num_or_null(ratio(r, "full_check", "torch_cpu"))
      << ", \"reference_over_torch_execution_only\": "
      << num_or_null(ratio(r, "reference_execution", "torch_cpu_execution")) << "},\n";
  out << "  \"scaling_mode\": \"" << r.scaling_mode << "\",\n";
  out << "  \"length_scaling\": [\n";
  for (size_t k = 0; k < r.by_length.size(); ++k) {
    const ScaleRow& s = r.by_length[k];
    out << "    {\"steps\": " << s.steps << ", " << json_measure(s.m)
        << ", \"cost_vs_16_steps\": " << num_or_null(cost_vs_16(r, s))
        << (k + 1 < r.by_length.size() ? "},\n" : "}\n");
  }
  out << "  ],\n";
  out << "  \"size_scaling\": [\n";
  for (size_t k = 0; k < r.by_numel.size(); ++k) {
    const ScaleRow& s = r.by_numel[k];
    out << "    {\"max_numel\": " << s.max_numel << ", " << json_measure(s.m)
        << (k + 1 < r.by_numel.size() ? "},\n" : "}\n");
  }
  out << "  ],\n";
  out << "  \"generator_us_per_program\": " << fmt("%.3f", r.generator_us) << ",\n";
  out << "  \"shrink\": {\"oracle\": " << json_string(r.shrink.oracle)
      << ", \"failures\": " << r.shrink.failures << ", \"scanned\": " << r.shrink.scanned
      << ", \"median_ms\": " << fmt("%.3f", r.shrink.median_ms)
      << ", \"median_programs_run\": " << fmt("%.1f", r.shrink.median_candidates)
      << ", \"median_steps_after\": " << fmt("%.1f", r.shrink.median_steps)
      << ", \"max_steps_after\": " << r.shrink.max_steps << "},\n";
  auto kib_or_null = [](int64_t v) { return v < 0 ? std::string("null") : std::to_string(v); };
  out << "  \"peak_rss_kib\": " << kib_or_null(r.peak_rss_kib)
      << ", \"program_set_kib\": " << r.program_set_kib
      << ", \"peak_rss_end_kib\": " << kib_or_null(r.peak_rss_end_kib) << ",\n";
  out << "  \"targets\": {";
  std::vector<TargetCheck> ts = targets(r);
  for (size_t k = 0; k < ts.size(); ++k) {
    const TargetCheck& t = ts[k];
    out << (k ? ",\n    " : "\n    ") << json_string(t.key)
        << ": {\"value\": " << num_or_null(t.value) << ", \"limit\": " << fmt("%.0f", t.limit)
        << ", \"at_least\": " << (t.at_least ? "true" : "false")
        << ", \"met\": " << (t.known() ? (t.met() ? "true" : "false") : "null") << "}";
  }
  out << "\n  },\n";
  out << "  \"bench_seconds\": " << fmt("%.2f", r.total_seconds) << "\n";
  out << "}\n";
}

}  // namespace

std::string cpu_model_from(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t b = line.find_first_not_of(" \t", colon + 1);
    size_t e = line.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : line.substr(b, e - b + 1);
  }
  return "";
}

int64_t mem_total_kib_from(std::istream& meminfo) {
  int64_t kib = -1;
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream in(line.substr(9));
    return (in >> kib) && kib >= 0 ? kib : -1;
  }
  return -1;
}

double load_average_from(std::istream& loadavg) {
  double v = -1;
  return (loadavg >> v) && v >= 0 ? v : -1;
}

double load_average_now() {
  std::ifstream f("/proc/loadavg");
  return f ? load_average_from(f) : -1;
}

MachineInfo this_machine() {
  MachineInfo m;
  if (std::ifstream f("/proc/cpuinfo"); f) m.cpu_model = cpu_model_from(f);
  m.logical_cpus = std::thread::hardware_concurrency();
  if (std::ifstream f("/proc/meminfo"); f) m.mem_total_kib = mem_total_kib_from(f);
  return m;
}

std::vector<Program> bench_programs(uint64_t seed, int64_t n, int steps) {
  return pregenerate(bench_config(steps, 64), seed, n);
}

int64_t execute_alone(Backend* backend, const Program& p) {
  int64_t steps_run = 0;
  if (!p.steps.empty()) prefetch_step(p.steps[0]);
  backend->begin(p, Limits{});
  // The loop's own costs are in both backends' rows: its buffer is kept
  // across programs (an allocation and a free per program otherwise), and,
  // as Runner::run does, it prefetches the first step and then the next
  // (prefetch_step).
  static thread_local std::vector<char> bound;
  bound.assign(static_cast<size_t>(p.num_vars()), 0);
  const size_t n = p.steps.size();
  for (size_t k = 0; k < n; ++k) {
    const Step& step = p.steps[k];
    if (k + 1 < n) prefetch_step(p.steps[k + 1]);
    if (reads_unbound(step, bound)) continue;
    ++steps_run;
    const bool failed = backend->run_step(step).kind != ErrorKind::kNone;
    if (backend->take_refusal(nullptr)) break;
    if (step.out != kNoVar) bound[step.out] = failed ? 0 : 1;
    if (step.op == OpId::kDrop) bound[step.args[0].var] = 0;
  }
  return steps_run;
}

namespace {

class PlantedTransposeBackend final : public Backend {
 public:
  PlantedTransposeBackend() : inner_(make_reference_backend()) {}
  std::string_view name() const override { return "reference_planted_transpose"; }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  void begin(const Program& p, const Limits& limits) override { inner_->begin(p, limits); }
  Error run_step(const Step& s) override {
    Error e = inner_->run_step(s);
    if (e.kind != ErrorKind::kNone || s.op != OpId::kTranspose || s.out == kNoVar) return e;
    const Tensor* in = inner_->reference_tensor(s.args[0].var);
    const Tensor* out = inner_->reference_tensor(s.out);
    if (!in || !out) return e;
    const Geometry& a = (*in)->geom;
    const Geometry& b = (*out)->geom;
    // The planted bug: dims of the same size swapped give the input back.
    if (a.rank == b.rank &&
        std::equal(a.sizes.begin(), a.sizes.begin() + a.rank, b.sizes.begin()) &&
        !std::equal(a.strides.begin(), a.strides.begin() + a.rank, b.strides.begin()))
      inner_->rebind(s.out, *in);
    return e;
  }
  void observe(Observation* obs, const ObserveScope& scope) override {
    inner_->observe(obs, scope);
  }
  bool take_refusal(std::string* why) override { return inner_->take_refusal(why); }
  const Tensor* reference_tensor(VarId v) const override { return inner_->reference_tensor(v); }
  bool rebind(VarId v, Tensor t) override { return inner_->rebind(v, std::move(t)); }
  const SparseTensor* reference_sparse(VarId v) const override {
    return inner_->reference_sparse(v);
  }
  bool rebind_sparse(VarId v, SparseTensor t) override {
    return inner_->rebind_sparse(v, std::move(t));
  }

 private:
  std::unique_ptr<Backend> inner_;
};

}  // namespace

std::unique_ptr<Backend> make_planted_transpose_backend() {
  return std::make_unique<PlantedTransposeBackend>();
}

ShrinkFigures measure_planted_shrink(Backend* oracle, uint64_t seed, int64_t want) {
  ShrinkFigures f;
  std::unique_ptr<Backend> planted = make_planted_transpose_backend();
  std::unique_ptr<Backend> plain;
  if (!oracle) {
    plain = make_reference_backend();
    oracle = plain.get();
  }
  f.oracle = std::string(oracle->name());
  Runner runner({planted.get(), oracle}, Limits{});
  const std::string version = torch_version();
  int64_t runs = 0;
  auto fails = [&](const Program& q) {
    ++runs;
    RunReport rep = runner.run(q);
    if (!rep.diverged) return false;
    const Mismatch& m = rep.divergence.mismatch;
    std::string_view op = op_info(q.steps[static_cast<size_t>(rep.divergence.step - 1)].op).name;
    return match_known_divergence(op, m, version) == nullptr;
  };
  rc::Gen<Program> gen = gen_program(bench_config(16, 64));
  rc::Random root(seed);
  std::vector<double> ms, steps, candidates;
  for (int64_t i = 0; f.failures < want && i < 20000; ++i) {
    rc::Random r = root.split();
    rc::Shrinkable<Program> sp = gen(r, static_cast<int>(i % (kMaxSize + 1)));
    ++f.scanned;
    if (!fails(sp.value())) continue;
    ++f.failures;
    runs = 0;
    Clock::time_point t0 = Clock::now();
    Program small = shrink_failing(sp, fails);
    ms.push_back(1e3 * seconds_since(t0));
    steps.push_back(static_cast<double>(small.steps.size()));
    candidates.push_back(static_cast<double>(runs));
    f.max_steps = std::max(f.max_steps, static_cast<int64_t>(small.steps.size()));
  }
  if (f.failures > 0) {
    f.median_ms = median(ms);
    f.median_steps = median(steps);
    f.median_candidates = median(candidates);
  }
  return f;
}

int run_bench(const BenchOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.programs < 1 || opt.steps < 1 || opt.steps > 4096) {
    err << "Incorrect usage: storcheck bench needs --programs >= 1 and --steps in 1..4096 (got "
        << opt.programs << " programs, " << opt.steps << " steps)\n";
    return 2;
  }
  Clock::time_point start = Clock::now();
  BenchReport r;
  r.opt = opt;
  r.machine = this_machine();
  r.load_start = load_average_now();
  std::unique_ptr<Backend> ref = make_reference_backend();
  std::unique_ptr<Backend> torch = make_torch_cpu_backend();
  r.have_torch = torch != nullptr;
  if (r.have_torch)
    r.torch_version = torch_version();
  else
    r.skip_reason = "built without LibTorch: make_torch_cpu_backend() returned null";

  std::vector<Backend*> ref_only{ref.get()};
  std::vector<Backend*> both{ref.get()};
  if (torch) both.push_back(torch.get());
  // The scaling rows need the differential check; without LibTorch they
  // measure the reference alone rather than print nothing.
  const std::vector<Backend*>& scaling = r.have_torch ? both : ref_only;
  r.scaling_mode = r.have_torch ? "full check" : "reference only: LibTorch missing";

  GenConfig cfg = bench_config(opt.steps, 64);
  std::vector<Program> programs = pregenerate(cfg, opt.seed, opt.programs);

  ModeRow mref = mode_row("reference", "reference only", "", 0);
  ModeRow mtorch = mode_row("torch_cpu", "LibTorch only", "", 0);
  ModeRow mfull = mode_row("full_check", "full check (pre-generated)", ">= 15000/s", 15000);
  ModeRow me2e = mode_row("end_to_end", "end to end (generation included)", ">= 10000/s", 10000);
  ModeRow xref = mode_row("reference_execution", "reference, execution only",
                          ">= 10x LibTorch's execution", 0);
  ModeRow xtorch = mode_row("torch_cpu_execution", "LibTorch, execution only", "", 0);
  if (torch) {
    Runner ref_runner(ref_only, Limits{});
    Runner torch_runner({torch.get()}, Limits{});
    Runner full_runner(both, Limits{});
    std::vector<Measure> ms =
        run_interleaved({runs_pass(&ref_runner, &programs), runs_pass(&torch_runner, &programs),
                         runs_pass(&full_runner, &programs),
                         end_to_end_pass(&full_runner, cfg, opt.seed, opt.programs),
                         execution_pass(ref.get(), &programs),
                         execution_pass(torch.get(), &programs)});
    mref.m = ms[0];
    mtorch.m = ms[1];
    mfull.m = ms[2];
    me2e.m = ms[3];
    xref.m = ms[4];
    xtorch.m = ms[5];
  } else {
    mref.m = time_runs(ref_only, programs);
    xref.m = run_interleaved({execution_pass(ref.get(), &programs)}).front();
    mtorch.skipped = mfull.skipped = me2e.skipped = xtorch.skipped = true;
  }
  // PyTorch through CPython (oracles/python_backend.h), alone, on the first
  // kPythonPrograms programs: one pass (it runs at a few hundred programs/s).
  // A program ends at its first refused step (Note [Step outcome rules] rule 5).
  ModeRow mpy = mode_row("pytorch", "PyTorch (CPython) only", "", 0);
  std::string py_why;
  if (std::unique_ptr<Backend> py = make_python_backend(&py_why)) {
    std::vector<Program> few(programs.begin(),
                             programs.begin() + std::min<int64_t>(opt.programs, kPythonPrograms));
    Runner py_runner({py.get()}, Limits{});
    mpy.m = runs_pass(&py_runner, &few)();
  } else {
    mpy.skipped = true;
    mpy.why = py_why;
  }
  r.modes = {mref, mtorch, mfull, me2e, mpy, xref, xtorch};
  r.peak_rss_kib = peak_rss_kib();
  r.program_set_kib = program_bytes(programs) / 1024;
  programs = std::vector<Program>();

  // Each scaling group is timed interleaved, like the modes (its program
  // sets are alive together, which is why the peak RSS is read above).
  Runner scaling_runner(scaling, Limits{});
  {
    const int64_t step_budget = opt.programs * opt.steps;
    std::vector<std::vector<Program>> sets;
    std::vector<Pass> passes;
    for (int len : kLengths)
      sets.push_back(pregenerate(bench_config(len, 64), opt.seed,
                                 std::max(kMinScalePrograms, step_budget / len)));
    for (const std::vector<Program>& set : sets) passes.push_back(runs_pass(&scaling_runner, &set));
    std::vector<Measure> ms = run_interleaved(passes);
    for (size_t k = 0; k < ms.size(); ++k) {
      ScaleRow row;
      row.steps = kLengths[k];
      row.max_numel = 64;
      row.m = ms[k];
      r.by_length.push_back(row);
    }
  }
  {
    std::vector<std::vector<Program>> sets;
    std::vector<Pass> passes;
    for (int64_t numel : kNumels)
      sets.push_back(pregenerate(bench_config(opt.steps, numel), opt.seed, opt.programs));
    for (const std::vector<Program>& set : sets) passes.push_back(runs_pass(&scaling_runner, &set));
    std::vector<Measure> ms = run_interleaved(passes);
    for (size_t k = 0; k < ms.size(); ++k) {
      ScaleRow row;
      row.steps = opt.steps;
      row.max_numel = kNumels[k];
      row.m = ms[k];
      r.by_numel.push_back(row);
    }
  }
  r.generator_us = time_generator(cfg, opt.seed, opt.programs);
  r.shrink = measure_planted_shrink(torch ? torch.get() : nullptr, opt.seed, kShrinkFailures);
  r.peak_rss_end_kib = peak_rss_kib();
  r.total_seconds = seconds_since(start);
  r.load_end = load_average_now();

  if (opt.json)
    print_json(r, out);
  else
    print_table(r, out);
  return 0;
}

}  // namespace storcheck
