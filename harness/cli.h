// The `storcheck` command line: parses argv into typed options once (flags
// from harness/flags.def) and runs the command. Nothing deeper reads argv
// or the environment: main() passes RC_PARAMS in.
//
//   int code = storcheck_main(argc, argv, getenv("RC_PARAMS"), std::cout, std::cerr);
#pragma once

#include <iosfwd>

namespace storcheck {

int storcheck_main(int argc, const char* const* argv, const char* rc_params, std::ostream& out,
                   std::ostream& err);

}  // namespace storcheck
