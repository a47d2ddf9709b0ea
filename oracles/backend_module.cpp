// The module's entry (Note [LibTorch loaded on first use],
// oracles/backend_module.h): the table of its backends' functions.
#include "oracles/backend_module.h"

#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"

extern "C" __attribute__((visibility("default"))) const storcheck::BackendModule*
storcheck_backend_module() {
  using namespace storcheck;
  static const BackendModule module = {
      kBackendModuleVersion,
      [](bool eager_unsafe) { return make_torch_cpu_backend(eager_unsafe); },
      [] { return make_torch_cpu_staged_backend(); },
      [](bool check_device_memory, std::string* why) {
        return make_torch_cuda_backend(check_device_memory, why);
      },
      [] { return torch_version(); },
      [](std::string* why) { return make_python_backend(why); },
      [] { return python_backend_absent_reason(); },
      [] { return pytorch_version(); },
  };
  return &module;
}
