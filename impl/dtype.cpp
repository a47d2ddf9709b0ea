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

// The five below are the typed templates of dtype.h through visit_dtype:
// one formula for the generic and the typed loops (issue 8).
double load_as_double(const uint8_t* p, DType d) {
  return visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return typed_as<double, decltype(tag)::dtype>(load_item<T>(p));
  });
}

int64_t load_as_int(const uint8_t* p, DType d) {
  if (is_floating(d)) return 0;  // callers use load_as_double for floating dtypes
  return visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return typed_as<int64_t, decltype(tag)::dtype>(load_item<T>(p));
  });
}

void store_double(uint8_t* p, DType d, double v) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    store_item<T>(p, typed_from_double<decltype(tag)::dtype, T>(v));
  });
}

void store_int(uint8_t* p, DType d, int64_t v) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    store_item<T>(p, typed_from_int<decltype(tag)::dtype, T>(v));
  });
}

void convert_element(uint8_t* dst, DType to, const uint8_t* src, DType from) {
  if (from == to) {
    copy_item(dst, src, itemsize(to));
    return;
  }
  visit_dtype(from, [&](auto ft) {
    using F = typename decltype(ft)::type;
    visit_dtype(to, [&](auto tt) {
      using T = typename decltype(tt)::type;
      store_item<T>(
          dst, typed_convert<decltype(ft)::dtype, decltype(tt)::dtype, F, T>(load_item<F>(src)));
    });
  });
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
