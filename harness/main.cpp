// storcheck: property-based testing and fuzzing of tensor storage semantics.
#include <cstdlib>
#include <iostream>

#include "harness/cli.h"

int main(int argc, char** argv) {
  return storcheck::storcheck_main(argc, argv, std::getenv("RC_PARAMS"), std::cout, std::cerr);
}
