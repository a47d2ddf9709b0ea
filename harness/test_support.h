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

}  // namespace storcheck
