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
#include <string_view>

namespace storcheck {

enum class DType : uint8_t { kF32, kF64, kI32, kI64, kU8, kBool };
inline constexpr int kNumDType = 6;

/// Bytes per element.
int64_t itemsize(DType d);
/// "f32", "f64", "i32", "i64", "u8", "bool".
std::string_view dtype_name(DType d);
/// PyTorch's name: "torch.float32", ...
std::string_view dtype_torch_name(DType d);
/// c10's ScalarType name, as LibTorch's messages print a dtype: "Float",
/// "Double", "Int", "Long", "Byte", "Bool".
std::string_view dtype_scalar_type_name(DType d);
bool is_floating(DType d);
bool is_integral(DType d);  ///< includes u8, excludes bool

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

/// True when `s` converts to `d` without overflow (fill_, full: S.. F9).
/// PyTorch 1.13 checks the range of integral dtypes, and finite doubles
/// against float's range; nan and inf are fine for floating dtypes only.
bool scalar_fits(DType d, const Scalar& s);

}  // namespace storcheck
