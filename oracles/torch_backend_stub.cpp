// Built when LibTorch is not found: no LibTorch backend.
#include <string>

#include "oracles/backend.h"
#include "oracles/known_divergences.h"

namespace storcheck {
std::unique_ptr<Backend> make_torch_cpu_backend(bool) { return nullptr; }
}  // namespace storcheck
namespace storcheck { std::string torch_version() { return ""; } }
