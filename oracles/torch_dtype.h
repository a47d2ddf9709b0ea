// DType (impl/dtype.h) to and from LibTorch's ScalarType: the six dtypes of
// the language map one to one. Only for oracles/ files that include LibTorch.
//
//   at::Tensor t = at::zeros({2}, at::TensorOptions().dtype(to_torch(DType::kF64)));
//   DType d = from_torch(t.scalar_type());  // DType::kF64
#pragma once

#include <string>

#include "impl/dtype.h"
#include "impl/error.h"
#include "oracles/torch_pch.h"

namespace storcheck {

inline at::ScalarType to_torch(DType d) {
  switch (d) {
    case DType::kF32: return at::kFloat;
    case DType::kF64: return at::kDouble;
    case DType::kI32: return at::kInt;
    case DType::kI64: return at::kLong;
    case DType::kU8: return at::kByte;
    case DType::kBool: return at::kBool;
  }
  return at::kFloat;
}

/// SC_ASSERT on a ScalarType outside the language (a backend bug).
inline DType from_torch(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return DType::kF32;
    case at::kDouble: return DType::kF64;
    case at::kInt: return DType::kI32;
    case at::kLong: return DType::kI64;
    case at::kByte: return DType::kU8;
    case at::kBool: return DType::kBool;
    default: break;
  }
  SC_ASSERT(false, std::string("torch backend: unexpected dtype ") + c10::toString(t));
  return DType::kF32;
}

}  // namespace storcheck
