#include "program/text_format.h"

#include <algorithm>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace storcheck {

std::string ParseError::to_string() const {
  if (line <= 0) return message;
  return "line " + std::to_string(line) + ": " + message;
}

namespace detail {
namespace {

int64_t dtype_itemsize(DTypeArg d) {
  switch (d) {
    case DTypeArg::kF32: return 4;
    case DTypeArg::kF64: return 8;
    case DTypeArg::kI32: return 4;
    case DTypeArg::kI64: return 8;
    case DTypeArg::kU8: return 1;
    case DTypeArg::kBool: return 1;
  }
  return 1;
}

std::string quoted(std::string_view s, size_t max = 40) {
  std::string out = "'";
  for (size_t k = 0; k < s.size() && k < max; ++k) {
    unsigned char c = static_cast<unsigned char>(s[k]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out + "'";
}

std::string print_list(const IntList& l) {
  std::string s = "[";
  for (int k = 0; k < l.size(); ++k) {
    if (k) s += ",";
    s += std::to_string(l[k]);
  }
  return s + "]";
}

const char* kind_name(char c) {
  switch (c) {
    case 'v': return "a tensor variable";
    case 'i': return "an integer";
    case 'l': return "an integer list like [3,4]";
    case 's': return "a scalar (2, 1.5, inf, nan, true, false)";
    case 'd': return "a dtype (f32 f64 i32 i64 u8 bool)";
  }
  return "?";
}

std::string usage(const OpInfo& info) {
  std::string s;
  if (info.result == OpResult::kTensor) s += "tN = ";
  s += info.name;
  for (char c : info.signature) {
    switch (c) {
      case 'v': s += " VAR"; break;
      case 'i': s += " INT"; break;
      case 'l': s += " [INTS]"; break;
      case 's': s += " SCALAR"; break;
      case 'd': s += " DTYPE"; break;
    }
  }
  if (info.category == OpCategory::kFactory) s += " [cpu|cuda]";
  return s;
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

bool parse_int(std::string_view tok, int64_t* out) {
  if (tok.empty()) return false;
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e;
}

}  // namespace

/// Tracks definitions and liveness of variables and the static factory
/// budget; shared by the parser and validate_program so both apply one rule.
class StepChecker {
 public:
  explicit StepChecker(const Limits& limits) : limits_(limits) {}

  /// Checks a fully built step; on failure fills *err and returns false.
  bool check(const Program& p, const Step& step, int64_t where, std::string* err) {
    const OpInfo& info = step.info();
    if (step.nargs != info.signature.size()) {
      *err = std::string(info.name) + " takes " + std::to_string(info.signature.size()) +
             (info.signature.size() == 1 ? " argument, got " : " arguments, got ") + std::to_string(step.nargs) + " (usage: " + usage(info) + ")";
      return false;
    }
    for (int k = 0; k < step.nargs; ++k) {
      const Arg& a = step.args[k];
      char want = info.signature[k];
      ArgKind wk = want == 'v' ? ArgKind::kVar
                   : want == 'i' ? ArgKind::kInt
                   : want == 'l' ? ArgKind::kList
                   : want == 's' ? ArgKind::kScalar
                                 : ArgKind::kDType;
      if (a.kind != wk) {
        *err = std::string(info.name) + " argument " + std::to_string(k + 1) + " must be " +
               kind_name(want) + " (usage: " + usage(info) + ")";
        return false;
      }
      if (a.kind == ArgKind::kList && a.list.size() > limits_.max_rank) {
        *err = "list of " + std::to_string(a.list.size()) + " entries exceeds max_rank " +
               std::to_string(limits_.max_rank);
        return false;
      }
      if (a.kind == ArgKind::kVar) {
        if (a.var < 0 || a.var >= p.num_vars() || a.var >= static_cast<VarId>(state_.size()) ||
            state_[a.var] == 0) {
          *err = "undefined variable " +
                 (a.var >= 0 && a.var < p.num_vars() ? quoted(p.var_names[a.var])
                                                     : "#" + std::to_string(a.var)) +
                 " (define it with 'NAME = op ...' before use)";
          return false;
        }
        if (state_[a.var] < 0) {
          *err = "variable " + quoted(p.var_names[a.var]) + " was dropped at line " +
                 std::to_string(-state_[a.var]) + " and cannot be used again";
          return false;
        }
      }
    }
    if (info.result == OpResult::kTensor) {
      if (step.out < 0 || step.out >= p.num_vars()) {
        *err = std::string(info.name) + " returns a tensor: write 'tN = " +
               std::string(info.name) + " ...'";
        return false;
      }
      if (step.out < static_cast<VarId>(state_.size()) && state_[step.out] != 0) {
        *err = "variable " + quoted(p.var_names[step.out]) +
               " is already defined; each name is assigned once";
        return false;
      }
      if (++defined_ > limits_.max_vars) {
        *err = "more than max_vars " + std::to_string(limits_.max_vars) + " variables";
        return false;
      }
    } else if (step.out != kNoVar) {
      *err = std::string(info.name) + " returns nothing: write '" + usage(info) + "'";
      return false;
    }
    if (info.category == OpCategory::kFactory && !check_factory(step, err)) return false;
    if (info.category != OpCategory::kFactory && step.device != DeviceArg::kHome) {
      *err = std::string(info.name) + " takes no device: only factories do (usage: " +
             usage(info) + ")";
      return false;
    }
    // Commit.
    if (info.result == OpResult::kTensor) {
      if (state_.size() <= static_cast<size_t>(step.out)) state_.resize(step.out + 1, 0);
      state_[step.out] = 1;
    }
    if (step.op == OpId::kDrop) state_[step.args[0].var] = -where;
    return true;
  }

 private:
  bool check_factory(const Step& step, std::string* err) {
    const IntList& sizes = step.args[0].list;
    DTypeArg d = DTypeArg::kF32;
    for (int k = 0; k < step.nargs; ++k)
      if (step.args[k].kind == ArgKind::kDType) d = step.args[k].dtype;
    int64_t bytes = dtype_itemsize(d);
    bool overflow = false;
    for (int64_t s : sizes)
      if (s < 0) return true;  // a run-time error the backends must agree on
    // A size-0 dim anywhere: no bytes, whatever the other sizes ([2^63-1, 0]
    // was refused as needing more than 2^63 bytes).
    const bool empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
    for (int64_t s : sizes) {
      if (empty) {
        bytes = 0;
        break;
      }
      if (bytes > std::numeric_limits<int64_t>::max() / s) overflow = true;
      if (!overflow) bytes *= s;
    }
    if (overflow || bytes > limits_.max_tensor_bytes) {
      *err = std::string(step.info().name) + " of sizes " + print_list(sizes) + " " +
             std::string(dtype_token(d)) + " needs " +
             (overflow ? std::string("more than 2^63") : std::to_string(bytes)) +
             " bytes, more than max_tensor_bytes " + std::to_string(limits_.max_tensor_bytes);
      return false;
    }
    total_ += bytes;
    if (total_ > limits_.max_program_bytes) {
      *err = "factories allocate " + std::to_string(total_) +
             " bytes in all, more than max_program_bytes " +
             std::to_string(limits_.max_program_bytes);
      return false;
    }
    return true;
  }

  const Limits& limits_;
  std::vector<int64_t> state_;  // 0 undefined, 1 live, -L dropped at line L
  int64_t defined_ = 0;
  int64_t total_ = 0;
};

namespace {

class Parser {
 public:
  Parser(std::string_view text, const Limits& limits)
      : text_(text), limits_(limits), checker_(limits) {}

  ParseResult run() {
    ParseResult r;
    if (static_cast<int64_t>(text_.size()) > limits_.max_input_bytes) {
      return fail(r, 0,
                  "program is " + std::to_string(text_.size()) +
                      " bytes, more than max_input_bytes " +
                      std::to_string(limits_.max_input_bytes));
    }
    // One allocation for the steps: at most one per line, at most max_steps
    // (growing the vector was a tenth of a fuzz target's time under ASan).
    const int64_t lines = std::count(text_.begin(), text_.end(), '\n') + 1;
    r.program.steps.reserve(static_cast<size_t>(std::min(lines, limits_.max_steps)));
    r.program.var_names.reserve(static_cast<size_t>(std::min(lines, limits_.max_vars)));
    size_t pos = 0;
    int64_t line_no = 0;
    while (pos < text_.size()) {
      ++line_no;
      const void* nl = std::memchr(text_.data() + pos, '\n', text_.size() - pos);
      size_t end = nl ? static_cast<const char*>(nl) - text_.data() : text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      pos = end + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (static_cast<int64_t>(line.size()) > limits_.max_line_bytes) {
        return fail(r, line_no,
                    "line is " + std::to_string(line.size()) + " bytes, more than max_line_bytes " +
                        std::to_string(limits_.max_line_bytes));
      }
      std::string err;
      if (!parse_line(line, line_no, &r.program, &err)) return fail(r, line_no, err);
    }
    return r;
  }

 private:
  static ParseResult& fail(ParseResult& r, int64_t line, std::string msg) {
    r.has_error = true;
    r.error.line = line;
    r.error.message = std::move(msg);
    r.program = Program{};
    return r;
  }

  bool parse_line(std::string_view line, int64_t line_no, Program* p, std::string* err) {
    for (size_t k = 0; k < line.size(); ++k) {
      unsigned char c = static_cast<unsigned char>(line[k]);
      if (c == '#') {
        line = line.substr(0, k);
        break;
      }
      if ((c < 0x20 && c != '\t') || c >= 0x7f) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "byte 0x%02x at column %zu is not allowed", c, k + 1);
        *err = std::string(buf) + " (programs are printable ASCII text)";
        return false;
      }
    }
    // Tokenize: words separated by blanks; a '[' token runs to its ']'.
    std::string_view toks[kMaxArgs + 4];
    int n = 0;
    size_t k = 0;
    while (k < line.size()) {
      while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
      if (k >= line.size()) break;
      size_t b = k;
      if (line[k] == '[') {
        while (k < line.size() && line[k] != ']') ++k;
        if (k >= line.size()) {
          *err = "list " + quoted(line.substr(b)) + " has no closing ']'";
          return false;
        }
        ++k;
      } else {
        while (k < line.size() && line[k] != ' ' && line[k] != '\t') ++k;
      }
      if (n == kMaxArgs + 3) {
        *err = "too many tokens (at most " + std::to_string(kMaxArgs) + " arguments per op)";
        return false;
      }
      toks[n++] = line.substr(b, k - b);
    }
    if (n == 0) return true;
    if (static_cast<int64_t>(p->steps.size()) >= limits_.max_steps) {
      *err = "more than max_steps " + std::to_string(limits_.max_steps) + " steps";
      return false;
    }
    Step step;
    int first = 0;
    std::string_view out_name;
    if (n >= 2 && toks[1] == "=") {
      out_name = toks[0];
      if (static_cast<int64_t>(out_name.size()) > limits_.max_name_bytes || !valid_name(out_name)) {
        *err = "bad variable name " + quoted(out_name) + " (letters, digits, '_'; at most " +
               std::to_string(limits_.max_name_bytes) + " bytes; not starting with a digit)";
        return false;
      }
      first = 2;
      if (n == 2) {
        *err = "missing op after '='";
        return false;
      }
    }
    if (!find_op(toks[first], &step.op)) {
      *err = "unknown op " + quoted(toks[first]) + " (see program/README.md for the op list)";
      return false;
    }
    const OpInfo& info = step.info();
    int nargs = n - first - 1;
    // A factory's optional device, after its arguments.
    if (info.category == OpCategory::kFactory &&
        nargs == static_cast<int>(info.signature.size()) + 1) {
      if (toks[n - 1] == "cuda" || toks[n - 1] == "cpu") {
        step.device = toks[n - 1] == "cuda" ? DeviceArg::kCuda : DeviceArg::kCpu;
        --nargs;
      } else {
        *err = std::string(info.name) + " takes " + std::to_string(info.signature.size()) +
               " arguments and an optional device (cpu or cuda), got " + std::to_string(nargs) +
               ": " + quoted(toks[n - 1]) + " is not a device (usage: " + usage(info) + ")";
        return false;
      }
    }
    if (nargs != static_cast<int>(info.signature.size())) {
      *err = std::string(info.name) + " takes " + std::to_string(info.signature.size()) +
             (info.signature.size() == 1 ? " argument, got " : " arguments, got ") + std::to_string(nargs) + " (usage: " + usage(info) + ")";
      return false;
    }
    if (info.result == OpResult::kTensor && out_name.empty()) {
      *err = std::string(info.name) + " returns a tensor: write '" + usage(info) + "'";
      return false;
    }
    if (info.result == OpResult::kNone && !out_name.empty()) {
      *err = std::string(info.name) + " returns nothing: write '" + usage(info) + "'";
      return false;
    }
    step.nargs = static_cast<uint8_t>(nargs);
    for (int a = 0; a < nargs; ++a) {
      if (!parse_arg(toks[first + 1 + a], info.signature[a], p, &step.args[a], err)) {
        *err = std::string(info.name) + " argument " + std::to_string(a + 1) + ": " + *err;
        return false;
      }
    }
    if (!out_name.empty()) {
      auto it = names_.find(out_name);
      if (it != names_.end()) {
        *err = "variable " + quoted(out_name) + " is already defined; each name is assigned once";
        return false;
      }
      if (static_cast<int64_t>(p->num_vars()) >= limits_.max_vars) {
        *err = "more than max_vars " + std::to_string(limits_.max_vars) + " variables";
        return false;
      }
      step.out = p->new_var(std::string(out_name));
      names_.emplace(out_name, step.out);
    }
    if (!checker_.check(*p, step, line_no, err)) return false;
    p->steps.push_back(step);
    return true;
  }

  bool parse_arg(std::string_view tok, char kind, const Program* p, Arg* a, std::string* err) {
    switch (kind) {
      case 'v': {
        auto it = names_.find(tok);
        if (it == names_.end()) {
          *err = "undefined variable " + quoted(tok) + " (define it with 'NAME = op ...' before use)";
          return false;
        }
        *a = Arg::variable(it->second);
        return true;
      }
      case 'i': {
        int64_t v;
        if (!parse_int(tok, &v)) {
          *err = "expected an integer in [-2^63, 2^63), got " + quoted(tok);
          return false;
        }
        *a = Arg::integer(v);
        return true;
      }
      case 'l': {
        if (tok.size() < 2 || tok.front() != '[' || tok.back() != ']') {
          *err = "expected an integer list like [3,4], got " + quoted(tok);
          return false;
        }
        IntList l;
        std::string_view body = tok.substr(1, tok.size() - 2);
        size_t b = 0;
        bool empty = body.find_first_not_of(" \t") == std::string_view::npos;
        while (!empty) {
          size_t c = body.find(',', b);
          std::string_view item = body.substr(b, c == std::string_view::npos ? c : c - b);
          while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
          while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
          if (l.n >= limits_.max_rank || l.n >= kMaxRank) {
            *err = "list " + quoted(tok) + " has more than max_rank " +
                   std::to_string(std::min<int64_t>(limits_.max_rank, kMaxRank)) + " entries";
            return false;
          }
          int64_t v;
          if (!parse_int(item, &v)) {
            *err = "list entry " + quoted(item) + " is not an integer in [-2^63, 2^63)";
            return false;
          }
          l.v[l.n++] = v;
          if (c == std::string_view::npos) break;
          b = c + 1;
        }
        *a = Arg::ints(l);
        return true;
      }
      case 's': {
        ScalarLit s;
        if (!parse_scalar(tok, &s)) {
          *err = "expected a scalar (2, -1.5, 1e-3, inf, -inf, nan, true, false), got " + quoted(tok);
          return false;
        }
        *a = Arg::scalar_arg(s);
        return true;
      }
      case 'd': {
        DTypeArg d;
        if (!find_dtype(tok, &d)) {
          *err = "unknown dtype " + quoted(tok) + " (expected f32 f64 i32 i64 u8 bool)";
          return false;
        }
        *a = Arg::dtype_arg(d);
        return true;
      }
    }
    (void)p;
    *err = "internal: bad signature char";
    return false;
  }

  static bool parse_scalar(std::string_view tok, ScalarLit* s) {
    if (tok == "true" || tok == "false") {
      *s = ScalarLit::boolean(tok == "true");
      return true;
    }
    if (tok == "inf" || tok == "+inf") {
      *s = ScalarLit::floating(std::numeric_limits<double>::infinity());
      return true;
    }
    if (tok == "-inf") {
      *s = ScalarLit::floating(-std::numeric_limits<double>::infinity());
      return true;
    }
    if (tok == "nan") {
      *s = ScalarLit::floating(std::numeric_limits<double>::quiet_NaN());
      return true;
    }
    int64_t i;
    if (parse_int(tok, &i)) {
      *s = ScalarLit::integer(i);
      return true;
    }
    if (tok.empty() || tok.size() > 64) return false;
    // Only plain decimal floats: digits, one '.', an optional exponent.
    for (char c : tok)
      if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        return false;
    const char* b = tok.data();
    const char* e = b + tok.size();
    if (*b == '+') ++b;
    double f;
    auto [p, ec] = std::from_chars(b, e, f);
    if (ec != std::errc() || p != e || !std::isfinite(f)) return false;
    *s = ScalarLit::floating(f);
    return true;
  }

  std::string_view text_;
  const Limits& limits_;
  StepChecker checker_;
  /// Keys are views into text_, which outlives the parser: no string per
  /// lookup (the fuzz targets parse every input, issue 6).
  std::unordered_map<std::string_view, VarId> names_;
};

}  // namespace
}  // namespace detail

ParseResult parse_program(std::string_view text, const Limits& limits) {
  return detail::Parser(text, limits).run();
}

std::string print_scalar(const ScalarLit& s) {
  switch (s.kind) {
    case ScalarLit::Kind::kBool: return s.i ? "true" : "false";
    case ScalarLit::Kind::kInt: return std::to_string(s.i);
    case ScalarLit::Kind::kFloat: break;
  }
  if (std::isnan(s.f)) return "nan";
  if (std::isinf(s.f)) return s.f > 0 ? "inf" : "-inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, s.f);
    if (std::strtod(buf, nullptr) == s.f) break;
  }
  std::string out = buf;
  if (out.find_first_of(".eE") == std::string::npos) out += ".0";
  if (out == "-0.0" || (s.f == 0 && std::signbit(s.f))) out = "-0.0";
  return out;
}

std::string print_step(const Program& program, const Step& step) {
  std::string s;
  const OpInfo& info = step.info();
  if (step.out != kNoVar) s += program.var_names[step.out] + " = ";
  s += info.name;
  for (int k = 0; k < step.nargs; ++k) {
    const Arg& a = step.args[k];
    s += ' ';
    switch (a.kind) {
      case ArgKind::kNone: s += "?"; break;
      case ArgKind::kVar: s += program.var_names[a.var]; break;
      case ArgKind::kInt: s += std::to_string(a.i); break;
      case ArgKind::kList: s += detail::print_list(a.list); break;
      case ArgKind::kScalar: s += print_scalar(a.scalar); break;
      case ArgKind::kDType: s += dtype_token(a.dtype); break;
    }
  }
  if (step.device != DeviceArg::kHome) s += step.device == DeviceArg::kCuda ? " cuda" : " cpu";
  return s;
}

std::string print_program(const Program& program) {
  std::string s(kProgramHeader);
  s += '\n';
  for (const Step& step : program.steps) {
    s += print_step(program, step);
    s += '\n';
  }
  return s;
}

ParseError validate_program(const Program& program, const Limits& limits, bool* ok) {
  ParseError e;
  *ok = true;
  if (static_cast<int64_t>(program.steps.size()) > limits.max_steps) {
    *ok = false;
    e.message = "more than max_steps " + std::to_string(limits.max_steps) + " steps";
    return e;
  }
  detail::StepChecker checker(limits);
  std::vector<bool> seen(program.var_names.size(), false);
  for (size_t k = 0; k < program.steps.size(); ++k) {
    const Step& st = program.steps[k];
    std::string err;
    if (!checker.check(program, st, static_cast<int64_t>(k + 1), &err)) {
      *ok = false;
      e.line = static_cast<int64_t>(k + 1);
      e.message = err;
      return e;
    }
  }
  return e;
}

}  // namespace storcheck
