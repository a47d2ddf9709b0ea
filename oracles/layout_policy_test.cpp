// Note [Layout policy]: which layouts each op takes, the same for every backend.
#include "oracles/layout_policy.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "oracles/backend.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// The last step of `text`, whose variable arguments get `layouts` in order.
Error check_last(const char* text, std::initializer_list<OperandLayout> layouts) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  std::array<OperandLayout, kMaxArgs> in{};
  size_t k = 0;
  for (const OperandLayout& l : layouts) in[k++] = l;
  return check_layouts(r.program.steps.back(), in);
}

constexpr OperandLayout kStrided{Layout::kStrided, false};
constexpr OperandLayout kCoo{Layout::kSparseCoo, false};
constexpr OperandLayout kCsr{Layout::kSparseCsr, false};
constexpr OperandLayout kFakeCoo{Layout::kSparseCoo, true};
constexpr OperandLayout kMetaStrided{Layout::kStrided, true};
constexpr OperandLayout kMetaStridedI32{Layout::kStrided, true, Device::kCpu, DType::kI32};
constexpr OperandLayout kCsrI32{Layout::kSparseCsr, false, Device::kCpu, DType::kI32};

TEST(LayoutPolicy, StridedOpOnSparseIsUnsupportedLayoutNamingOpAndLayoutCase6) {
  Error e = check_last("t0 = zeros [2] f32\nadd_ t0 1\n", {kCsr});
  EXPECT_EQ(e.kind, ErrorKind::kUnsupportedLayout);
  EXPECT_NE(e.message.find("add_"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("sparse_csr"), std::string::npos) << e.message;
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nadd_ t0 1\n", {kStrided}).kind, ErrorKind::kNone);
}

TEST(LayoutPolicy, SparseReadersNeedARealSparseTensorWithThatPartCase3) {
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_dense t0\n", {kStrided}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_dense t0\n", {kFakeCoo}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = crow_indices t0\n", {kCoo}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = coalesce t0\n", {kCsr}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = crow_indices t0\n", {kCsr}).kind,
            ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = values t0\n", {kCsr}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = indices t0\n", {kCoo}).kind, ErrorKind::kNone);
}

TEST(LayoutPolicy, SparseConstructorsTakeRealStridedTensorsOnlyCase1) {
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_sparse_csr t0\n", {kCoo}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_sparse_coo t0 1\n", {kMetaStrided}).kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] i64\nt1 = zeros [2] f32\n"
                       "t2 = sparse_coo_tensor t0 t1 [3]\n",
                       {kStrided, kCoo})
                .kind,
            ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_sparse_coo t0 1\n", {kStrided}).kind,
            ErrorKind::kNone);
}

TEST(LayoutPolicy, BlocksizeOfOtherThanTwoEntriesIsInvalidArgumentCase2) {
  Error e = check_last("t0 = zeros [2,2] f32\nt1 = to_sparse_bsr t0 [2]\n", {kStrided});
  EXPECT_EQ(e.kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(e.message.find("blocksize"), std::string::npos) << e.message;
  EXPECT_EQ(check_last("t0 = zeros [2,2] f32\nt1 = to_sparse_bsc t0 [1,1]\n", {kStrided}).kind,
            ErrorKind::kNone);
}

TEST(LayoutPolicy, ConversionsTakeSparseButNotAlreadyConvertedSparseF4Case4) {
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = fake t0\n", {kCsr}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = meta t0\n", {kCoo}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = to_meta t0\n", {kCoo}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = fake t0\n", {kFakeCoo}).kind,
            ErrorKind::kUnsupportedFakeTensor);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\nt1 = fake_from_meta t0\n", {kFakeCoo}).kind,
            ErrorKind::kUnsupportedLayout);
}

TEST(LayoutPolicy, DropTakesAnyVariableCase5) {
  EXPECT_EQ(check_last("t0 = zeros [2] f32\ndrop t0\n", {kFakeCoo}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last("t0 = zeros [2] f32\ndrop t0\n", {kCsr}).kind, ErrorKind::kNone);
}

// Case 7): cuda and cpu move real strided tensors only; sparse_coo_tensor
// takes its parts on one device (issue 11).
TEST(LayoutPolicy, DeviceOpsTakeRealStridedTensorsAndCooPartsShareADeviceCase7) {
  for (const char* op : {"cuda", "cpu"}) {
    const std::string text = std::string("t0 = zeros [2] f32\nt1 = ") + op + " t0\n";
    EXPECT_EQ(check_last(text.c_str(), {kStrided}).kind, ErrorKind::kNone) << op;
    Error meta = check_last(text.c_str(), {kMetaStrided});
    EXPECT_EQ(meta.kind, ErrorKind::kUnsupportedLayout) << op;
    EXPECT_NE(meta.message.find("real strided tensors only"), std::string::npos) << meta.message;
    EXPECT_EQ(check_last(text.c_str(), {kCoo}).kind, ErrorKind::kUnsupportedLayout) << op;
  }
  const char* coo = "t0 = zeros [1,2] i64\nt1 = ones [2] f32\nt2 = sparse_coo_tensor t0 t1 [3]\n";
  const OperandLayout cuda{Layout::kStrided, false, Device::kCuda};
  EXPECT_EQ(check_last(coo, {kStrided, kStrided}).kind, ErrorKind::kNone);
  EXPECT_EQ(check_last(coo, {cuda, cuda}).kind, ErrorKind::kNone);
  Error mixed = check_last(coo, {kStrided, cuda});
  EXPECT_EQ(mixed.kind, ErrorKind::kDeviceMismatch);
  EXPECT_EQ(mixed.message,
            "sparse_coo_tensor: indices on cpu and values on cuda; they must be on one device");
}

// The reference backend reads its operands' layouts only once a meta or
// sparse variable has been bound (issue 8): a meta operand bound by an
// earlier step is then refused (Case 7) and its errors marked " [meta]" as
// before, and steps on real operands are not.
TEST(LayoutPolicy, ReferenceBackendSeesAMetaOperandBoundByAnEarlierStep) {
  ParseResult r = parse_program(
      "t0 = zeros [2,2] f32\n"
      "t1 = cpu t0\n"
      "t2 = to_meta t0\n"
      "t3 = cpu t2\n"
      "t4 = view t2 [3]\n"
      "t5 = view t0 [3]\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  std::unique_ptr<Backend> b = make_reference_backend();
  b->begin(r.program, Limits{});
  std::vector<Error> e;
  for (const Step& s : r.program.steps) e.push_back(b->run_step(s));
  EXPECT_EQ(e[1].kind, ErrorKind::kNone) << e[1].message;
  EXPECT_EQ(e[2].kind, ErrorKind::kNone) << e[2].message;
  EXPECT_EQ(e[3].kind, ErrorKind::kUnsupportedLayout);
  EXPECT_NE(e[3].message.find("real strided tensors only"), std::string::npos) << e[3].message;
  ASSERT_NE(e[5].kind, ErrorKind::kNone);
  EXPECT_EQ(e[4].kind, e[5].kind);
  EXPECT_EQ(e[4].message, e[5].message + " [meta]");
}

// layouts_can_refuse: the reference backend skips check_layouts where it
// says false, so it must never say false for a step check_layouts refuses.
// Every op, on real strided operands of every dtype, each operand on the CPU
// or on CUDA; and the steps it says true for include view_dtype (Case 8)
// and every sparse op, whatever their operands.
TEST(LayoutPolicy, LayoutsCanRefuseIsFalseOnlyWhereCheckLayoutsTakesTheStep) {
  int skipped = 0;
  for (int op = 0; op < kNumOps; ++op) {
    Step s;
    s.op = static_cast<OpId>(op);
    const OpInfo& info = s.info();
    s.nargs = static_cast<uint8_t>(info.signature.size());
    for (int k = 0; k < s.nargs; ++k) {
      s.args[k].kind = info.signature[k] == 'v' ? ArgKind::kVar : ArgKind::kInt;
      s.args[k].var = k;
    }
    const bool can_refuse = layouts_can_refuse(s, false);
    EXPECT_EQ(can_refuse, info.category == OpCategory::kSparse || s.op == OpId::kViewDtype)
        << info.name;
    EXPECT_TRUE(layouts_can_refuse(s, true)) << info.name;
    if (can_refuse) continue;
    for (int d = 0; d < kNumDType; ++d)
      for (int devices = 0; devices < (1 << kMaxArgs); ++devices) {
        std::array<OperandLayout, kMaxArgs> in{};
        for (int k = 0; k < kMaxArgs; ++k)
          in[static_cast<size_t>(k)] = {Layout::kStrided, false,
                                        (devices >> k) & 1 ? Device::kCuda : Device::kCpu,
                                        static_cast<DType>(d)};
        EXPECT_EQ(check_layouts(s, in).kind, ErrorKind::kNone) << info.name;
        ++skipped;
      }
  }
  EXPECT_GT(skipped, 0);
}

// Cases 4)-7) over the whole op table: every op outside the sparse category takes real
// and meta strided operands, except cuda and cpu of a meta tensor (Case 7).
TEST(LayoutPolicy, EveryNonSparseOpTakesStridedOperandsRealOrMetaButCudaCpuOfMeta) {
  for (int op = 0; op < kNumOps; ++op) {
    Step s;
    s.op = static_cast<OpId>(op);
    const OpInfo& info = s.info();
    if (info.category == OpCategory::kSparse) continue;
    s.nargs = static_cast<uint8_t>(info.signature.size());
    for (int k = 0; k < s.nargs; ++k) {
      s.args[k].kind = info.signature[k] == 'v' ? ArgKind::kVar : ArgKind::kInt;
      s.args[k].var = k;
      s.args[k].dtype = DTypeArg::kI32;  // view_dtype's target (Case 8)
    }
    std::array<OperandLayout, kMaxArgs> in{};
    for (OperandLayout& x : in) x.dtype = DType::kI32;  // view_dtype's operand (Case 8)
    EXPECT_EQ(check_layouts(s, in).kind, ErrorKind::kNone) << info.name;
    in.fill(kMetaStridedI32);
    const bool device_op = s.op == OpId::kCuda || s.op == OpId::kCpu;
    const bool has_var = info.signature.find('v') != std::string_view::npos;
    EXPECT_EQ(check_layouts(s, in).kind,
              device_op && has_var ? ErrorKind::kUnsupportedLayout : ErrorKind::kNone)
        << info.name;
    in.fill(kCsrI32);
    if (has_var && s.op != OpId::kDrop && s.op != OpId::kMeta && s.op != OpId::kFake &&
        s.op != OpId::kToMeta) {
      EXPECT_EQ(check_layouts(s, in).kind, ErrorKind::kUnsupportedLayout) << info.name;
    }
  }
}

// A stride below -2^62 is a SymInt pointer to LibTorch 1.13: clone and a
// transpose of two distinct valid dims copy it unchecked (found by
// cow_fuzzer: a segfault); other ops, and transpose of a dim with itself or
// of a bad dim, are not flagged.
TEST(LayoutPolicy, CloneAndTransposeCopySymIntPointerStrides) {
  auto last = [](const char* text) {
    ParseResult r = parse_program(text);
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    return r.program.steps.back();
  };
  const int64_t wrapped[] = {-(int64_t{1} << 62) - 3000, (int64_t{1} << 62) - 1000, 1};
  const int64_t edge[] = {-(int64_t{1} << 62), 1, 1};  // the range starts below -2^62
  const char* base = "t0 = zeros [2] i64\n";
  auto step = [&](const char* op) { return last((std::string(base) + op + "\n").c_str()); };
  EXPECT_TRUE(copies_symint_pointer_stride(step("t1 = clone t0"), wrapped, 3));
  EXPECT_FALSE(copies_symint_pointer_stride(step("t1 = clone t0"), edge, 3));
  EXPECT_TRUE(copies_symint_pointer_stride(step("t1 = transpose t0 0 1"), wrapped, 3));
  EXPECT_TRUE(copies_symint_pointer_stride(step("t1 = transpose t0 -1 0"), wrapped, 3));
  EXPECT_FALSE(copies_symint_pointer_stride(step("t1 = transpose t0 2 -1"), wrapped, 3));
  EXPECT_FALSE(copies_symint_pointer_stride(step("t1 = transpose t0 0 3"), wrapped, 3));
  for (const char* op : {"t1 = contiguous t0", "t1 = unsqueeze t0 0", "t1 = to t0 f32", "drop t0"})
    EXPECT_FALSE(copies_symint_pointer_stride(step(op), wrapped, 3)) << op;
}

// sparse_coo_tensor: LibTorch adds the indices' size(0) and the values'
// dense dims in int64 (found by fake_fuzzer: indices [2^63-1, 0]).
TEST(LayoutPolicy, SparseCooDimsSumOverflowIsFlagged) {
  ParseResult r = parse_program("t0 = zeros [2] i64\nt1 = sparse_coo_tensor t0 t0 [1]\n");
  ASSERT_TRUE(r.ok()) << r.error.to_string();
  const Step& coo = r.program.steps.back();
  const int64_t huge[] = {INT64_MAX, 0}, near[] = {INT64_MAX - 2, 0}, small[] = {1, 2};
  EXPECT_TRUE(coo_dims_overflow(coo, huge, 2, 2));   // dense_dim 1
  EXPECT_FALSE(coo_dims_overflow(coo, huge, 2, 1));  // dense_dim 0
  EXPECT_FALSE(coo_dims_overflow(coo, huge, 2, 0));  // 0-dim values: expanded to [1]
  EXPECT_TRUE(coo_dims_overflow(coo, near, 2, 4));   // dense_dim 3
  EXPECT_FALSE(coo_dims_overflow(coo, near, 2, 3));
  EXPECT_FALSE(coo_dims_overflow(coo, small, 2, 16));
  EXPECT_FALSE(coo_dims_overflow(coo, huge, 1, 2));  // not 2-D: LibTorch raises first
  EXPECT_FALSE(coo_dims_overflow(r.program.steps.front(), huge, 2, 2));  // another op
}

// The S8 rules for writes within one storage, shared by the LibTorch and
// PyTorch backends: only an overlap LibTorch does not detect whose elements
// intersect is undefined.
TEST(OneStorageWrites, CopyIsUndefinedOnlyForAnUndetectedIntersectingOverlap) {
  const Geometry row0 = Geometry::of({4}, {1}, 0, 4), row1 = Geometry::of({4}, {1}, 4, 4);
  const Geometry col0 = Geometry::of({2}, {4}, 0, 4), col1 = Geometry::of({2}, {4}, 1, 4);
  const Geometry head = Geometry::of({6}, {1}, 0, 4), tail = Geometry::of({6}, {1}, 2, 4);
  EXPECT_TRUE(copy_overlap_undetected(row0, col0, false, true));   // kTooHard, element 0 shared
  EXPECT_TRUE(copy_overlap_undetected(row1, col1, false, true));   // element 5
  EXPECT_FALSE(copy_overlap_undetected(row1, col0, true, true));   // one tensor: no pass
  EXPECT_FALSE(copy_overlap_undetected(row0, row1, false, true));  // disjoint
  EXPECT_FALSE(copy_overlap_undetected(head, tail, false, true));  // kPartial: LibTorch raises
  EXPECT_FALSE(copy_overlap_undetected(row0, row0, false, true));  // the same elements
  EXPECT_TRUE(copy_overlap_undetected(row0, row0, false, false));  // ... of another dtype
  const Geometry wide = Geometry::of({2, 4}, {4, 1}, 0, 4), t = Geometry::of({4, 2}, {1, 4}, 0, 4);
  const Geometry col2 = Geometry::of({2}, {4}, 2, 4);
  EXPECT_FALSE(copy_overlap_undetected(col0, col2, false, true));  // kTooHard, disjoint
  // The same range in other strides: kPartial, LibTorch raises.
  EXPECT_FALSE(copy_overlap_undetected(Geometry::of({4, 2}, {2, 1}, 0, 4), t, false, true));
  // add_out/mul_out: the same, and a resized out over the input's bytes.
  EXPECT_TRUE(scalar_out_overlap_undetected(row0, col0, row0, false));
  EXPECT_FALSE(scalar_out_overlap_undetected(row1, row0, row1, false));
  EXPECT_FALSE(scalar_out_overlap_undetected(head, tail, head, false));  // kPartial: raises
  const Geometry empty_at_4 = Geometry::of({0}, {1}, 4, 4);
  EXPECT_TRUE(scalar_out_overlap_undetected(empty_at_4, wide, Geometry::of({2, 4}, {4, 1}, 4, 4),
                                            true));  // out grows over the input's second row
  EXPECT_FALSE(scalar_out_overlap_undetected(Geometry::of({0}, {1}, 8, 4), wide,
                                             Geometry::of({2, 4}, {4, 1}, 8, 4), true));
}

// Cases 1) and 7) for sparse_{csr,csc,bsr,bsc}_tensor: real strided parts on
// one device.
TEST(LayoutPolicy, CompressedFromPartsTakesRealStridedPartsOnOneDevice) {
  const OperandLayout cuda{Layout::kStrided, false, Device::kCuda};
  for (const char* op : {"sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
                         "sparse_bsc_tensor"}) {
    const std::string text =
        std::string("t0 = arange [3] i64\nt1 = zeros [2] i64\nt2 = ones [2,1,1] f32\nt3 = ") +
        op + " t0 t1 t2 [2,2]\n";
    EXPECT_EQ(check_last(text.c_str(), {kStrided, kStrided, kStrided}).kind, ErrorKind::kNone)
        << op;
    EXPECT_EQ(check_last(text.c_str(), {cuda, cuda, cuda}).kind, ErrorKind::kNone) << op;
    EXPECT_EQ(check_last(text.c_str(), {kStrided, kMetaStrided, kStrided}).kind,
              ErrorKind::kUnsupportedLayout)
        << op;
    EXPECT_EQ(check_last(text.c_str(), {kStrided, kStrided, kCoo}).kind,
              ErrorKind::kUnsupportedLayout)
        << op;
    Error mixed = check_last(text.c_str(), {kStrided, kStrided, cuda});
    EXPECT_EQ(mixed.kind, ErrorKind::kDeviceMismatch) << op;
    EXPECT_EQ(mixed.message, std::string(op) +
                                 ": compressed indices on cpu, plain indices on cpu and values on "
                                 "cuda; they must be on one device");
    EXPECT_EQ(check_last(text.c_str(), {cuda, kStrided, cuda}).kind, ErrorKind::kDeviceMismatch)
        << op;
    EXPECT_TRUE(builds_sparse_from_strided(parse_program(text).program.steps.back().op)) << op;
  }
}

// compressed_dims_overflow: a compressed dim of INT64_MAX rows (columns) of
// blocks, found after the compressed indices' batch dims.
TEST(LayoutPolicy, CompressedDimsOverflowIsFlagged) {
  auto step = [](const std::string& op, const std::string& sizes) {
    ParseResult r = parse_program("t0 = arange [3] i64\nt1 = " + op + " t0 t0 t0 " + sizes + "\n");
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    return r.program.steps.back();
  };
  const std::string max = "9223372036854775807";
  const int64_t v1[] = {2}, blocks11[] = {2, 1, 1}, blocks31[] = {2, 3, 1}, blocks13[] = {2, 1, 3};
  EXPECT_TRUE(compressed_dims_overflow(step("sparse_csr_tensor", "[" + max + ",4]"), 1, v1, 1));
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_csr_tensor", "[4," + max + "]"), 1, v1, 1));
  EXPECT_TRUE(compressed_dims_overflow(step("sparse_csc_tensor", "[4," + max + "]"), 1, v1, 1));
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_csc_tensor", "[" + max + ",4]"), 1, v1, 1));
  // Batch dims: compressed indices of rank 2 put the rows at sizes[1].
  EXPECT_TRUE(compressed_dims_overflow(step("sparse_csr_tensor", "[2," + max + ",4]"), 2, v1, 1));
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_csr_tensor", "[" + max + ",4,4]"), 2, v1, 1));
  // Blocks: INT64_MAX / 3 rows of blocks do not overflow; blocks of 1 do.
  EXPECT_TRUE(
      compressed_dims_overflow(step("sparse_bsr_tensor", "[" + max + ",4]"), 1, blocks11, 3));
  EXPECT_FALSE(
      compressed_dims_overflow(step("sparse_bsr_tensor", "[" + max + ",4]"), 1, blocks31, 3));
  EXPECT_TRUE(
      compressed_dims_overflow(step("sparse_bsr_tensor", "[" + max + ",4]"), 1, blocks13, 3));
  EXPECT_FALSE(
      compressed_dims_overflow(step("sparse_bsc_tensor", "[4," + max + "]"), 1, blocks13, 3));
  EXPECT_TRUE(
      compressed_dims_overflow(step("sparse_bsc_tensor", "[4," + max + "]"), 1, blocks31, 3));
  // LibTorch raises first: values without block dims, too few sizes, 0-d
  // compressed indices; and another op.
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_bsr_tensor", "[" + max + ",4]"), 1, v1, 1));
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_csc_tensor", "[" + max + "]"), 1, v1, 1));
  EXPECT_FALSE(compressed_dims_overflow(step("sparse_csr_tensor", "[" + max + ",4]"), 0, v1, 1));
  ParseResult coo = parse_program("t0 = zeros [2] i64\nt1 = sparse_coo_tensor t0 t0 [1]\n");
  const int64_t huge[] = {INT64_MAX};
  EXPECT_FALSE(compressed_dims_overflow(coo.program.steps.back(), 1, huge, 1));
}

// Case 8: view_dtype takes i32, i64 and u8 operands to i32, i64 or u8 only,
// real or meta, with one message naming both dtypes.
TEST(LayoutPolicy, ViewDtypeTakesIntegralDtypesOnlyCase8) {
  const char* kToI64 = "t0 = zeros [2] i32\nt1 = view_dtype t0 i64\n";
  const char* kToF32 = "t0 = zeros [2] i32\nt1 = view_dtype t0 f32\n";
  const char* kToBool = "t0 = zeros [2] i32\nt1 = view_dtype t0 bool\n";
  for (DType d : {DType::kI32, DType::kI64, DType::kU8}) {
    EXPECT_EQ(check_last(kToI64, {{Layout::kStrided, false, Device::kCpu, d}}).kind,
              ErrorKind::kNone);
    EXPECT_EQ(check_last(kToI64, {{Layout::kStrided, true, Device::kCpu, d}}).kind,
              ErrorKind::kNone);
    EXPECT_EQ(check_last(kToF32, {{Layout::kStrided, false, Device::kCpu, d}}).kind,
              ErrorKind::kUnsupportedLayout);
    EXPECT_EQ(check_last(kToBool, {{Layout::kStrided, false, Device::kCpu, d}}).kind,
              ErrorKind::kUnsupportedLayout);
  }
  for (DType d : {DType::kF32, DType::kF64, DType::kBool})
    EXPECT_EQ(check_last(kToI64, {{Layout::kStrided, false, Device::kCpu, d}}).kind,
              ErrorKind::kUnsupportedLayout);
  Error e = check_last(kToI64, {{Layout::kStrided, false, Device::kCpu, DType::kF32}});
  EXPECT_EQ(e.message,
            "view_dtype of an input of dtype f32 as i64; storcheck's language views i32, i64 and "
            "u8 tensors as i32, i64 or u8 only (float bits would be compared exactly, a bool byte "
            "other than 0 or 1 is undefined)");
}

}  // namespace
}  // namespace storcheck
