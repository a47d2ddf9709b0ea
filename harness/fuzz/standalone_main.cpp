// A main() for the fuzz targets in builds without libFuzzer (gcc, the test
// build): it replays files through LLVMFuzzerTestOneInput, as libFuzzer does
// when given files (OSS-Fuzz's StandaloneFuzzTargetMain convention). A
// folder stands for every regular file in it, in name order. Arguments that
// start with `-` go to LLVMFuzzerInitialize only.
//
// Exit 0 when every input ran (a finding aborts the process instead), 2 when
// an input cannot be read or is larger than kMaxInputBytes. With
// --expect-accepted, an input the target rejects (-1) also exits 2.
//
//   ./views_fuzzer corpus/views_fuzzer
//   ./views_fuzzer --plant-fault=transpose_square_strides crash.sc
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

constexpr size_t kMaxInputBytes = 1 << 20;

}  // namespace

// The byte-level mutator the custom mutators fall back to; libFuzzer defines
// it when linked. Here nothing mutates, but the symbol must exist: a small
// deterministic stand-in that flips one byte.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  static std::minstd_rand rng(1);
  if (size == 0 || size > max_size) return std::min(size, max_size);
  data[rng() % size] ^= static_cast<uint8_t>(1u << (rng() % 8));
  return size;
}

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  bool expect_accepted = false;
  std::vector<std::string> inputs;
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a == "--expect-accepted") expect_accepted = true;
    if (a.rfind("-", 0) == 0) continue;
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(a, ec))
        if (e.is_regular_file(ec)) files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else {
      inputs.push_back(a);
    }
  }
  size_t rejected = 0;
  for (const std::string& path : inputs) {
    std::ifstream f(path, std::ios::binary);
    std::string bytes;
    if (f) {
      bytes.resize(kMaxInputBytes + 1);
      f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      bytes.resize(static_cast<size_t>(f.gcount()));
    }
    if (!f && !f.eof()) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], path.c_str());
      return 2;
    }
    if (bytes.size() > kMaxInputBytes) {
      std::fprintf(stderr, "%s: %s is larger than %zu bytes\n", argv[0], path.c_str(),
                   kMaxInputBytes);
      return 2;
    }
    std::fprintf(stderr, "Running: %s\n", path.c_str());
    if (LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == -1) {
      ++rejected;
      std::fprintf(stderr, "%s: rejected %s (not a program of this target)\n", argv[0],
                   path.c_str());
    }
  }
  std::fprintf(stderr, "%s: ran %zu inputs, %zu rejected\n", argv[0], inputs.size(), rejected);
  if (expect_accepted && rejected) return 2;
  return 0;
}
