// The check of program_parser_fuzzer (issue 6): the parser and printer of
// the program text format alone. It needs only the program layer, not the
// backends or LibTorch, so the parser target links nothing else and builds
// in seconds wherever a C++17 compiler is (.clusterfuzzlite/build.sh's test).
//
//   std::string why;
//   if (check_parser_roundtrip("t0 = arange [3] f32\n", &why) == FuzzOutcome::kFinding)
//     std::cerr << why;
#pragma once

#include <string>
#include <string_view>

namespace storcheck {

enum class FuzzOutcome {
  kRejected,  ///< not a program of this target: a program target returns -1
  kPassed,    ///< judged, no failure (a known divergence passes)
  kFinding,   ///< a divergence or a broken invariant: the entry point aborts
};

/// The parser target's check: bytes either fail to parse, or parse to a
/// program that validates and whose print parses back to the same program
/// and prints the same text. Returns kRejected or kPassed; kFinding (with
/// *why) when a round trip breaks.
FuzzOutcome check_parser_roundtrip(std::string_view bytes, std::string* why);

}  // namespace storcheck
