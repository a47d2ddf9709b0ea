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

/// Element `index` of `rand` with `seed` in dtype D, as D's element type T
/// (visit_dtype). Floating dtypes: uniform in [0, 1) with 24 random bits
/// (exact in f32). Integral dtypes: an integer in [0, 10). Bool: 0 or 1.
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

/// rand_item as a double: every rand value is exact in every dtype, so
/// store_double(p, d, rand_value(seed, k, d)) stores rand_item's bytes.
inline double rand_value(int64_t seed, int64_t index, DType d) {
  return visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(rand_item<decltype(tag)::dtype, T>(seed, index));
  });
}

}  // namespace storcheck
