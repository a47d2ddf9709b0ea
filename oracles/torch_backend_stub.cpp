// Built when LibTorch is not found: no LibTorch backend.
#include <string>

#include "oracles/backend.h"
#include "oracles/known_divergences.h"

namespace storcheck {
std::unique_ptr<Backend> make_torch_cpu_backend(bool) { return nullptr; }
std::unique_ptr<Backend> make_torch_cpu_staged_backend() { return nullptr; }
std::unique_ptr<Backend> make_torch_cuda_backend(bool, std::string* why) {
  *why = "storcheck was built without LibTorch";
  return nullptr;
}
}  // namespace storcheck
namespace storcheck { std::string torch_version() { return ""; } }
