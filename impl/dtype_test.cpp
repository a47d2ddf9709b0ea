// Unit tests of impl/dtype.h. Every expected value below was checked against
// PyTorch 1.13 (torch.result_type, torch.can_cast, Tensor.fill_ for the scalar
// range check, Tensor.copy_ for conversions) on x86-64.
#include "impl/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace storcheck {
namespace {

constexpr DType kAll[] = {DType::kF32, DType::kF64, DType::kI32,
                          DType::kI64, DType::kU8,  DType::kBool};
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(DTypeBasics, ItemsizesAndNames) {
  EXPECT_EQ(itemsize(DType::kF32), 4);
  EXPECT_EQ(itemsize(DType::kF64), 8);
  EXPECT_EQ(itemsize(DType::kI32), 4);
  EXPECT_EQ(itemsize(DType::kI64), 8);
  EXPECT_EQ(itemsize(DType::kU8), 1);
  EXPECT_EQ(itemsize(DType::kBool), 1);
  EXPECT_EQ(dtype_name(DType::kU8), "u8");
  EXPECT_EQ(dtype_torch_name(DType::kI64), "torch.int64");
  EXPECT_TRUE(is_integral(DType::kU8));
  EXPECT_FALSE(is_integral(DType::kBool));
  EXPECT_FALSE(is_floating(DType::kBool));
  EXPECT_TRUE(is_floating(DType::kF64));
}

// --- result_type: torch.result_type(torch.zeros(1, dtype=d), scalar) ----------

TEST(DTypeResultType, IntScalarKeepsAnyNonBoolDtypeAndPromotesBoolToI64) {
  Scalar two = Scalar::integer(2);
  EXPECT_EQ(result_type(DType::kF32, two), DType::kF32);
  EXPECT_EQ(result_type(DType::kF64, two), DType::kF64);
  EXPECT_EQ(result_type(DType::kI32, two), DType::kI32);
  EXPECT_EQ(result_type(DType::kI64, two), DType::kI64);
  EXPECT_EQ(result_type(DType::kU8, two), DType::kU8);
  EXPECT_EQ(result_type(DType::kBool, two), DType::kI64);
}

TEST(DTypeResultType, FloatScalarPromotesIntegralAndBoolToF32) {
  Scalar f = Scalar::floating(2.5);
  EXPECT_EQ(result_type(DType::kF32, f), DType::kF32);
  EXPECT_EQ(result_type(DType::kF64, f), DType::kF64);
  EXPECT_EQ(result_type(DType::kI32, f), DType::kF32);
  EXPECT_EQ(result_type(DType::kI64, f), DType::kF32);
  EXPECT_EQ(result_type(DType::kU8, f), DType::kF32);
  EXPECT_EQ(result_type(DType::kBool, f), DType::kF32);
}

TEST(DTypeResultType, BoolScalarNeverPromotes) {
  for (DType d : kAll) EXPECT_EQ(result_type(d, Scalar::boolean(true)), d) << dtype_name(d);
}

// --- can_cast: torch.can_cast(from, to) ------------------------------------------

TEST(DTypeCanCast, MatchesTorchCanCastTable) {
  // Rows: from; columns: to, in kAll order (f32 f64 i32 i64 u8 bool).
  const bool expected[6][6] = {
      {true, true, false, false, false, false},  // f32
      {true, true, false, false, false, false},  // f64
      {true, true, true, true, true, false},     // i32
      {true, true, true, true, true, false},     // i64
      {true, true, true, true, true, false},     // u8
      {true, true, true, true, true, true},      // bool
  };
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      EXPECT_EQ(can_cast(kAll[a], kAll[b]), expected[a][b])
          << dtype_name(kAll[a]) << " -> " << dtype_name(kAll[b]);
}

// --- scalar_fits: does Tensor.fill_(scalar) raise "cannot be converted" -------

TEST(DTypeScalarFits, U8AcceptsMinus255To255FromInts) {
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::integer(-255)));  // fill_ gives 1
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::integer(-1)));    // fill_ gives 255
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::integer(255)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::integer(-256)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::integer(256)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::integer(300)));
}

TEST(DTypeScalarFits, U8AcceptsZeroTo255FromFloats) {
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::floating(0.0)));
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::floating(-0.0)));
  EXPECT_TRUE(scalar_fits(DType::kU8, Scalar::floating(255.0)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::floating(255.5)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::floating(-0.5)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::floating(-1.0)));
}

TEST(DTypeScalarFits, I32RangeFromIntsAndFloats) {
  EXPECT_TRUE(scalar_fits(DType::kI32, Scalar::integer(2147483647)));
  EXPECT_TRUE(scalar_fits(DType::kI32, Scalar::integer(-2147483648LL)));
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::integer(2147483648LL)));
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::integer(-2147483649LL)));
  EXPECT_TRUE(scalar_fits(DType::kI32, Scalar::floating(-2147483648.0)));
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::floating(2147483647.5)));
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::floating(-2147483648.5)));
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::floating(2147483648.0)));
}

TEST(DTypeScalarFits, I64AcceptsEveryIntAndFloatsUpTo2Pow63) {
  EXPECT_TRUE(scalar_fits(DType::kI64, Scalar::integer(std::numeric_limits<int64_t>::min())));
  EXPECT_TRUE(scalar_fits(DType::kI64, Scalar::integer(std::numeric_limits<int64_t>::max())));
  EXPECT_TRUE(scalar_fits(DType::kI64, Scalar::floating(9223372036854775808.0)));
  EXPECT_TRUE(scalar_fits(DType::kI64, Scalar::floating(-9223372036854775808.0)));
  EXPECT_FALSE(scalar_fits(DType::kI64, Scalar::floating(1.9e19)));
}

TEST(DTypeScalarFits, F32RejectsFiniteBeyondFloatMaxButAcceptsInf) {
  EXPECT_FALSE(scalar_fits(DType::kF32, Scalar::floating(3.5e38)));
  EXPECT_FALSE(scalar_fits(DType::kF32, Scalar::floating(-3.5e38)));
  EXPECT_FALSE(scalar_fits(DType::kF32, Scalar::floating(3.4028235e38)));  // > FLT_MAX as double
  EXPECT_TRUE(scalar_fits(DType::kF32, Scalar::floating(std::numeric_limits<float>::max())));
  EXPECT_TRUE(scalar_fits(DType::kF32, Scalar::floating(kInf)));
  EXPECT_TRUE(scalar_fits(DType::kF32, Scalar::floating(-kInf)));
  EXPECT_TRUE(scalar_fits(DType::kF64, Scalar::floating(1e308)));
  EXPECT_TRUE(scalar_fits(DType::kF32, Scalar::integer(std::numeric_limits<int64_t>::max())));
}

TEST(DTypeScalarFits, NanFitsFloatingDtypesOnly) {
  Scalar nan = Scalar::floating(kNan);
  EXPECT_TRUE(scalar_fits(DType::kF32, nan));
  EXPECT_TRUE(scalar_fits(DType::kF64, nan));
  EXPECT_FALSE(scalar_fits(DType::kI32, nan));
  EXPECT_FALSE(scalar_fits(DType::kI64, nan));
  EXPECT_FALSE(scalar_fits(DType::kU8, nan));
  EXPECT_TRUE(scalar_fits(DType::kBool, nan));  // bool accepts everything
}

TEST(DTypeScalarFits, InfDoesNotFitIntegralDtypes) {
  EXPECT_FALSE(scalar_fits(DType::kI32, Scalar::floating(kInf)));
  EXPECT_FALSE(scalar_fits(DType::kI64, Scalar::floating(-kInf)));
  EXPECT_FALSE(scalar_fits(DType::kU8, Scalar::floating(kInf)));
}

TEST(DTypeScalarFits, BoolAlwaysFits) {
  for (DType d : kAll) {
    EXPECT_TRUE(scalar_fits(d, Scalar::boolean(true))) << dtype_name(d);
    EXPECT_TRUE(scalar_fits(d, Scalar::boolean(false))) << dtype_name(d);
  }
  EXPECT_TRUE(scalar_fits(DType::kBool, Scalar::integer(300)));
  EXPECT_TRUE(scalar_fits(DType::kBool, Scalar::floating(3.5e38)));
}

// --- store / convert: See Note [Float to integer conversion] --------------------

/// x.copy_(torch.tensor([v], dtype=from)) into a tensor of dtype `to`, as int64.
int64_t convert_double_to_int(double v, DType from, DType to) {
  uint8_t src[8] = {}, dst[8] = {};
  store_double(src, from, v);
  convert_element(dst, to, src, from);
  return load_as_int(dst, to);
}

TEST(DTypeConvert, F32MinusTwoPointSevenToU8IsTwoHundredFiftyFour) {
  EXPECT_EQ(convert_double_to_int(-2.7, DType::kF32, DType::kU8), 254);
}

TEST(DTypeConvert, OutOfRangeAndNanToI32AreIntMin) {
  EXPECT_EQ(convert_double_to_int(3e9, DType::kF64, DType::kI32), INT32_MIN);
  EXPECT_EQ(convert_double_to_int(kNan, DType::kF32, DType::kI32), INT32_MIN);
  EXPECT_EQ(convert_double_to_int(-2147483648.5, DType::kF64, DType::kI32), INT32_MIN);
}

TEST(DTypeConvert, OutOfRangeAndNanToI64AreInt64Min) {
  EXPECT_EQ(convert_double_to_int(kNan, DType::kF32, DType::kI64),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(convert_double_to_int(1e20, DType::kF64, DType::kI64),
            std::numeric_limits<int64_t>::min());
}

TEST(DTypeConvert, FloatToU8GoesThroughInt32) {
  EXPECT_EQ(convert_double_to_int(kNan, DType::kF32, DType::kU8), 0);
  EXPECT_EQ(convert_double_to_int(300.0, DType::kF32, DType::kU8), 44);
  EXPECT_EQ(convert_double_to_int(255.9, DType::kF64, DType::kU8), 255);
  EXPECT_EQ(convert_double_to_int(256.0, DType::kF64, DType::kU8), 0);
  EXPECT_EQ(convert_double_to_int(-1.5, DType::kF64, DType::kU8), 255);
  EXPECT_EQ(convert_double_to_int(3e9, DType::kF64, DType::kU8), 0);
}

TEST(DTypeConvert, FloatToBoolIsNonZeroIncludingNan) {
  EXPECT_EQ(convert_double_to_int(kNan, DType::kF32, DType::kBool), 1);
  EXPECT_EQ(convert_double_to_int(0.5, DType::kF32, DType::kBool), 1);
  EXPECT_EQ(convert_double_to_int(-0.0, DType::kF64, DType::kBool), 0);
}

TEST(DTypeConvert, IntegerNarrowingWrapsModulo) {
  uint8_t src[8] = {}, dst[8] = {};
  store_int(src, DType::kI64, 300);
  convert_element(dst, DType::kU8, src, DType::kI64);
  EXPECT_EQ(load_as_int(dst, DType::kU8), 44);
  store_int(src, DType::kI64, -1);
  convert_element(dst, DType::kU8, src, DType::kI64);
  EXPECT_EQ(load_as_int(dst, DType::kU8), 255);
  store_int(src, DType::kI64, (int64_t{1} << 40) + 5);
  convert_element(dst, DType::kI32, src, DType::kI64);
  EXPECT_EQ(load_as_int(dst, DType::kI32), 5);
  store_int(src, DType::kI64, int64_t{1} << 31);
  convert_element(dst, DType::kI32, src, DType::kI64);
  EXPECT_EQ(load_as_int(dst, DType::kI32), INT32_MIN);
}

TEST(DTypeConvert, IntToFloatRoundsToNearest) {
  uint8_t src[8] = {}, dst[8] = {};
  store_int(src, DType::kI64, (int64_t{1} << 24) + 1);
  convert_element(dst, DType::kF32, src, DType::kI64);
  EXPECT_EQ(load_as_double(dst, DType::kF32), 16777216.0);
}

TEST(DTypeConvert, F64BeyondFloatRangeToF32IsInf) {
  uint8_t src[8] = {}, dst[8] = {};
  store_double(src, DType::kF64, 1e300);
  convert_element(dst, DType::kF32, src, DType::kF64);
  EXPECT_EQ(load_as_double(dst, DType::kF32), kInf);
}

TEST(DTypeConvert, BoolToF32IsOneOrZero) {
  uint8_t src[1] = {}, dst[4] = {};
  store_int(src, DType::kBool, 7);  // stored as 1
  EXPECT_EQ(src[0], 1);
  convert_element(dst, DType::kF32, src, DType::kBool);
  EXPECT_EQ(load_as_double(dst, DType::kF32), 1.0);
}

TEST(DTypeConvert, SameDtypeCopiesBitsIncludingNanPayloadAndNegativeZero) {
  uint8_t src[8] = {}, dst[8] = {};
  store_double(src, DType::kF64, -0.0);
  convert_element(dst, DType::kF64, src, DType::kF64);
  double v = load_as_double(dst, DType::kF64);
  EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(std::signbit(v));
}

// The typed loops of impl/ops.cpp (visit_dtype) must compute what the
// byte-level binop and store_int compute, for every byte pattern an element
// can hold (a bool byte other than 0 and 1 included).
TEST(DTypeTyped, TypedBinopMatchesBinopOnEveryDtypeAndEdgeValue) {
  const uint64_t patterns[] = {0,
                               1,
                               2,
                               0xFF,
                               0x7F,
                               0x80,
                               0x7FFFFFFF,
                               0x80000000,
                               0xFFFFFFFF,
                               0x7FFFFFFFFFFFFFFFull,
                               0x8000000000000000ull,
                               0xFFFFFFFFFFFFFFFFull,
                               0x3FF8000000000000ull,  // 1.5 as f64
                               0x7FF8000000000001ull,  // a nan payload
                               0x3FC00000,             // 1.5 as f32
                               0x7F800000,             // inf as f32
                               0x123456789ABCDEF0ull};
  int checked = 0;
  for (DType d : kAll) {
    visit_dtype(d, [&](auto tag) {
      using T = typename decltype(tag)::type;
      ASSERT_EQ(decltype(tag)::dtype, d);
      ASSERT_EQ(static_cast<int64_t>(sizeof(T)), itemsize(d));
      for (uint64_t pa : patterns) {
        for (uint64_t pb : patterns) {
          for (BinOp op : {BinOp::kAdd, BinOp::kMul}) {
            uint8_t a[8], b[8], want[8] = {}, got[8] = {};
            std::memcpy(a, &pa, 8);
            std::memcpy(b, &pb, 8);
            binop(want, a, b, d, op);
            store_item<T>(got,
                          typed_binop<decltype(tag)::dtype>(load_item<T>(a), load_item<T>(b), op));
            // NaN payloads are not specified (the compiler may swap the
            // operands of a float add); every comparison takes NaN as NaN.
            if constexpr (std::is_floating_point_v<T>) {
              if (std::isnan(load_item<T>(want)) && std::isnan(load_item<T>(got))) {
                ++checked;
                continue;
              }
            }
            ASSERT_EQ(0, std::memcmp(want, got, sizeof(T)))
                << dtype_name(d) << " " << pa << (op == BinOp::kAdd ? " + " : " * ") << pb;
            ++checked;
          }
        }
      }
    });
  }
  EXPECT_EQ(checked, 6 * 17 * 17 * 2);
}

TEST(DTypeTyped, TypedFromIntMatchesStoreInt) {
  const int64_t values[] = {0,         1,         -1,
                            2,         255,       256,
                            -255,      INT32_MAX, int64_t{INT32_MAX} + 1,
                            INT64_MIN, INT64_MAX, (int64_t{1} << 53) + 1};
  for (DType d : kAll) {
    visit_dtype(d, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t v : values) {
        uint8_t want[8] = {}, got[8] = {};
        store_int(want, d, v);
        store_item<T>(got, typed_from_int<decltype(tag)::dtype, T>(v));
        EXPECT_EQ(0, std::memcmp(want, got, sizeof(T))) << dtype_name(d) << " " << v;
      }
    });
  }
}

}  // namespace
}  // namespace storcheck
