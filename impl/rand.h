// Deterministic pseudo-random element values for the `rand` factory.
//
// Invariant: element k of `rand [sizes] dtype seed` depends only on (seed, k)
// and the dtype, so every backend fills the same values (the LibTorch backend
// writes these into its tensor; PyTorch's generator is not used).
//
//   double v = rand_value(42, 0, DType::kF32);   // in [0, 1)
#pragma once

#include <cstdint>

#include "impl/dtype.h"

namespace storcheck {

/// splitmix64 of (seed, index).
uint64_t rand_bits(uint64_t seed, uint64_t index);
/// Floating dtypes: uniform in [0, 1) with 24 random bits (exact in f32).
/// Integral dtypes: an integer in [0, 10). Bool: 0 or 1.
double rand_value(int64_t seed, int64_t index, DType d);

}  // namespace storcheck
