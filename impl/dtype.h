// Element types and scalars of the reference implementation.
//
// Invariant: every element is stored in its C++ type at
// `itemsize(dtype) * index` bytes (S4); bool is one byte holding 0 or 1.
// Conversions between dtypes follow PyTorch 1.13 on x86-64 and are total
// (no undefined behaviour): see Note [Float to integer conversion].
//
//   DType d = DType::kF32;
//   int64_t n = itemsize(d);                  // 4
//   Scalar s = Scalar::floating(1.5);
//   DType r = result_type(DType::kI32, s);    // kF32, as torch.result_type
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

namespace storcheck {

enum class DType : uint8_t { kF32, kF64, kI32, kI64, kU8, kBool };
inline constexpr int kNumDType = 6;

/// Bytes per element. Inline: every fresh tensor and view asks (issue 8).
inline int64_t itemsize(DType d) {
  switch (d) {
    case DType::kF32: return 4;
    case DType::kF64: return 8;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kU8: return 1;
    case DType::kBool: return 1;
  }
  return 1;
}
/// "f32", "f64", "i32", "i64", "u8", "bool".
std::string_view dtype_name(DType d);
/// PyTorch's name: "torch.float32", ...
std::string_view dtype_torch_name(DType d);
/// c10's ScalarType name, as LibTorch's messages print a dtype: "Float",
/// "Double", "Int", "Long", "Byte", "Bool".
std::string_view dtype_scalar_type_name(DType d);
inline bool is_floating(DType d) { return d == DType::kF32 || d == DType::kF64; }
/// Includes u8, excludes bool.
inline bool is_integral(DType d) { return d == DType::kI32 || d == DType::kI64 || d == DType::kU8; }

/// A Python-like scalar: bool, int64 or double.
struct Scalar {
  enum class Kind : uint8_t { kBool, kInt, kFloat };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  static Scalar integer(int64_t v) { return {Kind::kInt, v, 0}; }
  static Scalar floating(double v) { return {Kind::kFloat, 0, v}; }
  static Scalar boolean(bool v) { return {Kind::kBool, v ? 1 : 0, 0}; }
  double to_double() const { return kind == Kind::kFloat ? f : static_cast<double>(i); }
};

/// torch.result_type(tensor_of_dtype, scalar): the scalar only promotes when
/// it is of a higher category (bool < integral < floating), and then to the
/// default dtype of that category (i64, f32).
DType result_type(DType tensor, const Scalar& s);
/// torch.can_cast(from, to): no floating -> integral/bool, no integral -> bool.
bool can_cast(DType from, DType to);

/// Element value as double / int64 (for observations and conversions).
double load_as_double(const uint8_t* p, DType d);
int64_t load_as_int(const uint8_t* p, DType d);
/// Stores a double / int64 converting to `d` with PyTorch's rules.
void store_double(uint8_t* p, DType d, double v);
void store_int(uint8_t* p, DType d, int64_t v);
/// Converts one element from `from` at src to `to` at dst (copy_ semantics).
void convert_element(uint8_t* dst, DType to, const uint8_t* src, DType from);

/// Copies one element of `itemsize` bytes (1, 4 or 8). A fixed-size copy is
/// one load and store, where std::memcpy of a run-time size is a call per
/// element (through ASan's interceptor in the fuzz targets, whose
/// elementwise loops run it for every element of tensors up to 64 KiB).
inline void copy_item(uint8_t* dst, const uint8_t* src, int64_t itemsize) {
  switch (itemsize) {
    case 8:
      std::memcpy(dst, src, 8);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    default:
      *dst = *src;
      return;  // u8, bool
  }
}

enum class BinOp : uint8_t { kAdd, kMul };
/// r = a (op) b, all of dtype d, in d's arithmetic as PyTorch's kernels
/// compute it: IEEE for floats, wrapping for integers, or/and for bool. `r`
/// may be `a` or `b` (in-place accumulation).
void binop(uint8_t* r, const uint8_t* a, const uint8_t* b, DType d, BinOp op);

/// The element type D stores, for typed loops (visit_dtype): bool is a byte
/// read as true when non-zero, as load_as_int reads it.
template <typename T, DType D>
struct DTypeTag {
  using type = T;
  static constexpr DType dtype = D;
};

/// Calls f(DTypeTag<T, d>{}) with T the C++ type of d's elements: the typed
/// loops of impl/ops.cpp choose their element type once per tensor instead
/// of per element.
template <typename F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::kF32:
      return f(DTypeTag<float, DType::kF32>{});
    case DType::kF64:
      return f(DTypeTag<double, DType::kF64>{});
    case DType::kI32:
      return f(DTypeTag<int32_t, DType::kI32>{});
    case DType::kI64:
      return f(DTypeTag<int64_t, DType::kI64>{});
    case DType::kU8:
      return f(DTypeTag<uint8_t, DType::kU8>{});
    case DType::kBool:
      break;
  }
  return f(DTypeTag<uint8_t, DType::kBool>{});
}

/// binop on values of D's element type T: the same result as binop() on
/// their bytes.
template <DType D, typename T>
T typed_binop(T x, T y, BinOp op) {
  if constexpr (D == DType::kF32 || D == DType::kF64) {
    return op == BinOp::kAdd ? x + y : x * y;
  } else if constexpr (D == DType::kBool) {
    const uint64_t a = x != 0, b = y != 0;
    return static_cast<T>((op == BinOp::kAdd ? a + b : a * b) != 0);
  } else {  // wrapping, in the width of T (two's complement)
    const uint64_t a = static_cast<uint64_t>(static_cast<int64_t>(x));
    const uint64_t b = static_cast<uint64_t>(static_cast<int64_t>(y));
    return static_cast<T>(op == BinOp::kAdd ? a + b : a * b);
  }
}

/// store_int(p, D, v) as a value of D's element type.
template <DType D, typename T>
T typed_from_int(int64_t v) {
  if constexpr (D == DType::kBool) {
    return static_cast<T>(v != 0);
  } else if constexpr (D == DType::kF32 || D == DType::kF64) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<uint64_t>(v));  // wrapping
  }
}

// Note [Float to integer conversion]
// C++ leaves out-of-range float -> int conversion undefined; PyTorch 1.13 on
// x86-64 compiles it to cvttsd2si, which yields the "integer indefinite"
// value (INT_MIN of the destination width) for nan and out-of-range inputs.
// uint8 goes through int64 first (cvttsd2si to 64 bits, then truncated), so
// -2.7 -> -2 -> 254 and 4294967301.0 -> 5. The reference spells this out so
// that it is defined behaviour here.
inline int64_t trunc_to_i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}
inline int32_t trunc_to_i32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

/// store_double(p, D, v) as a value of D's element type (store_double is
/// this, through visit_dtype).
template <DType D, typename T>
T typed_from_double(double v) {
  if constexpr (D == DType::kF32) {
    return static_cast<float>(v);
  } else if constexpr (D == DType::kF64) {
    return v;
  } else if constexpr (D == DType::kI32) {
    return trunc_to_i32(v);
  } else if constexpr (D == DType::kI64) {
    return trunc_to_i64(v);
  } else if constexpr (D == DType::kU8) {
    return static_cast<uint8_t>(static_cast<uint64_t>(trunc_to_i64(v)));
  } else {
    return static_cast<T>(v != 0 ? 1 : 0);  // bool: nan != 0, true
  }
}

/// load_as_double (R double) / load_as_int (R int64_t) of a value of D's
/// element type: a bool byte reads as 1 when non-zero.
template <typename R, DType D, typename T>
R typed_as(T v) {
  if constexpr (D == DType::kBool)
    return v != 0 ? R{1} : R{0};
  else
    return static_cast<R>(v);
}

/// convert_element on typed values: element `v` of dtype From as dtype To
/// (convert_element is this, through two visit_dtype).
template <DType From, DType To, typename F, typename T>
T typed_convert(F v) {
  if constexpr (From == To) {
    return v;  // the bits as they are
  } else if constexpr (From == DType::kF32 || From == DType::kF64) {
    return typed_from_double<To, T>(static_cast<double>(v));
  } else {
    return typed_from_int<To, T>(typed_as<int64_t, From>(v));
  }
}

/// An unsigned integer as wide as T: loops that only move elements move
/// their bits (a float register need not keep a signaling NaN's bits).
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, uint64_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint8_t>>;

template <typename T>
T load_item(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store_item(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

/// True when `s` converts to `d` without overflow (fill_, full: S.. F9).
/// PyTorch 1.13 checks the range of integral dtypes, and finite doubles
/// against float's range; nan and inf are fine for floating dtypes only.
bool scalar_fits(DType d, const Scalar& s);

}  // namespace storcheck
