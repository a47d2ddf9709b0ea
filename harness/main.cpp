// storcheck: property-based testing and fuzzing of tensor storage semantics.
#include <cstdlib>
#include <exception>
#include <iostream>

#include "harness/cli.h"

// Exit code 3 is an internal error: an exception storcheck did not expect
// (harness/gate.h lists every exit code).
int main(int argc, char** argv) {
  try {
    return storcheck::storcheck_main(argc, argv, std::getenv("RC_PARAMS"), std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "storcheck: internal error: " << e.what() << "\n";
    return 3;
  } catch (...) {
    std::cout.flush();
    std::cerr << "storcheck: internal error: an unknown exception\n";
    return 3;
  }
}
