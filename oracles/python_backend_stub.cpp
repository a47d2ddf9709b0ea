// Built when CMake found no Python 3 with torch (or no LibTorch, whose error
// classification the PyTorch backend shares): no PyTorch backend.
#include "oracles/python_backend.h"

namespace storcheck {
std::unique_ptr<Backend> make_python_backend(std::string* why) {
  if (why) *why = python_backend_absent_reason();
  return nullptr;
}
std::string python_backend_absent_reason() { return STORCHECK_PYTHON_ABSENT_REASON; }
std::string pytorch_version() { return ""; }
}  // namespace storcheck
