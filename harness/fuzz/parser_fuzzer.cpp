// program_parser_fuzzer: the parser and printer alone (issue 6). Any bytes
// either are rejected with a ParseError, or parse to a program that
// validates and whose print parses back to the same program and prints the
// same text; anything else, or a crash, is a finding. Byte-level mutation
// only (no custom mutator): the parser's inputs are bytes. Unlike the
// program targets it returns 0, not -1, for rejected input: the parser's
// error paths are what it tests, so such inputs belong in its corpus.
//
//   ./program_parser_fuzzer -dict=harness/fuzz/storcheck.dict corpus/program_parser_fuzzer
#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/fuzz/parser_roundtrip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  switch (storcheck::check_parser_roundtrip(
      std::string_view(reinterpret_cast<const char*>(data), size), &why)) {
    case storcheck::FuzzOutcome::kRejected:
    case storcheck::FuzzOutcome::kPassed: return 0;
    case storcheck::FuzzOutcome::kFinding: break;
  }
  std::fprintf(stderr, "==storcheck== program_parser_fuzzer finding: %s\n", why.c_str());
  std::fflush(stderr);
  std::abort();
}
