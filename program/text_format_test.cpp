// Unit tests of program/text_format.h: round trips over every op of ops.def,
// comments and headers, and each rejection with its exact line number and a
// message that names the offending value (program/README.md, "Limits").
#include "program/text_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace storcheck {
namespace {

/// Parses text that must be rejected and returns the error.
ParseError rejection(const std::string& text, const Limits& limits = Limits{}) {
  ParseResult r = parse_program(text, limits);
  EXPECT_FALSE(r.ok()) << "accepted:\n" << text;
  EXPECT_TRUE(r.program.steps.empty());  // a rejected parse yields no program
  return r.error;
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

constexpr const char* kT0 = "t0 = zeros [2] f32\n";

// --- Round trips ---------------------------------------------------------------

/// A program that uses every op of ops.def once, built from the signatures:
/// `v` is t0, `i` 1, `l` [2,3], `s` one of several scalar spellings, `d` a
/// dtype; drop comes last.
std::string every_op_text() {
  const char* scalars[] = {"2", "-1.5", "inf", "nan", "true", "-0.0", "1e-300", "false"};
  const char* dtypes[] = {"f32", "f64", "i32", "i64", "u8", "bool"};
  int ns = 0, nd = 0, nv = 1;
  std::string text(kProgramHeader);
  text += "\nt0 = arange [2,3] f32\n";
  std::string drop_line;
  for (const OpInfo& info : op_table()) {
    std::string line;
    if (info.result == OpResult::kTensor) line += "t" + std::to_string(nv++) + " = ";
    line += info.name;
    for (char c : info.signature) {
      line += ' ';
      switch (c) {
        case 'v':
          line += "t0";
          break;
        case 'i':
          line += "1";
          break;
        case 'l':
          line += "[2,3]";
          break;
        case 's':
          line += scalars[ns++ % 8];
          break;
        case 'd':
          line += dtypes[nd++ % 6];
          break;
      }
    }
    line += '\n';
    if (info.id == OpId::kDrop)
      drop_line = line;
    else
      text += line;
  }
  return text + drop_line;
}

TEST(TextFormatRoundTrip, ProgramWithEveryOpPrintsBackToTheSameText) {
  std::string text = every_op_text();
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error.to_string() << "\n" << text;
  ASSERT_EQ(r.program.steps.size(), static_cast<size_t>(kNumOps) + 1);
  std::vector<bool> seen(kNumOps, false);
  for (const Step& s : r.program.steps) seen[static_cast<int>(s.op)] = true;
  for (int k = 0; k < kNumOps; ++k) EXPECT_TRUE(seen[k]) << op_table()[k].name;
  EXPECT_EQ(print_program(r.program), text);
}

TEST(TextFormatRoundTrip, ParseOfPrintIsTheSameProgram) {
  ParseResult r = parse_program(every_op_text());
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  ParseResult again = parse_program(print_program(r.program));
  ASSERT_TRUE(again.ok()) << again.error.to_string();
  EXPECT_TRUE(again.program == r.program);
}

TEST(TextFormatRoundTrip, ParsedStepsCarryTypedArguments) {
  ParseResult r = parse_program("t0 = full [3,4] -1.5 f64\nt1 = transpose t0 -1 +0\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  ASSERT_EQ(r.program.steps.size(), 2u);
  const Step& full = r.program.steps[0];
  EXPECT_EQ(full.op, OpId::kFull);
  EXPECT_EQ(full.out, 0);
  EXPECT_TRUE(full.args[0].list == (IntList{3, 4}));
  EXPECT_TRUE(full.args[1].scalar == ScalarLit::floating(-1.5));
  EXPECT_EQ(full.args[2].dtype, DTypeArg::kF64);
  const Step& tr = r.program.steps[1];
  EXPECT_EQ(tr.args[0].var, 0);
  EXPECT_EQ(tr.args[1].i, -1);
  EXPECT_EQ(tr.args[2].i, 0);
  EXPECT_EQ(r.program.var_names, (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(print_step(r.program, tr), "t1 = transpose t0 -1 0");
}

// Note [Arg payload]: an Arg's int, scalar and list share their bytes; an
// Arg reads, compares and prints the one its kind names.
TEST(TextFormatRoundTrip, ArgsReadComparePrintTheMemberTheirKindNames) {
  const Arg def;
  EXPECT_EQ(def.kind, ArgKind::kNone);
  EXPECT_EQ(def.list.size(), 0);  // a default Arg holds a zeroed list
  // Same leading bytes (7), different kinds: different arguments.
  EXPECT_FALSE(Arg::integer(7) == Arg::ints(IntList{7}));
  EXPECT_TRUE(Arg::ints(IntList{1, 2}) == Arg::ints(IntList{1, 2}));
  EXPECT_FALSE(Arg::ints(IntList{1, 2}) == Arg::ints(IntList{1, 2, 3}));
  // A float scalar overwrites the bytes of the list it replaces.
  Arg a = Arg::ints(IntList{5, 6, 7});
  a = Arg::scalar_arg(ScalarLit::floating(2.5));
  EXPECT_EQ(a.kind, ArgKind::kScalar);
  EXPECT_TRUE(a.scalar == ScalarLit::floating(2.5));
  ParseResult r = parse_program("t0 = full [2] 1 f32\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  r.program.steps[0].args[1] = a;
  EXPECT_EQ(print_step(r.program, r.program.steps[0]), "t0 = full [2] 2.5 f32");
  r.program.steps[0].args[0] = Arg::ints(IntList{3, 1});
  EXPECT_EQ(print_step(r.program, r.program.steps[0]), "t0 = full [3,1] 2.5 f32");
}

TEST(TextFormatRoundTrip, ListsAllowBlanksInsideAndEmptyListIsRankZero) {
  ParseResult r = parse_program("t0 = zeros [ 2 , 3 ] f32\nt1 = zeros [] f32\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  EXPECT_TRUE(r.program.steps[0].args[0].list == (IntList{2, 3}));
  EXPECT_EQ(r.program.steps[1].args[0].list.size(), 0);
  EXPECT_EQ(print_step(r.program, r.program.steps[0]), "t0 = zeros [2,3] f32");
  EXPECT_EQ(print_step(r.program, r.program.steps[1]), "t1 = zeros [] f32");
}

// --- Header, comments, blank lines ----------------------------------------------

TEST(TextFormatComments, HeaderCommentsBlankLinesAndCrlfAreSkipped) {
  std::string text = std::string(kProgramHeader) +
                     "\n\n   \t \n# a comment line\r\n"
                     "t0 = zeros [2] f32   # trailing comment\r\n"
                     "  fill_ t0 1.5\n" +
                     std::string(kProgramHeader) +  // the header anywhere is a comment
                     "\n# comment bytes are not checked: \xff\x01\n"
                     "zero_ t0";  // last line without newline
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  ASSERT_EQ(r.program.steps.size(), 3u);
  EXPECT_EQ(r.program.steps[0].op, OpId::kZeros);
  EXPECT_EQ(r.program.steps[1].op, OpId::kFill_);
  EXPECT_EQ(r.program.steps[2].op, OpId::kZero_);
}

TEST(TextFormatComments, HeaderIsNotRequiredAndEmptyInputIsAnEmptyProgram) {
  ParseResult r = parse_program(kT0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.program.steps.size(), 1u);
  ParseResult empty = parse_program("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.program.steps.empty());
}

TEST(TextFormatComments, PrintWritesTheHeaderFirst) {
  ParseResult r = parse_program(kT0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print_program(r.program), "# storcheck program v1\nt0 = zeros [2] f32\n");
}

// --- Rejections: line number and value --------------------------------------------

TEST(TextFormatReject, UnknownOpNamesTheOp) {
  ParseError e = rejection(std::string(kT0) + "t1 = foo t0\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_HAS(e.message, "unknown op 'foo'");
  EXPECT_EQ(e.to_string().rfind("line 2: unknown op 'foo'", 0), 0u) << e.to_string();
}

TEST(TextFormatReject, WrongArityPrintsUsage) {
  ParseError e = rejection(std::string(kT0) + "t1 = transpose t0 0\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "transpose takes 3 arguments, got 2 (usage: tN = transpose VAR INT INT)");
}

TEST(TextFormatReject, UndefinedVariableNamesIt) {
  ParseError e = rejection(std::string(kT0) + "\nt1 = t x\n");
  EXPECT_EQ(e.line, 3);
  EXPECT_HAS(e.message, "undefined variable 'x'");
}

TEST(TextFormatReject, DroppedVariableReusedNamesTheDropLine) {
  ParseError e = rejection(std::string(kT0) + "# comment\ndrop t0\n\nt1 = t t0\n");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.message, "variable 't0' was dropped at line 3 and cannot be used again");
}

TEST(TextFormatReject, RedefinitionNamesTheVariable) {
  ParseError e = rejection(std::string(kT0) + "t0 = ones [2] f32\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "variable 't0' is already defined; each name is assigned once");
}

TEST(TextFormatReject, RedefinitionAfterDropIsStillRejected) {
  ParseError e = rejection(std::string(kT0) + "drop t0\nt0 = ones [2] f32\n");
  EXPECT_EQ(e.line, 3);
  EXPECT_HAS(e.message, "variable 't0' is already defined");
}

TEST(TextFormatReject, TensorOpWithoutAssignmentPrintsUsage) {
  ParseError e = rejection("zeros [2] f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "zeros returns a tensor: write 'tN = zeros [INTS] DTYPE [cpu|cuda]'");
}

// Issue 11: a factory takes an optional device after its arguments.
TEST(TextFormat, FactoryDeviceRoundTripsAndDefaultsToTheHomeDevice) {
  const std::string text =
      "# storcheck program v1\nt0 = zeros [2] f32 cuda\nt1 = empty_strided [2] [3] i64 cpu\n"
      "t2 = ones [1] f32\nt3 = cuda t2\n";
  ParseResult r = parse_program(text);
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  EXPECT_EQ(r.program.steps[0].device, DeviceArg::kCuda);
  EXPECT_EQ(r.program.steps[0].nargs, 2);
  EXPECT_EQ(r.program.steps[1].device, DeviceArg::kCpu);
  EXPECT_EQ(r.program.steps[2].device, DeviceArg::kHome);
  EXPECT_EQ(print_program(r.program), text);
  Program other = r.program;
  other.steps[0].device = DeviceArg::kCpu;
  EXPECT_FALSE(other == r.program);
}

TEST(TextFormatReject, DeviceIsAFactoryArgumentOnly) {
  ParseError e = rejection("t0 = zeros [2] f32 gpu\n");
  EXPECT_EQ(e.message,
            "zeros takes 2 arguments and an optional device (cpu or cuda), got 3: 'gpu' is not a "
            "device (usage: tN = zeros [INTS] DTYPE [cpu|cuda])");
  e = rejection(std::string(kT0) + "t1 = clone t0 cuda\n");
  EXPECT_EQ(e.message, "clone takes 1 argument, got 2 (usage: tN = clone VAR)");
  ParseResult r = parse_program(std::string(kT0) + "t1 = clone t0\n");
  ASSERT_TRUE(r.ok());
  r.program.steps[1].device = DeviceArg::kCuda;
  bool ok = true;
  ParseError v = validate_program(r.program, Limits{}, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(v.message, "clone takes no device: only factories do (usage: tN = clone VAR)");
}

TEST(TextFormatReject, NoResultOpWithAssignmentPrintsUsage) {
  ParseError e = rejection(std::string(kT0) + "x = fill_ t0 1\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "fill_ returns nothing: write 'fill_ VAR SCALAR'");
}

TEST(TextFormatReject, IntOverflowNamesTheToken) {
  ParseError e = rejection(std::string(kT0) + "t1 = select t0 0 99999999999999999999\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message,
            "select argument 3: expected an integer in [-2^63, 2^63), got "
            "'99999999999999999999'");
}

TEST(TextFormatReject, ListEntryOverflowNamesTheEntry) {
  ParseError e = rejection("t0 = zeros [2,99999999999999999999] f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_HAS(e.message, "list entry '99999999999999999999' is not an integer");
}

TEST(TextFormatReject, ListLongerThanMaxRankNamesTheList) {
  ParseError e = rejection("t0 = zeros [1,1,1,1,1,1,1,1,1] f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message,
            "zeros argument 1: list '[1,1,1,1,1,1,1,1,1]' has more than max_rank 8 entries");
  Limits tight;
  tight.max_rank = 2;
  ParseError t = rejection(std::string(kT0) + "t1 = view t0 [1,1,2]\n", tight);
  EXPECT_EQ(t.line, 2);
  EXPECT_HAS(t.message, "list '[1,1,2]' has more than max_rank 2 entries");
}

TEST(TextFormatReject, UnclosedListNamesIt) {
  ParseError e = rejection("t0 = zeros [3,4 f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "list '[3,4 f32' has no closing ']'");
}

TEST(TextFormatReject, BadDtypeNamesTheToken) {
  ParseError e = rejection("t0 = zeros [2] f16\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "zeros argument 2: unknown dtype 'f16' (expected f32 f64 i32 i64 u8 bool)");
}

TEST(TextFormatReject, BadScalarsNameTheToken) {
  for (const char* bad : {"1.5x", "1e999", "-nan", "0x10", "1..2", "True"}) {
    ParseError e = rejection(std::string(kT0) + "fill_ t0 " + bad + "\n");
    EXPECT_EQ(e.line, 2) << bad;
    EXPECT_HAS(e.message, "fill_ argument 2: expected a scalar");
    EXPECT_HAS(e.message, std::string("got '") + bad + "'");
  }
}

TEST(TextFormatReject, TooManyTokens) {
  ParseError e = rejection("t0 = zeros [2] f32 1 2 3 4 5\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "too many tokens (at most 5 arguments per op)");
}

TEST(TextFormatReject, TenMegabyteLineIsRejectedByLengthWithoutParsingIt) {
  Limits roomy;
  roomy.max_input_bytes = 64 << 20;  // let the line limit be the one that fires
  std::string text = std::string(kT0) + std::string(10 << 20, '[') + "\n";
  ParseError e = rejection(text, roomy);
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "line is 10485760 bytes, more than max_line_bytes 4096");
}

TEST(TextFormatReject, InputOverMaxInputBytesIsLineZero) {
  ParseError big = rejection(std::string(kT0) + std::string(10 << 20, 'a') + "\n");
  EXPECT_EQ(big.line, 0);
  EXPECT_EQ(big.message, "program is 10485780 bytes, more than max_input_bytes 1048576");
  Limits tiny;
  tiny.max_input_bytes = 10;
  ParseError e = rejection(kT0, tiny);
  EXPECT_EQ(e.line, 0);
  EXPECT_EQ(e.to_string(), "program is 19 bytes, more than max_input_bytes 10");
}

TEST(TextFormatReject, NulByteNamesItsColumn) {
  std::string text = std::string(kT0) + "fill_ t0 " + '\0' + "1\n";
  ParseError e = rejection(text);
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "byte 0x00 at column 10 is not allowed (programs are printable ASCII text)");
}

TEST(TextFormatReject, InvalidUtf8ByteNamesItsColumn) {
  std::string text = std::string("t0 = zeros [2] f32") + '\xff' + "\n";
  ParseError e = rejection(text);
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "byte 0xff at column 19 is not allowed (programs are printable ASCII text)");
}

TEST(TextFormatReject, TooManyStepsCountsStepsNotLines) {
  Limits lim;
  lim.max_steps = 3;
  std::string ok3 = std::string(kT0) + "# c\nfill_ t0 1\n\nfill_ t0 2\n";
  ASSERT_TRUE(parse_program(ok3, lim).ok());
  ParseError e = rejection(ok3 + "fill_ t0 3\n", lim);
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.message, "more than max_steps 3 steps");
}

TEST(TextFormatReject, TooManyVariables) {
  Limits lim;
  lim.max_vars = 2;
  ParseError e = rejection("a = zeros [1] f32\nb = zeros [1] f32\nc = zeros [1] f32\n", lim);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.message, "more than max_vars 2 variables");
}

TEST(TextFormatReject, BadVariableName) {
  ParseError e = rejection("1t = zeros [1] f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_HAS(e.message, "bad variable name '1t'");
}

TEST(TextFormatReject, FactoryOverMaxTensorBytesNamesSizesAndBytes) {
  ParseError e = rejection(std::string(kT0) + "t1 = zeros [1024,1024] f32\n");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message,
            "zeros of sizes [1024,1024] f32 needs 4194304 bytes, more than max_tensor_bytes "
            "1048576");
  ParseError f = rejection("t0 = full [300000] 1 f64\n");
  EXPECT_EQ(f.line, 1);
  EXPECT_HAS(f.message, "full of sizes [300000] f64 needs 2400000 bytes");
}

TEST(TextFormatReject, FactoryWhoseBytesOverflowInt64) {
  ParseError e = rejection("t0 = zeros [4611686018427387904,4] f32\n");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message,
            "zeros of sizes [4611686018427387904,4] f32 needs more than 2^63 bytes, more than "
            "max_tensor_bytes 1048576");
}

TEST(TextFormatReject, FactoryWithASizeZeroDimNeedsNoBytes) {
  // [2^63-1, 0] is 0 bytes: the product overflowed before the 0 and the
  // factory was refused (found with fake_fuzzer's to_sparse_csr finding).
  ParseResult r = parse_program("t0 = arange [9223372036854775807,0] i64\n"
                                "t1 = zeros [0,4611686018427387904,4] f32\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  EXPECT_EQ(r.program.steps.size(), 2u);
}

TEST(TextFormatReject, FactoryWithNegativeSizePassesTheParser) {
  // A run-time error the backends must agree on (program/README.md).
  EXPECT_TRUE(parse_program("t0 = zeros [-1,4611686018427387904] f32\n").ok());
}

TEST(TextFormatReject, FactoriesOverMaxProgramBytesInAll) {
  Limits lim;
  lim.max_program_bytes = 1000;
  ParseError e = rejection("a = zeros [200] f32\n# 800 bytes so far\nb = ones [200] f32\n", lim);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.message, "factories allocate 1600 bytes in all, more than max_program_bytes 1000");
}

// --- print_scalar -------------------------------------------------------------------

/// Parses `fill_ t0 TEXT` and returns the scalar.
ScalarLit parse_scalar_text(const std::string& text) {
  ParseResult r = parse_program(std::string(kT0) + "fill_ t0 " + text + "\n");
  EXPECT_TRUE(r.ok()) << text << ": " << r.error.to_string();
  if (!r.ok()) return {};
  return r.program.steps[1].args[1].scalar;
}

TEST(TextFormatPrintScalar, SpellingsAreExact) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(print_scalar(ScalarLit::floating(std::nan(""))), "nan");
  EXPECT_EQ(print_scalar(ScalarLit::floating(inf)), "inf");
  EXPECT_EQ(print_scalar(ScalarLit::floating(-inf)), "-inf");
  EXPECT_EQ(print_scalar(ScalarLit::floating(-0.0)), "-0.0");
  EXPECT_EQ(print_scalar(ScalarLit::floating(0.0)), "0.0");
  EXPECT_EQ(print_scalar(ScalarLit::floating(1e-300)), "1e-300");
  EXPECT_EQ(print_scalar(ScalarLit::floating(0.1)), "0.1");
  EXPECT_EQ(print_scalar(ScalarLit::floating(2.0)), "2.0");
  EXPECT_EQ(print_scalar(ScalarLit::floating(-1.5)), "-1.5");
  EXPECT_EQ(print_scalar(ScalarLit::integer(2)), "2");
  EXPECT_EQ(print_scalar(ScalarLit::integer(-7)), "-7");
  EXPECT_EQ(print_scalar(ScalarLit::integer(std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(print_scalar(ScalarLit::boolean(true)), "true");
  EXPECT_EQ(print_scalar(ScalarLit::boolean(false)), "false");
}

TEST(TextFormatPrintScalar, EveryScalarParsesBackToTheSameValueAndKind) {
  const double inf = std::numeric_limits<double>::infinity();
  const ScalarLit cases[] = {
      ScalarLit::floating(std::nan("")),
      ScalarLit::floating(inf),
      ScalarLit::floating(-inf),
      ScalarLit::floating(-0.0),
      ScalarLit::floating(0.0),
      ScalarLit::floating(1e-300),
      ScalarLit::floating(0.1),
      ScalarLit::floating(0.1 + 0.2),
      ScalarLit::floating(2.0),
      ScalarLit::floating(1e300),
      ScalarLit::floating(-3.5e38),
      ScalarLit::integer(0),
      ScalarLit::integer(-7),
      ScalarLit::integer(std::numeric_limits<int64_t>::max()),
      ScalarLit::integer(std::numeric_limits<int64_t>::min()),
      ScalarLit::boolean(true),
      ScalarLit::boolean(false),
  };
  for (const ScalarLit& s : cases) {
    std::string text = print_scalar(s);
    ScalarLit back = parse_scalar_text(text);
    EXPECT_TRUE(back == s) << text;
    EXPECT_EQ(back.kind, s.kind) << text;
    if (s.kind == ScalarLit::Kind::kFloat) {
      EXPECT_EQ(std::signbit(back.f), std::signbit(s.f)) << text;
    }
  }
}

TEST(TextFormatPrintScalar, IntegerLookingFloatStaysFloat) {
  ScalarLit two = parse_scalar_text("2.0");
  EXPECT_EQ(two.kind, ScalarLit::Kind::kFloat);
  ScalarLit e3 = parse_scalar_text("1e3");
  EXPECT_EQ(e3.kind, ScalarLit::Kind::kFloat);
  EXPECT_EQ(e3.f, 1000.0);
  EXPECT_EQ(parse_scalar_text("2").kind, ScalarLit::Kind::kInt);
}

// --- validate_program ------------------------------------------------------------------

TEST(TextFormatValidate, UseAfterDropGivesTheStepNumber) {
  Program p;
  VarId t0 = p.new_var("t0");
  VarId t1 = p.new_var("t1");
  Step zeros;
  zeros.op = OpId::kZeros;
  zeros.out = t0;
  zeros.nargs = 2;
  zeros.args[0] = Arg::ints({2, 3});
  zeros.args[1] = Arg::dtype_arg(DTypeArg::kF32);
  Step drop;
  drop.op = OpId::kDrop;
  drop.nargs = 1;
  drop.args[0] = Arg::variable(t0);
  Step tr;
  tr.op = OpId::kT;
  tr.out = t1;
  tr.nargs = 1;
  tr.args[0] = Arg::variable(t0);
  p.steps = {zeros, drop, tr};

  bool ok = true;
  ParseError e = validate_program(p, Limits{}, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.message, "variable 't0' was dropped at line 2 and cannot be used again");

  p.steps.pop_back();
  e = validate_program(p, Limits{}, &ok);
  EXPECT_TRUE(ok) << e.to_string();
}

TEST(TextFormatValidate, WrongArgumentKindNamesTheArgument) {
  Program p;
  VarId t0 = p.new_var("t0");
  Step zeros;
  zeros.op = OpId::kZeros;
  zeros.out = t0;
  zeros.nargs = 2;
  zeros.args[0] = Arg::integer(2);  // should be a list
  zeros.args[1] = Arg::dtype_arg(DTypeArg::kF32);
  p.steps = {zeros};
  bool ok = true;
  ParseError e = validate_program(p, Limits{}, &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(e.line, 1);
  EXPECT_HAS(e.message, "zeros argument 1 must be an integer list like [3,4]");
}

TEST(TextFormatValidate, ParsedProgramIsValid) {
  ParseResult r = parse_program(every_op_text());
  ASSERT_TRUE(r.ok());
  bool ok = false;
  ParseError e = validate_program(r.program, Limits{}, &ok);
  EXPECT_TRUE(ok) << e.to_string();
}

}  // namespace
}  // namespace storcheck
