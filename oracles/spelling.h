// The op table's spellings (program/ops.def: the python and cpp columns)
// rendered for one step: what `storcheck emit` writes into a reproducer and
// what the PyTorch backend (oracles/python_backend.h) runs, so that both
// speak exactly the same PyTorch. Also the Python helpers those spellings
// call (`rand(`, `restored(`, ...), defined once here for both.
//
// Invariant: a spelling is a pure function of the step and the program's
// variable names; `!reason` and `*name` spellings are the caller's to handle
// (spell_step renders them verbatim).
//
//   Syntax py{EmitLang::kPython};
//   std::string expr = spell_step(py, program, step, /*input_fits=*/true);
//   // "t0.transpose(0, 1)"
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "impl/dtype.h"
#include "oracles/observation.h"
#include "program/ir.h"

namespace storcheck {

enum class EmitLang { kPython, kCpp };

/// How values are written in one language.
struct Syntax {
  EmitLang lang;
  bool py() const { return lang == EmitLang::kPython; }
  std::string comment() const { return py() ? "# " : "// "; }
  std::string end() const { return py() ? "" : ";"; }
  std::string quote(const std::string& s) const {
    std::string r = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') r += '\\';
      r += c;
    }
    return r + "\"";
  }
  std::string ints(const int64_t* v, int n) const {
    if (!py() && n == 0) return "at::IntArrayRef{}";
    std::string s = py() ? "[" : "{";
    for (int k = 0; k < n; ++k) {
      if (k) s += ", ";
      if (!py() && v[k] == INT64_MIN) s += "INT64_MIN";
      else s += std::to_string(v[k]);
    }
    return s + (py() ? "]" : "}");
  }
  std::string dtype(DType d) const {
    static const char* kPy[] = {"torch.float32", "torch.float64", "torch.int32",
                                "torch.int64",   "torch.uint8",   "torch.bool"};
    static const char* kCpp[] = {"at::kFloat", "at::kDouble", "at::kInt",
                                 "at::kLong",  "at::kByte",   "at::kBool"};
    return (py() ? kPy : kCpp)[static_cast<int>(d)];
  }
  /// torch.sparse_coo / at::kSparse, ... (Note [Observing a sparse variable]).
  std::string layout(Layout l) const {
    static const char* kPy[] = {"torch.strided",    "torch.sparse_coo", "torch.sparse_csr",
                                "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc"};
    static const char* kCpp[] = {"at::kStrided",   "at::kSparse",    "at::kSparseCsr",
                                 "at::kSparseCsc", "at::kSparseBsr", "at::kSparseBsc"};
    return (py() ? kPy : kCpp)[static_cast<int>(l)];
  }
  /// The shortest decimal that reads back as `x` (as a float when `f32`).
  std::string floating(double x, bool f32 = false) const {
    if (std::isnan(x)) return py() ? "math.nan" : "NAN";
    if (std::isinf(x)) return std::string(x < 0 ? "-" : "") + (py() ? "math.inf" : "INFINITY");
    char buf[40];
    if (x == std::floor(x) && std::fabs(x) < 1e15) {
      std::snprintf(buf, sizeof buf, "%.1f", x);
      return buf;
    }
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, x);
      double back = std::strtod(buf, nullptr);
      if (f32 ? static_cast<float>(back) == static_cast<float>(x) : back == x) break;
    }
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  }
  std::string boolean(bool b) const { return py() ? (b ? "True" : "False") : (b ? "true" : "false"); }
  std::string integer(int64_t v) const {
    return !py() && v == INT64_MIN ? "INT64_MIN" : std::to_string(v);
  }
  std::string scalar(const ScalarLit& s) const {
    switch (s.kind) {
      case ScalarLit::Kind::kBool: return boolean(s.i != 0);
      case ScalarLit::Kind::kInt: return integer(s.i);
      case ScalarLit::Kind::kFloat: return floating(s.f);
    }
    return "0";
  }
};

/// `text` calls the free function `call` ("name("), not a method `.name(`.
bool calls(const std::string& text, const char* call);

/// The op's spelling with its arguments substituted. Python's indexing
/// checks that the input lies inside its storage (aten::slice does not): an
/// input that does not fit gets the aten op, as does a dim too far out.
std::string spell_step(const Syntax& sx, const Program& p, const Step& s, bool input_fits);

/// A helper function the spellings may call, with the call that needs it.
struct Helper {
  const char* name;  ///< the call that needs it, "name("
  const char* code;
};

/// Python: imports and the checking functions of an emitted script
/// (`storage(t)`, `expect(...)`).
extern const char* const kPythonPrelude;

/// The helpers of `table` (n entries) that `body` calls, directly or through
/// another helper, in table order, each preceded by `separator`; every
/// helper when `all`.
std::string helpers_for(const Helper* table, size_t n, const std::string& body,
                        const char* separator, bool all = false);

/// The Python helpers that `body` calls, directly or through another
/// helper, in table order, each preceded by two blank lines; every helper
/// when `all`.
std::string python_helpers_for(const std::string& body, bool all = false);

}  // namespace storcheck
