// The text format v1 of programs: parse and print (grammar: program/README.md).
//
// Parsing never trusts its input: every limit of Limits is checked before the
// work it bounds, and the first problem is returned as a ParseError naming the
// 1-based line, the offending value and what was expected. Printing is the
// inverse: parse_program(print_program(p)) == p for every well-formed p.
//
//   ParseResult r = parse_program("t0 = arange [3,4] f32\nt1 = t t0\n");
//   if (!r.ok()) std::cerr << r.error.to_string() << "\n";
//   std::string text = print_program(r.program);
#pragma once

#include <string>
#include <string_view>

#include "program/ir.h"
#include "program/limits.h"

namespace storcheck {

/// A rejected program: where and why.
struct ParseError {
  int64_t line = 0;  ///< 1-based line number; 0 when the whole input is at fault
  std::string message;
  /// "line 3: unknown op 'foo' (known ops: ...)"
  std::string to_string() const;
};

/// Either a program or the first error found in it.
struct [[nodiscard]] ParseResult {
  Program program;
  bool has_error = false;
  ParseError error;
  bool ok() const { return !has_error; }
};

/// The header line the printer writes first (the parser accepts it anywhere
/// a comment may stand).
inline constexpr std::string_view kProgramHeader = "# storcheck program v1";

/// Parses program text. Comments (`#` to end of line) and blank lines are
/// skipped. Example: parse_program("t0 = zeros [2] f32\nfill_ t0 1.5\n").
ParseResult parse_program(std::string_view text, const Limits& limits = Limits{});

/// Prints a program in the text format, header first, one step per line.
std::string print_program(const Program& program);
/// Prints one step (no newline), e.g. "t1 = transpose t0 0 1".
std::string print_step(const Program& program, const Step& step);
/// Prints a scalar so that it parses back to the same value and kind.
std::string print_scalar(const ScalarLit& s);

/// Checks a program built in memory (generator, mutator) against the rules
/// the parser enforces; the error's line is the 1-based step number.
ParseError validate_program(const Program& program, const Limits& limits, bool* ok);

}  // namespace storcheck
