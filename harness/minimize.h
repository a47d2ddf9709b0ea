// `storcheck minimize FILE [-o OUT]`: removes steps from a failing program
// while it keeps failing the same way (the same Verdict::signature: the op
// and field of the first divergence, or the invariant), until no single
// step can be removed (harness/shrink.h). The nightly fuzzing script runs it
// on every crash libFuzzer found, after -minimize_crash.
//
// Exit codes: 1 FILE fails (the minimized program is written to OUT, or to
// stdout), 0 FILE does not fail (nothing to minimize; nothing written), 2 a
// usage or input error.
//
//   MinimizeOptions o; o.path = "crash-1234"; o.out_path = "small.sc";
//   int code = run_minimize(o, std::cout, std::cerr);
#pragma once

#include <iosfwd>
#include <string>

#include "harness/verdict.h"
#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

struct MinimizeOptions {
  std::string path;
  std::string out_path;     ///< "" : print the program on stdout
  std::string plant_fault;  ///< test builds only
  Limits limits;
};

int run_minimize(const MinimizeOptions& opt, std::ostream& out, std::ostream& err);

/// The smallest program, by single-step removal, that fails with
/// `failure`'s signature; `p` must fail so.
Program minimize_failure(const Program& p, const Verdict& failure, Judge& judge);

}  // namespace storcheck
