// Helpers shared by the harness tests (not part of any library).
//
//   TempDir dir;                       // /tmp/storcheck-test-XXXXXX
//   std::string text = read_file(dir.path() + "/a.sc");
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "impl/fault.h"

namespace storcheck {

/// A fresh directory under /tmp, removed with everything in it at scope end
/// ("" when mkdtemp failed).
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/storcheck-test-XXXXXX";
    if (const char* d = ::mkdtemp(tmpl)) path_ = d;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  bool empty() const { return path_.empty(); }

 private:
  std::string path_;
};

/// The whole file ("" when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

/// Switches a planted fault (impl/fault.h) on for one scope and always back
/// off, even when an assertion returns early.
class FaultScope {
 public:
  explicit FaultScope(Fault f) : ok_(set_active_fault(f)) {}
  ~FaultScope() { set_active_fault(Fault::kNone); }
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;
  /// False when the build has no fault injection.
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

}  // namespace storcheck
