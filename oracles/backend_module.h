// The LibTorch and PyTorch backends as a module the storcheck CLI loads on
// first use (Note [LibTorch loaded on first use]).
//
// The module (storcheck_backends.so, beside the storcheck binary) exports one
// C function, kBackendModuleEntry, that returns a table of the functions
// oracles/backend.h, oracles/known_divergences.h and oracles/python_backend.h
// declare for these backends; oracles/backend_loader.cpp defines those
// functions in the CLI by calling through the table.
//
// Note [LibTorch loaded on first use]
// Linking LibTorch costs every process that links it about 0.7 s at start
// (its operator registry's static initializers) and 160 MB of memory, and
// the LibTorch that Debian builds cannot be linked --as-needed. Most of the
// CLI's commands need it (gate, check, repro, emit, minimize, bench), but
// help, list and every usage or input error do not: 0.7 s and 163 MB for
// `storcheck help`, and the bad-input catalogue runs the binary 62 times.
// So the CLI does not link the backends: it loads the module the first time
// a command asks for a LibTorch or PyTorch backend (or their versions):
// 1) with RTLD_NOW, so that a symbol the module lacks is reported at the
//    load, not at the first call;
// 2) with RTLD_GLOBAL, so that the Python extension modules PyTorch imports
//    find libpython's symbols (with RTLD_LOCAL, `import torch` failed on
//    _ctypes: "undefined symbol: PyTuple_Type", found by the PyTorch check);
// 3) the module holds only the backends' own code (torch_backend.cpp,
//    torch_errors.cpp, python_backend.cpp); what else it uses (the
//    reference, the layout policy, the program layer, the fault switches)
//    it takes from the CLI binary, which exports its symbols
//    (ENABLE_EXPORTS) and links those libraries whole: one copy of each
//    global, so a fault that --plant-fault switches on is the one the
//    module's PyTorch backend reads;
// 4) the module links with -Bsymbolic-functions: its table's calls to
//    make_torch_cpu_backend and the others reach its own definitions, not
//    the CLI's loader functions of the same names (which call the table);
// 5) a module that cannot be loaded is an installation error: the CLI says
//    which file and why, and exits 3; never a silent "built without
//    LibTorch", which would let a gate pass without LibTorch.
// The tests, the benchmarks and the fuzz targets link the same objects
// statically (storcheck_oracles). ctest cli.backends_load_on_first_use
// (harness/backend_module_check.sh) checks that help, list and a usage
// error run without the module, 5, and, in the fault build, 2 and 3 (the
// module's PyTorch backend imports torch and sees a fault the CLI planted);
// pytorch.check_fake_matches_reference needs 2 too. Nothing checks 1.
#pragma once

#include <memory>
#include <string>

#include "oracles/backend.h"

namespace storcheck {

/// The module's functions. kBackendModuleVersion changes with the table's
/// layout; the loader refuses a module of another version.
struct BackendModule {
  int version;
  std::unique_ptr<Backend> (*make_torch_cpu_backend)(bool eager_unsafe);
  std::unique_ptr<Backend> (*make_torch_cpu_staged_backend)();
  std::unique_ptr<Backend> (*make_torch_cuda_backend)(bool check_device_memory, std::string* why);
  std::string (*torch_version)();
  std::unique_ptr<Backend> (*make_python_backend)(std::string* why);
  std::string (*python_backend_absent_reason)();
  std::string (*pytorch_version)();
};

inline constexpr int kBackendModuleVersion = 1;
/// extern "C" const BackendModule* storcheck_backend_module();
inline constexpr const char* kBackendModuleEntry = "storcheck_backend_module";
/// The module's file name, in the folder of the storcheck binary.
inline constexpr const char* kBackendModuleFile = "storcheck_backends.so";

}  // namespace storcheck
