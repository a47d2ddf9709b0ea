// `storcheck gate`, `check` and `repro`: the commands users run, as
// functions of a typed options struct (harness/cli.cpp builds it from argv).
//
// Exit codes everywhere: 0 pass, 1 a finding (a property failed, backends
// diverged, a program crashed or timed out), 2 usage or input error (a bad
// flag, a malformed or unreadable program file), 3 internal error (a bug in
// storcheck: an exception it did not expect).
//
//   GateOptions o; o.budget_seconds = 30;
//   int code = run_gate(o, std::cout, std::cerr);
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

struct GateOptions {
  uint64_t seed = 0;
  int64_t programs = 0;          ///< per property; 0: the default
  double budget_seconds = 40;    ///< for all properties together
  std::string junit_path;        ///< "" : no JUnit XML
  std::string findings_dir = "storcheck-findings";
  std::string corpus_dir;        ///< holds regressions/
  int jobs = 2;
  bool shrink = true;
  std::string plant_fault;       ///< test builds only
  bool eager_unsafe = false;     ///< crash-isolated unsafe mode (forces jobs = 1)
  bool isolate = false;          ///< each property in a child process (harness/isolate.h)
  bool pytorch = false;          ///< also the pytorch.* properties (`--backends pytorch`)
  double program_timeout = 0;    ///< seconds per program, 0: none (Note [Program timeout])
  std::string findings_json;     ///< "" : no JSON of the findings
  int steps = 0;                 ///< steps per program (`--steps`); 0: the properties' own (16)
  Limits limits;
};

/// A finding in machine-readable form (`--findings-json`).
struct Finding {
  std::string name;       ///< "regression/FILE.sc" or the property
  std::string status;     ///< "fail", "xpass", "crash", "timeout", "internal"
  uint64_t seed = 0;
  int64_t program = -1;   ///< index of the failing program (-1: none)
  int steps = 0;          ///< steps per drawn program (`--steps`, else 16); 0: none drawn
  std::string divergence;
  std::string reproducer; ///< the file `storcheck repro` replays
  std::vector<std::string> scripts;  ///< emitted .py and .cpp
  std::string program_text;
};
/// `s` as a JSON string literal, quotes included (control characters escaped).
std::string json_string(const std::string& s);
/// A JSON array of the findings (stable key order, one object per finding).
std::string findings_to_json(const std::vector<Finding>& findings);

/// Programs per differential property when GateOptions::programs is 0.
inline constexpr int64_t kDefaultGatePrograms = 60000;

int run_gate(const GateOptions& opt, std::ostream& out, std::ostream& err);

struct CheckCommandOptions {
  std::string property;
  uint64_t seed = 0;
  int64_t programs = 1000;
  int max_size = 100;
  int steps = 0;  ///< steps per program (`--steps`); 0: the property's own (16)
  double budget_seconds = 0;
  bool shrink = true;
  std::string findings_dir = "storcheck-findings";
  std::string plant_fault;
  bool eager_unsafe = false;
  double program_timeout = 0;
  std::string findings_json;
  Limits limits;
};
int run_check(const CheckCommandOptions& opt, std::ostream& out, std::ostream& err);

struct ReproOptions {
  std::string path;
  std::string plant_fault;
  bool eager_unsafe = false;
  bool emit = false;  ///< print the Python and C++ reproducers after the trace
  Limits limits;
};
int run_repro(const ReproOptions& opt, std::ostream& out, std::ostream& err);
/// The report `storcheck repro` prints for a parsed program (`text` is its
/// source, read for a `# known:` header; `label` names it in the first
/// line): the trace, the first divergence, the invariants. Returns repro's
/// exit code, 0 or 1. The fuzz targets print it before they abort.
int print_repro_report(const Program& p, const std::string& text, const std::string& label,
                       bool eager_unsafe, const Limits& limits, std::ostream& out);

/// The id of a `# known: ID` header line of a program file ("" when none).
std::string known_id_of(const std::string& text);
/// The value of a `# KEY: VALUE` header line of a program file ("" when none).
std::string header_value(const std::string& text, const std::string& key);

/// Reads and parses a program file with every limit applied. On failure
/// returns false and sets *error to one line "PATH:LINE: message".
bool read_program_file(const std::string& path, const Limits& limits, Program* program,
                       std::string* text, std::string* error);

/// Switches on a planted fault by name; false (with *error) when unknown or
/// when this build has no fault injection.
bool activate_fault(const std::string& name, std::string* error);

}  // namespace storcheck
