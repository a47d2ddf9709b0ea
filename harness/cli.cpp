#include "harness/cli.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "harness/bench.h"
#include "harness/emit.h"
#include "harness/gate.h"
#include "harness/minimize.h"
#include "harness/properties.h"

namespace storcheck {

namespace {

enum FlagKind { kUint, kInt, kSeconds, kString, kBool };

struct FlagSpec {
  const char* name;
  FlagKind kind;
  const char* def;
  const char* metavar;
  const char* help;
  const char* commands;
  int64_t max;  ///< kInt: the largest value accepted
};

constexpr FlagSpec kFlags[] = {
#define SC_FLAG(field, kind, def, name, metavar, help, cmds, max) \
  {name, kind, def, metavar, help, cmds, max},
#include "harness/flags.def"
#undef SC_FLAG
};

/// The parsed command line: one field per flag, plus `set` bits.
struct Options {
  std::string command;
  std::vector<std::string> positional;
#define SC_FLAG(field, kind, def, name, metavar, help, cmds, max) \
  std::string field = def;                                        \
  bool field##_set = false;
#include "harness/flags.def"
#undef SC_FLAG
};

void usage(std::ostream& o) {
  o << "usage: storcheck COMMAND [FLAGS]\n\n"
       "commands:\n"
       "  gate               every property with fixed seeds and a time budget, plus a replay of\n"
       "                     corpus/regressions/; a summary table with programs/s\n"
       "  check PROPERTY     one property (honours RC_PARAMS: seed, max_success, max_size, noshrink)\n"
       "  repro FILE         run a program on every backend; print the trace and the first divergence\n"
       "                     (--emit: then the standalone Python and C++ reproducers)\n"
       "  emit --python|--cpp FILE\n"
       "                     a standalone PyTorch script or LibTorch program that replays FILE and\n"
       "                     asserts what the reference expects after every step\n"
       "  minimize FILE      remove steps while the failure stays the same; -o OUT writes the result\n"
       "  bench              throughput report: programs/s per mode, ratios, scaling, peak RSS\n"
       "                     (--json)\n"
       "  list               the properties\n"
       "  help               this text\n\n"
       "flags:\n";
  for (const FlagSpec& f : kFlags) {
    std::string n = std::string(f.name) + (f.kind == kBool ? "" : std::string(" ") + f.metavar);
    o << "  " << n;
    // A name wider than the column goes on a line of its own.
    if (n.size() >= 24) o << "\n" << std::string(26, ' ');
    for (size_t k = n.size(); k < 24; ++k) o << ' ';
    o << f.help << " [" << f.commands << "]\n";
  }
  o << "\nexit codes: 0 pass, 1 a finding (property failure, divergence, crash or timeout),\n"
       "            2 usage or input error, 3 internal error (a bug in storcheck)\n";
}

bool parse_u64(const std::string& s, uint64_t* v) {
  if (s.empty() || s[0] == '-' || s.size() > 20) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *v = x;
  return true;
}

bool parse_i64(const std::string& s, int64_t* v, int64_t lo, int64_t hi) {
  if (s.empty() || s.size() > 20) return false;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || x < lo || x > hi) return false;
  *v = x;
  return true;
}

/// A kInt flag's bound as the errors print it: 2^40, 2^20, else decimal.
std::string bound_text(int64_t max) {
  for (int k : {40, 20})
    if (max == int64_t{1} << k) return "2^" + std::to_string(k);
  return std::to_string(max);
}

bool parse_seconds(const std::string& s, double* v) {
  if (s.empty() || s.size() > 20) return false;
  char* end = nullptr;
  double x = std::strtod(s.c_str(), &end);
  std::string unit = end;
  if (end == s.c_str()) return false;
  if (unit == "m") x *= 60;
  else if (!(unit.empty() || unit == "s")) return false;
  if (!(x >= 0 && x <= 86400)) return false;
  *v = x;
  return true;
}

int fail_usage(std::ostream& err, const std::string& msg) {
  err << "storcheck: " << msg << " (see 'storcheck help')\n";
  return 2;
}

}  // namespace

int storcheck_main(int argc, const char* const* argv, const char* rc_params, std::ostream& out,
                   std::ostream& err) {
  if (argc < 2) return fail_usage(err, "missing COMMAND (gate, check, repro, emit, minimize, bench, list, help)");
  Options o;
  o.command = argv[1];
  if (o.command == "help" || o.command == "--help" || o.command == "-h") {
    usage(out);
    return 0;
  }
  char cmd_letter = o.command == "gate" ? 'g' : o.command == "check" ? 'c'
                    : o.command == "repro" ? 'r' : o.command == "list" ? 'l'
                    : o.command == "bench" ? 'b' : o.command == "emit" ? 'e'
                    : o.command == "minimize" ? 'm' : 0;
  if (!cmd_letter) return fail_usage(err, "unknown command '" + o.command + "'");
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o") a = "--out";
    if (a.size() < 2 || a.rfind("--", 0) != 0) {
      o.positional.push_back(a);
      continue;
    }
    std::string value;
    bool has_value = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& f : kFlags)
      if (a == f.name) spec = &f;
    if (!spec) return fail_usage(err, "unknown flag '" + a + "'");
    if (std::string(spec->commands).find(cmd_letter) == std::string::npos)
      return fail_usage(err, a + " does not apply to '" + o.command + "'");
    if (spec->kind == kBool) {
      if (has_value) return fail_usage(err, a + " takes no value");
      value = "1";
    } else if (!has_value) {
      if (i + 1 >= argc) return fail_usage(err, a + " needs a value " + spec->metavar);
      value = argv[++i];
    }
    // Validate the value now, so errors name the flag.
    uint64_t u;
    int64_t n;
    double d;
    switch (spec->kind) {
      case kUint:
        if (!parse_u64(value, &u))
          return fail_usage(err, a + ": expected an unsigned integer, got '" + value + "'");
        break;
      case kInt:
        if (!parse_i64(value, &n, 1, spec->max))
          return fail_usage(err, a + ": expected an integer from 1 to " + bound_text(spec->max) +
                                     ", got '" + value + "'");
        break;
      case kSeconds:
        if (!parse_seconds(value, &d))
          return fail_usage(err, a + ": expected seconds like 30, 30s or 2m (at most 1 day), got '" +
                                     value + "'");
        break;
      default: break;
    }
#define SC_FLAG(field, kind, def, name, metavar, help, cmds, max) \
  if (a == name) {                                                \
    o.field = value;                                              \
    o.field##_set = true;                                         \
  }
#include "harness/flags.def"
#undef SC_FLAG
  }

  // RC_PARAMS, as RapidCheck reads it; explicit flags win.
  rc::detail::TestParams rc_defaults;
  rc::detail::TestParams rc = rc_defaults;
  bool rc_seed = false;
  if (rc_params && *rc_params) {
    try {
      rc::detail::Configuration cfg = rc::detail::configFromString(rc_params);
      rc = cfg.testParams;
      rc_seed = std::string(rc_params).find("seed") != std::string::npos;
    } catch (const std::exception& e) {
      return fail_usage(err, std::string("RC_PARAMS: ") + e.what());
    }
  }
  uint64_t seed = rc_seed ? rc.seed : 0;
  if (o.seed_set) parse_u64(o.seed, &seed);
  double budget = 0;
  if (o.budget_set) parse_seconds(o.budget, &budget);
  int64_t programs = 0;
  if (o.programs_set) parse_i64(o.programs, &programs, 1, int64_t{1} << 40);
  int64_t jobs = 2;
  parse_i64(o.jobs, &jobs, 1, 256);
  int64_t steps = 0;  // gate and check: 0, the properties' own (16); bench: 16
  if (o.steps_set) parse_i64(o.steps, &steps, 1, 4096);
  bool shrink = !o.no_shrink_set && !rc.disableShrinking;
  double program_timeout = 0;
  if (o.program_timeout_set) parse_seconds(o.program_timeout, &program_timeout);
  Limits limits;
  if (o.max_program_bytes_set) parse_i64(o.max_program_bytes, &limits.max_program_bytes, 1, int64_t{1} << 40);
  if (o.max_tensor_bytes_set) parse_i64(o.max_tensor_bytes, &limits.max_tensor_bytes, 1, int64_t{1} << 40);

  if (o.command == "list") {
    for (const Property& p : properties()) out << p.name << "  " << p.summary << "\n";
    return 0;
  }
  if (o.command == "bench") {
    if (!o.positional.empty()) return fail_usage(err, "bench takes no argument '" + o.positional[0] + "'");
    BenchOptions b;
    if (o.seed_set) b.seed = seed;
    if (o.programs_set) b.programs = programs;
    b.steps = o.steps_set ? static_cast<int>(steps) : 16;
    b.json = o.json_set;
    return run_bench(b, out, err);
  }
  if (o.command == "gate") {
    if (!o.positional.empty()) return fail_usage(err, "gate takes no argument '" + o.positional[0] + "'");
    GateOptions g;
    g.seed = seed;
    g.programs = programs;
    g.budget_seconds = o.budget_set ? budget : 40;
    g.junit_path = o.junit;
    g.findings_dir = o.findings_dir;
    g.corpus_dir = o.corpus_set ? o.corpus : std::string(STORCHECK_SOURCE_DIR) + "/corpus";
    g.jobs = static_cast<int>(jobs);
    g.shrink = shrink;
    g.plant_fault = o.plant_fault;
    g.eager_unsafe = o.eager_unsafe_set;
    g.isolate = o.isolate_set;
    if (o.backends_set) {
      if (o.backends != "pytorch")
        return fail_usage(err, "--backends: unknown backend list '" + o.backends +
                                   "' (known: pytorch)");
      g.pytorch = true;
    }
    g.program_timeout = program_timeout;
    g.findings_json = o.findings_json;
    g.steps = static_cast<int>(steps);
    g.limits = limits;
    return run_gate(g, out, err);
  }
  if (o.command == "check") {
    if (o.positional.size() != 1) return fail_usage(err, "check takes exactly one PROPERTY");
    CheckCommandOptions c;
    c.property = o.positional[0];
    c.seed = seed;
    c.programs = o.programs_set ? programs : (rc_params && *rc_params ? rc.maxSuccess : 1000);
    int64_t ms = rc.maxSize;
    if (o.max_size_set) parse_i64(o.max_size, &ms, 1, 1 << 20);
    c.max_size = static_cast<int>(ms);
    c.budget_seconds = budget;
    c.shrink = shrink;
    c.findings_dir = o.findings_dir;
    c.plant_fault = o.plant_fault;
    c.eager_unsafe = o.eager_unsafe_set;
    c.program_timeout = program_timeout;
    c.findings_json = o.findings_json;
    c.steps = static_cast<int>(steps);
    c.limits = limits;
    return run_check(c, out, err);
  }
  if (o.command == "emit") {
    if (o.positional.size() != 1) return fail_usage(err, "emit takes exactly one FILE");
    if (o.python_set == o.cpp_set) return fail_usage(err, "emit needs exactly one of --python, --cpp");
    std::string ferr;
    if (!activate_fault(o.plant_fault, &ferr)) {
      err << "storcheck emit: --plant-fault: " << ferr << "\n";
      return 2;
    }
    std::string script, e;
    int rc = emit_file(o.python_set ? EmitLang::kPython : EmitLang::kCpp, o.positional[0], Limits{},
                       &script, &e);
    if (rc != 0) {
      err << "storcheck emit: " << e << "\n";
      return rc;
    }
    if (!o.out_set) {
      out << script;
      return 0;
    }
    size_t slash = o.out.find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : o.out.substr(0, slash);
    std::string name = slash == std::string::npos ? o.out : o.out.substr(slash + 1);
    if (name.empty()) return fail_usage(err, "--out: '" + o.out + "' names no file");
    if (write_file_atomic(dir, name, script, &e).empty()) {
      err << "storcheck emit: " << e << "\n";
      return 2;
    }
    return 0;
  }
  if (o.command == "minimize") {
    if (o.positional.size() != 1) return fail_usage(err, "minimize takes exactly one FILE");
    MinimizeOptions m;
    m.path = o.positional[0];
    m.out_path = o.out;
    m.plant_fault = o.plant_fault;
    return run_minimize(m, out, err);
  }
  // repro
  if (o.positional.size() != 1) return fail_usage(err, "repro takes exactly one FILE");
  ReproOptions r;
  r.path = o.positional[0];
  r.plant_fault = o.plant_fault;
  r.eager_unsafe = o.eager_unsafe_set;
  r.emit = o.emit_set;
  r.limits = limits;
  return run_repro(r, out, err);
}

}  // namespace storcheck
