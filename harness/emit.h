// `storcheck emit`: turns a program into a standalone reproducer, a PyTorch
// (Python) script or a LibTorch (C++) program that needs nothing but torch
// (issue 9). The script builds the program's tensors, runs its steps with
// each op's spelling from the op table (program/ops.def), and after every
// step asserts what storcheck's reference observed: sizes, strides, offset,
// dtype, element values, aliasing, the error of a rejected step. At the step
// where the backends diverged it says so in a comment (the SEMANTICS id and
// the reference's value vs LibTorch's) and asserts the differing field.
//
// Invariant: an emitted script never runs on LibTorch what storcheck's
// LibTorch backend refuses to run (S8, S9, resource limits): such steps are
// emitted as comments. See Note [What the emitted script runs] in emit.cpp.
//
//   EmitRequest r;  r.program = &p;  r.source = "kv.sc";
//   std::string py = emit_script(EmitLang::kPython, r, Limits{});
#pragma once

#include <optional>
#include <string>

#include "program/ir.h"
#include "oracles/spelling.h"
#include "program/limits.h"

namespace storcheck {

/// The first difference between the reference and LibTorch (oracles/runner.h).
struct EmitDivergence {
  int64_t step = 0;        ///< 1-based
  std::string field;       ///< "strides", "values", "error", ...
  VarId var = kNoVar;
  std::string expected;    ///< the reference's value, printed
  std::string observed;    ///< LibTorch's value, printed
  std::string backend;     ///< "torch_cpu (LibTorch 1.13.0)"
};

/// A divergence listed in oracles/known_divergences.cpp.
struct EmitKnown {
  std::string id;
  std::string versions;  ///< "*" or "1.13,2.0"
  std::string reason;
};

struct EmitRequest {
  const Program* program = nullptr;
  std::string source;                ///< the file name, for the header
  std::string header;                ///< the file's leading `#` lines, verbatim
  std::optional<EmitDivergence> divergence;
  std::optional<EmitKnown> known;    ///< applies to `divergence`
};

/// The script text. Runs the program on the reference backend to learn what
/// to assert; the caller supplies where LibTorch diverged (if it did).
std::string emit_script(EmitLang lang, const EmitRequest& request, const Limits& limits);

/// The SEMANTICS id a divergence of `field` at a step of `op` is about
/// ("S3", "R3", "C6" ...), for comments and reports.
std::string semantics_id(OpId op, const std::string& field, bool input_emptied);

/// Reads FILE, runs it on every backend to find the divergence (and whether
/// it is a known one), and emits. Returns 0, or 2 with `*err` set when the
/// file is bad input.
int emit_file(EmitLang lang, const std::string& path, const Limits& limits, std::string* out,
              std::string* err);

}  // namespace storcheck
