// Sparse variables on the reference and the LibTorch backend together: the
// same programs give the same observations (layout, F4 metadata, to_dense
// values, identity, errors), except where LibTorch 1.13 differs by a known
// divergence (oracles/known_divergences.cpp), which must then match its entry.
#include <gtest/gtest.h>

#include "oracles/known_divergences.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

struct Both {
  std::unique_ptr<Backend> ref = make_reference_backend();
  std::unique_ptr<Backend> torch = make_torch_cpu_backend();
  Program program;
  RunReport run(const char* text) {
    ParseResult r = parse_program(text);
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    program = r.program;
    Runner runner({ref.get(), torch.get()}, Limits{});
    return runner.run(program);
  }
  /// The known-divergence entry that explains `rep`, or "".
  std::string known(const RunReport& rep) const {
    const Divergence& d = rep.divergence;
    std::string_view op = op_info(program.steps[static_cast<size_t>(d.step - 1)].op).name;
    const KnownDivergence* k = match_known_divergence(op, d.mismatch, torch_version());
    return k ? std::string(k->id) : std::string();
  }
};

std::string describe(const RunReport& rep);

/// Runs `text` on both backends: they must agree on every step.
RunReport expect_agree(const char* text) {
  Both b;
  RunReport rep = b.run(text);
  EXPECT_FALSE(rep.diverged) << describe(rep);
  return rep;
}

std::string describe(const RunReport& rep) {
  return "step " + std::to_string(rep.divergence.step) + " field " + rep.divergence.mismatch.field +
         ": " + rep.divergence.mismatch.a + " vs " + rep.divergence.mismatch.b;
}

TEST(TorchSparseVars, EveryLayoutAccessorsWritesAndToDenseAgreeS3) {
  RunReport rep = expect_agree(
      "t0 = arange [2,4] f32\n"
      "t1 = to_sparse_coo t0 1\nt2 = values t1\nmul_ t2 3\nt3 = indices t1\nt4 = to_dense t1\n"
      "t5 = to_sparse_csr t0\nt6 = crow_indices t5\nt7 = col_indices t5\nt8 = values t5\n"
      "add_ t8 1\nt9 = to_dense t5\n"
      "t10 = to_sparse_csc t0\nt11 = ccol_indices t10\nt12 = row_indices t10\nt13 = to_dense t10\n"
      "t14 = to_sparse_bsr t0 [1,2]\nt15 = values t14\nt16 = to_sparse_bsc t0 [2,2]\n"
      "t17 = to_dense t16\nt18 = to_sparse_bsr t0 [2,3]\n");
  EXPECT_EQ(rep.steps_run, 21);
}

TEST(TorchSparseVars, SparseCooTensorFromPartsAgreesUnsortedDuplicatesEmptyHybrid) {
  expect_agree(
      "t0 = rand [2,6] i64 3\nt1 = rand [6] f32 4\nt2 = sparse_coo_tensor t0 t1 [10,10]\n"
      "t3 = to_dense t2\nt4 = coalesce t2\nt5 = values t4\nt6 = indices t2\n"
      "t7 = zeros [1,0] i64\nt8 = zeros [0,3] f64\nt9 = sparse_coo_tensor t7 t8 [4,3]\n"
      "t10 = to_dense t9\nt11 = coalesce t9\nt12 = arange [1,4] i64\nt13 = rand [4,2] f32 5\n"
      "t14 = sparse_coo_tensor t12 t13 [3,2]\n");
}

TEST(TorchSparseVars, FakeAndMetaOfCooAgreeWithLibTorchF4F2) {
  expect_agree(
      "t0 = arange [3,2] f32\nt1 = to_sparse_coo t0 1\nt2 = fake t1\nt3 = fake t1\n"
      "t4 = meta t1\nt5 = values t1\nt6 = fake t5\ndrop t1\nsweep\nt7 = fake t2\n");
}

TEST(TorchSparseVars, LayoutRefusalsAgreeAndLibTorchIsNotCalled) {
  expect_agree(
      "t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = add t1 1\nt3 = clone t1\n"
      "t4 = to_dense t0\nt5 = crow_indices t1\nt6 = to_sparse_csr t1\nt7 = to_sparse_bsr t0 [3]\n");
}

TEST(TorchSparseVars, LibTorchErrorsOnSparseOpsMatchTheReference) {
  expect_agree(
      "t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 3\nt2 = to_sparse_bsr t0 [2,2]\n"
      "t3 = arange [1,3] i64\nt4 = ones [3] f32\nt5 = sparse_coo_tensor t3 t4 [2]\n"
      "t6 = sparse_coo_tensor t3 t4 [4]\nt7 = values t6\nt8 = ones [2] f32\n"
      "t9 = sparse_coo_tensor t3 t8 [4]\nt10 = ones [1,3] f32\n"
      "t11 = sparse_coo_tensor t10 t4 [4]\n");  // f32 indices: invalid_argument on both
}

TEST(TorchSparseVars, ToMetaOfCooIsTheKnownDivergenceOf113F8) {
  Both b;
  RunReport rep = b.run("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 1\nt2 = to_meta t1\n");
  if (torch_version().rfind("1.13", 0) != 0) GTEST_SKIP() << "LibTorch " << torch_version();
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 3);
  EXPECT_EQ(b.known(rep), "to-meta-sparse-coo-empty-1.13") << describe(rep);
}

TEST(TorchSparseVars, FakeOfCompressedIsTheKnownDivergenceOf113F4) {
  Both b;
  RunReport rep = b.run("t0 = arange [2,3] f32\nt1 = to_sparse_csc t0\nt2 = fake t1\n");
  if (torch_version().rfind("1.13", 0) != 0) GTEST_SKIP() << "LibTorch " << torch_version();
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.mismatch.field, "error");
  EXPECT_EQ(b.known(rep), "meta-sparse-compressed-1.13") << describe(rep);
}

TEST(TorchSparseVars, ShrunkValuesPartIsUndefinedBehaviorOnBothS8) {
  expect_agree(
      "t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = values t1\nshrink t2\n"
      "t3 = to_dense t1\nt4 = coalesce t1\n");
}

}  // namespace
}  // namespace storcheck
