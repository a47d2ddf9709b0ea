// Deterministic pseudo-random element values for the `rand` factory.
//
// Invariant: element k of `rand [sizes] dtype seed` depends only on (seed, k)
// and the dtype, so every backend fills the same values (the LibTorch backend
// writes these into its tensor; PyTorch's generator is not used).
//
//   double v = rand_value(42, 0, DType::kF32);   // in [0, 1)
//
// Inline: the reference's rand fills its elements in a typed loop
// (rand_item) that must not pay a call per element (issue 8).
#pragma once

#include <cstdint>

#include "impl/dtype.h"

namespace storcheck {

/// splitmix64 of (seed, index).
inline uint64_t rand_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Floating dtypes: uniform in [0, 1) with 24 random bits (exact in f32).
/// Integral dtypes: an integer in [0, 10). Bool: 0 or 1.
inline double rand_value(int64_t seed, int64_t index, DType d) {
  uint64_t bits = rand_bits(static_cast<uint64_t>(seed), static_cast<uint64_t>(index));
  if (is_floating(d)) return static_cast<double>(bits >> 40) * (1.0 / 16777216.0);
  if (d == DType::kBool) return static_cast<double>(bits & 1);
  return static_cast<double>(bits % 10);
}

/// rand_value(seed, index, D) as D's element type T (visit_dtype), the value
/// store_double would store: every rand value is exact in every dtype.
template <DType D, typename T>
T rand_item(int64_t seed, int64_t index) {
  uint64_t bits = rand_bits(static_cast<uint64_t>(seed), static_cast<uint64_t>(index));
  if constexpr (D == DType::kF32 || D == DType::kF64)
    return static_cast<T>(static_cast<double>(bits >> 40) * (1.0 / 16777216.0));
  else if constexpr (D == DType::kBool)
    return typed_from_int<D, T>(static_cast<int64_t>(bits & 1));
  else
    return typed_from_int<D, T>(static_cast<int64_t>(bits % 10));
}

}  // namespace storcheck
