// Precompiled header for the LibTorch oracles: the ATen headers that every
// oracles/torch_*.cpp file needs, and nothing from torch/torch.h (which
// doubles compile time). Only oracles/ may include this file (DESIGN.md).
#pragma once

#include <ATen/ATen.h>
#include <ATen/InferSize.h>
#include <ATen/Parallel.h>
#include <ATen/SparseCsrTensorUtils.h>
#include <ATen/SparseTensorUtils.h>
#include <ATen/TensorUtils.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/Resize.h>
#include <c10/util/Exception.h>
#include <c10/util/Logging.h>
// torch/version.h lives under torch/csrc/api/include, which find_package(Torch)
// puts on the include path; without it the version is reported as unknown.
#if __has_include(<torch/version.h>)
#include <torch/version.h>
#endif

// Copy-on-write storage (at::_lazy_clone) arrived in PyTorch 2.3; detected
// here at build time (issue: COW oracle), 0 for Debian's LibTorch 1.13.
#if __has_include(<c10/core/impl/COW.h>)
#include <c10/core/impl/COW.h>
#define STORCHECK_TORCH_HAS_COW 1
#else
#define STORCHECK_TORCH_HAS_COW 0
#endif
