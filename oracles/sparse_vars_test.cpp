// Sparse tensors as program variables on the reference backend: the
// accessors alias the parts (S3) and share one version counter (S2), the
// observations of Note [Observing a sparse variable], fake and meta of a
// sparse variable (F4, F2, F3; Note [Sparse fake modes]), to_meta (F8), and
// the layout policy's refusals.
#include <gtest/gtest.h>

#include <cstring>

#include "oracles/backend.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

struct SparseRun {
  Program program;
  std::unique_ptr<Backend> b = make_reference_backend();
  std::vector<Error> errors;
  Observation obs;  ///< after the last step

  explicit SparseRun(const char* text) {
    ParseResult r = parse_program(text);
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    program = r.program;
    b->begin(program, Limits{});
    for (const Step& s : program.steps) errors.push_back(b->run_step(s));
    b->observe(&obs);
  }
  const VarObs& var(const char* name) const {
    for (size_t k = 0; k < program.var_names.size(); ++k)
      if (program.var_names[k] == name) return obs.vars[k];
    ADD_FAILURE() << "no variable " << name;
    return obs.vars[0];
  }
  ErrorKind kind(size_t step) const { return errors.at(step - 1).kind; }  // 1-based
};

std::vector<float> floats(const VarObs& v) {
  std::vector<float> out(v.values.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), v.values.data(), v.values.size());
  return out;
}

TEST(SparseVars, SparseVariableIsObservedByItsF4MetadataAndHasNoStorage) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 1\n");
  const VarObs& s = r.var("t1");
  EXPECT_EQ(s.layout, Layout::kSparseCoo);
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.sparse_dim, 1);
  EXPECT_EQ(s.dense_dim, 1);
  EXPECT_EQ(s.nnz, 2);  // both rows hold a nonzero
  EXPECT_TRUE(s.coalesced);
  EXPECT_EQ(s.index_dtype, DType::kI64);
  EXPECT_EQ(s.storage_nbytes, -1);
  EXPECT_EQ(s.alias_class, -1);
  EXPECT_FALSE(s.version_known);
  ASSERT_TRUE(s.values_known);
  EXPECT_EQ(floats(s), (std::vector<float>{0, 1, 2, 3, 4, 5})) << "to_dense's values, row-major";
}

TEST(SparseVars, WriteThroughValuesIsSeenByTheSparseVariableAndEveryAccessorS3S2) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = values t1\nfill_ t2 7\n"
        "t3 = indices t1\n");
  EXPECT_EQ(floats(r.var("t1")), (std::vector<float>{0, 7, 7, 7, 7, 7}));
  EXPECT_EQ(r.var("t2").version, 1);
  EXPECT_EQ(r.var("t3").version, 1) << "accessors are views of one sparse tensor (S2)";
  EXPECT_NE(r.var("t2").alias_class, r.var("t3").alias_class) << "different parts";
}

TEST(SparseVars, FakeHasNnzZeroMetaKeepsNnzAndRepeatsAreTheSameTensorF4F2) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = fake t1\nt3 = fake t1\n"
        "t4 = meta t1\nt5 = meta t1\n");
  const VarObs& f = r.var("t2");
  EXPECT_EQ(f.layout, Layout::kSparseCoo);
  EXPECT_TRUE(f.fake);
  EXPECT_EQ(f.device, Device::kCpu) << "F1: a fake reports the real device";
  EXPECT_EQ(f.nnz, 0) << "PyTorch's converter";
  EXPECT_EQ(f.sparse_dim, 2);
  EXPECT_TRUE(f.coalesced);
  EXPECT_FALSE(f.values_known);
  EXPECT_EQ(r.var("t3").identity_class, f.identity_class) << "F2: the memo";
  const VarObs& m = r.var("t4");
  EXPECT_EQ(m.device, Device::kMeta);
  EXPECT_EQ(m.nnz, 5) << "the faithful MetaConverter keeps nnz";
  EXPECT_EQ(r.var("t5").identity_class, m.identity_class);
  EXPECT_NE(m.identity_class, f.identity_class) << "two converters, two memos";
  EXPECT_EQ(r.obs.fake_memo.sparse, 1);
  EXPECT_EQ(r.obs.meta_memo.sparse, 1);
}

TEST(SparseVars, CompressedFakeKeepsBlocksizeAndIndexDtypeF4) {
  SparseRun r("t0 = ones [2,4] f32\nt1 = to_sparse_bsr t0 [2,2]\nt2 = fake t1\n");
  const VarObs& f = r.var("t2");
  EXPECT_EQ(f.layout, Layout::kSparseBsr);
  EXPECT_EQ(f.blocksize, (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(f.index_dtype, DType::kI64);
  EXPECT_EQ(f.nnz, 0);
  EXPECT_EQ(r.var("t1").nnz, 2);
}

TEST(SparseVars, FakeOfAnAccessorIsUnsupportedAndLeavesTheMemoF4) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = values t1\nt3 = select t2 0 1\n"
        "t4 = fake t2\nt5 = meta t3\n");
  EXPECT_EQ(r.kind(5), ErrorKind::kUnsupportedFakeTensor);
  EXPECT_EQ(r.kind(6), ErrorKind::kUnsupportedFakeTensor) << "a view of a part: same base";
  EXPECT_EQ(r.obs.fake_memo, MemoStats{});
  EXPECT_EQ(r.obs.meta_memo, MemoStats{});
}

TEST(SparseVars, DroppedSparseTensorLeavesTheMemoF3) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = fake t1\ndrop t1\nsweep\n");
  EXPECT_EQ(r.obs.fake_memo.sparse, 0);
  EXPECT_TRUE(r.var("t2").live) << "the fake outlives its real tensor";
}

TEST(SparseVars, ToMetaKeepsNnzDimsSplitAndCoalescedFlagF8) {
  SparseRun r("t0 = arange [1,3] i64\nt1 = ones [3,2] f32\nt2 = sparse_coo_tensor t0 t1 [3,2]\n"
        "t3 = to_meta t2\n");
  const VarObs& m = r.var("t3");
  EXPECT_EQ(m.device, Device::kMeta);
  EXPECT_FALSE(m.fake);
  EXPECT_EQ(m.nnz, 3);
  EXPECT_EQ(m.sparse_dim, 1);
  EXPECT_EQ(m.dense_dim, 1);
  EXPECT_FALSE(m.coalesced) << "1.13 marks nnz >= 2 from parts uncoalesced";
}

TEST(SparseVars, StridedOpsRefuseSparseVariablesWithUnsupportedLayout) {
  SparseRun r("t0 = arange [2,3] f32\nt1 = to_sparse_csr t0\nt2 = add t1 1\nt3 = to_dense t0\n"
        "t4 = crow_indices t1\n");
  EXPECT_EQ(r.kind(3), ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(r.kind(4), ErrorKind::kUnsupportedLayout);
  EXPECT_EQ(r.kind(5), ErrorKind::kNone);
  EXPECT_FALSE(r.var("t2").live);
}

TEST(SparseVars, UncoalescedIndicesRaiseAsInPyTorch) {
  SparseRun r("t0 = arange [1,3] i64\nt1 = ones [3] f32\nt2 = sparse_coo_tensor t0 t1 [4]\n"
        "t3 = indices t2\nt4 = coalesce t2\nt5 = indices t4\n");
  EXPECT_EQ(r.kind(4), ErrorKind::kInvalidArgument);
  EXPECT_EQ(r.kind(6), ErrorKind::kNone);
}

}  // namespace
}  // namespace storcheck
