// A compile check of the LibTorch CUDA backend (Note [Device backends],
// oracles/torch_backend.cpp) where LibTorch has no CUDA but the CUDA
// Toolkit is installed (Debian's LibTorch 1.13 and /usr/local/cuda): the
// STORCHECK_TORCH_HAS_CUDA branch compiled against LibTorch's c10/cuda and
// ATen/native/cuda headers. An object library that nothing links (there is
// no libc10_cuda to link); a GPU machine's CUDA LibTorch builds the real one.
#define STORCHECK_TORCH_HAS_CUDA 1
#include "oracles/torch_backend.cpp"  // NOLINT(bugprone-suspicious-include)
