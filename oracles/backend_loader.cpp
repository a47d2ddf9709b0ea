// The CLI's LibTorch and PyTorch backends: loaded from the module on first
// use (Note [LibTorch loaded on first use], oracles/backend_module.h).
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "oracles/backend_module.h"
#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"

namespace storcheck {

namespace {

/// The folder of the running binary ("" when /proc/self/exe cannot be read).
std::string binary_folder() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return "";
  path.resize(static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

/// An installation error: says what is missing and exits 3 at once. The
/// first use can be in a gate worker thread, where an exception would end
/// the process through std::terminate (exit 134, no storcheck message).
[[noreturn]] void fail(const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr, "storcheck: cannot load the LibTorch backends: %s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

const BackendModule& load() {
  const std::string folder = binary_folder();
  if (folder.empty())
    fail(std::string("cannot read /proc/self/exe to find ") + kBackendModuleFile + " (" +
         std::strerror(errno) + ")");
  const std::string path = folder + "/" + kBackendModuleFile;
  // RTLD_GLOBAL: the module's libpython must be in the global scope, as it
  // is for a binary that links it: the extension modules that `import
  // torch` loads (_ctypes, ...) take their Py* symbols from there (with
  // RTLD_LOCAL: "undefined symbol: PyTuple_Type", and no PyTorch backend).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const std::string err = dlerror();  // "PATH: why", as a rule
    fail((err.rfind(path, 0) == 0 ? err : path + ": " + err) +
         " (the build puts it beside the storcheck binary: keep the two together, or rebuild)");
  }
  using Entry = const BackendModule* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kBackendModuleEntry));
  if (!entry) fail(path + ": it has no " + kBackendModuleEntry);
  const BackendModule* m = entry();
  if (!m || m->version != kBackendModuleVersion)
    fail(path + ": it is of another storcheck build (module version " +
         std::to_string(m ? m->version : -1) + ", this binary's " +
         std::to_string(kBackendModuleVersion) + "); rebuild");
  return *m;  // never unloaded: the backends and LibTorch stay for the process
}

/// The module, loaded by the first call (thread-safe: a function's static).
const BackendModule& module() {
  static const BackendModule& m = load();
  return m;
}

}  // namespace

std::unique_ptr<Backend> make_torch_cpu_backend(bool eager_unsafe) {
  return module().make_torch_cpu_backend(eager_unsafe);
}
std::unique_ptr<Backend> make_torch_cpu_staged_backend() {
  return module().make_torch_cpu_staged_backend();
}
std::unique_ptr<Backend> make_torch_cuda_backend(bool check_device_memory, std::string* why) {
  return module().make_torch_cuda_backend(check_device_memory, why);
}
std::string torch_version() { return module().torch_version(); }
std::unique_ptr<Backend> make_python_backend(std::string* why) {
  return module().make_python_backend(why);
}
std::string python_backend_absent_reason() { return module().python_backend_absent_reason(); }
std::string pytorch_version() { return module().pytorch_version(); }

}  // namespace storcheck
