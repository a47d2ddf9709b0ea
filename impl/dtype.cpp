#include "impl/dtype.h"

#include <cmath>
#include <limits>

namespace storcheck {

std::string_view dtype_name(DType d) {
  constexpr std::string_view kNames[] = {"f32", "f64", "i32", "i64", "u8", "bool"};
  return kNames[static_cast<int>(d)];
}

std::string_view dtype_torch_name(DType d) {
  constexpr std::string_view kNames[] = {"torch.float32", "torch.float64", "torch.int32",
                                         "torch.int64",   "torch.uint8",   "torch.bool"};
  return kNames[static_cast<int>(d)];
}

std::string_view dtype_scalar_type_name(DType d) {
  constexpr std::string_view kNames[] = {"Float", "Double", "Int", "Long", "Byte", "Bool"};
  return kNames[static_cast<int>(d)];
}

bool is_floating(DType d) { return d == DType::kF32 || d == DType::kF64; }
bool is_integral(DType d) { return d == DType::kI32 || d == DType::kI64 || d == DType::kU8; }

namespace {
int category(DType d) { return d == DType::kBool ? 0 : is_integral(d) ? 1 : 2; }
int category(const Scalar& s) {
  return s.kind == Scalar::Kind::kBool ? 0 : s.kind == Scalar::Kind::kInt ? 1 : 2;
}
}  // namespace

DType result_type(DType tensor, const Scalar& s) {
  int ct = category(tensor);
  int cs = category(s);
  if (cs <= ct) return tensor;
  return cs == 1 ? DType::kI64 : DType::kF32;
}

bool can_cast(DType from, DType to) { return category(from) <= category(to); }

double load_as_double(const uint8_t* p, DType d) {
  switch (d) {
    case DType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kF64: { double v; std::memcpy(&v, p, 8); return v; }
    case DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kI64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::kU8: return *p;
    case DType::kBool: return *p ? 1.0 : 0.0;
  }
  return 0;
}

int64_t load_as_int(const uint8_t* p, DType d) {
  switch (d) {
    case DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kI64: { int64_t v; std::memcpy(&v, p, 8); return v; }
    case DType::kU8: return *p;
    case DType::kBool: return *p ? 1 : 0;
    default: break;
  }
  return 0;  // callers use load_as_double for floating dtypes
}

// Note [Float to integer conversion]
// C++ leaves out-of-range float -> int conversion undefined; PyTorch 1.13 on
// x86-64 compiles it to cvttsd2si, which yields the "integer indefinite"
// value (INT_MIN of the destination width) for nan and out-of-range inputs.
// uint8 goes through int64 first (cvttsd2si to 64 bits, then truncated), so
// -2.7 -> -2 -> 254 and 4294967301.0 -> 5. The reference spells this out so
// that it is defined behaviour here.
namespace {
int64_t trunc_to_i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}
int32_t trunc_to_i32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}
}  // namespace

void store_double(uint8_t* p, DType d, double v) {
  switch (d) {
    case DType::kF32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); return; }
    case DType::kF64: std::memcpy(p, &v, 8); return;
    case DType::kI32: { int32_t x = trunc_to_i32(v); std::memcpy(p, &x, 4); return; }
    case DType::kI64: { int64_t x = trunc_to_i64(v); std::memcpy(p, &x, 8); return; }
    case DType::kU8: *p = static_cast<uint8_t>(static_cast<uint64_t>(trunc_to_i64(v))); return;
    case DType::kBool: *p = v != 0 ? 1 : 0; return;  // nan != 0: true
  }
}

void store_int(uint8_t* p, DType d, int64_t v) {
  switch (d) {
    case DType::kF32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); return; }
    case DType::kF64: { double x = static_cast<double>(v); std::memcpy(p, &x, 8); return; }
    case DType::kI32: {
      int32_t x = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::kI64: std::memcpy(p, &v, 8); return;
    case DType::kU8: *p = static_cast<uint8_t>(static_cast<uint64_t>(v)); return;
    case DType::kBool: *p = v != 0 ? 1 : 0; return;
  }
}

void convert_element(uint8_t* dst, DType to, const uint8_t* src, DType from) {
  if (from == to) {
    copy_item(dst, src, itemsize(to));
  } else if (is_floating(from)) {
    store_double(dst, to, load_as_double(src, from));
  } else {
    store_int(dst, to, load_as_int(src, from));
  }
}

namespace {
/// binop on one floating type: load both operands, compute, store.
template <typename T>
void float_binop(uint8_t* r, const uint8_t* a, const uint8_t* b, BinOp op) {
  T x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  T z = op == BinOp::kAdd ? x + y : x * y;
  std::memcpy(r, &z, sizeof z);
}
}  // namespace

void binop(uint8_t* r, const uint8_t* a, const uint8_t* b, DType d, BinOp op) {
  switch (d) {
    case DType::kF32: return float_binop<float>(r, a, b, op);
    case DType::kF64: return float_binop<double>(r, a, b, op);
    default: {
      uint64_t x = static_cast<uint64_t>(load_as_int(a, d));
      uint64_t y = static_cast<uint64_t>(load_as_int(b, d));
      store_int(r, d, static_cast<int64_t>(op == BinOp::kAdd ? x + y : x * y));
      return;
    }
  }
}

bool scalar_fits(DType d, const Scalar& s) {
  if (s.kind == Scalar::Kind::kBool) return true;
  if (d == DType::kBool) return true;
  if (s.kind == Scalar::Kind::kInt) {
    switch (d) {
      case DType::kI32: return s.i >= INT32_MIN && s.i <= INT32_MAX;
      // c10::overflows for unsigned targets accepts -255..255 from integers.
      case DType::kU8: return s.i >= -255 && s.i <= 255;
      default: return true;
    }
  }
  double v = s.f;
  switch (d) {
    case DType::kF64: return true;
    case DType::kF32:
      return !std::isfinite(v) ||
             (v >= -static_cast<double>(std::numeric_limits<float>::max()) &&
              v <= static_cast<double>(std::numeric_limits<float>::max()));
    // c10::overflows for floating sources: lowest() <= v <= max(), nan never fits.
    case DType::kI32: return v >= -2147483648.0 && v <= 2147483647.0;
    case DType::kI64: return v >= -9223372036854775808.0 && v <= 9223372036854775808.0;
    case DType::kU8: return v >= 0.0 && v <= 255.0;
    default: return true;
  }
}

}  // namespace storcheck
