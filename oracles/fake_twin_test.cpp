// The fake twin (oracles/fake_twin_backend.cpp): F6 cross-ref of fake
// execution against eager, and the F7 fallback check.
#include <gtest/gtest.h>

#include "impl/fault.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

Program parse_ok(const std::string& text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

struct FaultScope {
  explicit FaultScope(Fault f) : on(set_active_fault(f)) {}
  ~FaultScope() { set_active_fault(Fault::kNone); }
  bool on;
};

/// Runs `text` on the reference and its fake twin; with `check_fallback`,
/// on the twin alone (the fallback's findings, not the cross-ref's).
RunReport crossref(const std::string& text, bool check_fallback = false, Limits limits = {}) {
  static Program p;  // the Runner's backends keep a pointer until the next begin
  p = parse_ok(text);
  auto eager = make_reference_backend();
  auto twin = make_fake_twin_backend(check_fallback);
  std::vector<Backend*> list{eager.get(), twin.get()};
  if (check_fallback) list = {twin.get()};
  Runner r(list, limits);
  return r.run(p, /*keep_trace=*/true);
}

TEST(FakeTwin, ViewsWritesAndComputeMatchEagerMetadataF6) {
  RunReport rep = crossref(
      "t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nadd_ t1 1\nt2 = add t1 2\n"
      "t3 = contiguous t0\nt4 = expand t0 [2,3,4]\nt5 = clone t4\nt6 = sum t1\n"
      "add_ t4 3\nt7 = to t1 i64\nresize_ t7 [20]\n");
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(Program{});
  EXPECT_EQ(rep.steps_run, 11);
  // Errors are compared too: add_ on an expanded tensor raises internal
  // overlap on both (F9).
  ASSERT_EQ(rep.trace[8].errors.size(), 2u);
  EXPECT_EQ(rep.trace[8].errors[0], ErrorKind::kInternalOverlap);
  EXPECT_EQ(rep.trace[8].errors[1], ErrorKind::kInternalOverlap);
  const VarObs& t2 = rep.last[1].vars[2];
  EXPECT_TRUE(t2.fake);
  EXPECT_EQ(t2.device, Device::kCpu) << "a fake reports the real device (F1)";
  EXPECT_FALSE(t2.values_known);
  EXPECT_EQ(t2.strides[0], 1);
  EXPECT_EQ(t2.strides[1], 4) << "add keeps the transposed layout, as eager does";
}

TEST(FakeTwin, RealResourceLimitsAreTheTwinsToo) {
  Limits small;
  small.max_tensor_bytes = 64;
  RunReport rep = crossref("t0 = zeros [4,4] f32\nt1 = expand t0 [2,4,4]\nt2 = clone t1\n", false, small);
  EXPECT_FALSE(rep.diverged);
  ASSERT_EQ(rep.trace.size(), 3u);
  EXPECT_EQ(rep.trace[2].errors[0], ErrorKind::kResourceLimit);
  EXPECT_EQ(rep.trace[2].errors[1], ErrorKind::kResourceLimit)
      << "the fake run allocates nothing, so the real run's limit decides";
  EXPECT_FALSE(rep.last[1].vars[2].live);
}

TEST(FakeTwin, PlantedMetaStridesBugIsADivergenceOnDimsOfSizeAboveOne) {
  if (!fault_injection_available()) GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";
  FaultScope f(Fault::kMetaOutplaceContiguous);
  RunReport rep = crossref("t0 = arange [2,3] f32\nt1 = t t0\nt2 = mul t1 2\n");
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 3);
  EXPECT_EQ(rep.divergence.mismatch.field, "strides");
  EXPECT_EQ(rep.divergence.mismatch.a, "[1, 3]");
  EXPECT_EQ(rep.divergence.mismatch.b, "[2, 1]");
  // A size-1 dim's stride is not compared (F6): [1,3] -> t: [3,1] strides [1,3].
  RunReport ones = crossref("t0 = arange [1,3] f32\nt1 = t t0\nt2 = mul t1 2\n");
  EXPECT_FALSE(ones.diverged) << "strides of size-1 dims differ only";
}

TEST(FakeTwin, FallbackAgreesWithMetaRulesF7) {
  RunReport rep = crossref(
      "t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nt2 = add t1 1\nadd_ t1 1\n"
      "t3 = contiguous t2\nt4 = view t0 [12]\ntranspose_ t1 0 1\ncopy_ t0 t1\n"
      "t5 = view t1 [5]\nfill_ t0 300\nt6 = to t0 u8\n",
      /*check_fallback=*/true);
  EXPECT_FALSE(rep.diverged) << rep.divergence.mismatch.a;
  EXPECT_EQ(rep.steps_run, 11);
  EXPECT_EQ(rep.trace[7].errors[0], ErrorKind::kNone);
  EXPECT_EQ(rep.trace[8].errors[0], ErrorKind::kShapeMismatch) << "the meta rule and the fallback raise alike";
}

/// The fallback twin's finding for `text` under `fault`: at `step`, the
/// rule's message starting with `finding`.
void expect_fallback_finding(Fault fault, const std::string& text, int64_t step,
                             const std::string& finding) {
  FaultScope f(fault);
  RunReport rep = crossref(text, /*check_fallback=*/true);
  ASSERT_TRUE(rep.diverged) << fault_name(fault);
  EXPECT_EQ(rep.divergence.step, step);
  EXPECT_EQ(rep.divergence.mismatch.field, "invariant");
  EXPECT_EQ(rep.divergence.mismatch.a.substr(0, finding.size()), finding);
}

TEST(FakeTwin, FallbackRulesAreCheckedF7) {
  if (!fault_injection_available()) GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";
  expect_fallback_finding(Fault::kFallbackConvertsViews, "t0 = arange [6] f32\nt1 = view t0 [2,3]\n", 2,
                          "F7: view: the output aliases an input, but the fallback returns a fake "
                          "tensor with a storage of its own instead of raising "
                          "unsupported_fake_tensor");
  expect_fallback_finding(Fault::kFallbackRunsInplaceView, "t0 = arange [2,3] f32\nt_ t0\n", 2,
                          "F7: t_ is tagged inplace_view, but its fallback succeeds instead of "
                          "raising unsupported_fake_tensor");
  expect_fallback_finding(Fault::kMetaOutplaceContiguous,
                          "t0 = arange [2,3] f32\nt1 = t t0\nt2 = add t1 1\n", 3,
                          "F7: add: the fallback's output (sizes [3, 2], strides [1, 3]");
}

// Sparse twins (Note [Fake twin]): data-dependent steps take the real
// result's metadata with fake parts; accessors, to_dense, coalesce of a
// coalesced input and ops on the parts run on the twins.
TEST(FakeTwin, SparseTwinsMatchEagerMetadataF6) {
  RunReport rep = crossref(
      "t0 = arange [2,3] f32\n"
      "t1 = to_sparse_csc t0\n"            // 2
      "t2 = ccol_indices t1\n"             // 3
      "t3 = values t1\n"                   // 4
      "mul_ t3 2\n"                        // 5: through the part (S2, S3)
      "t4 = to_dense t1\n"                 // 6: CSC: strides [1, 2]
      "t5 = arange [2,4] i64\n"            // 7
      "t6 = rand [4,3] f32 7\n"            // 8
      "t7 = sparse_coo_tensor t5 t6 [8,8,3]\n"  // 9: its parts are t5 and t6
      "t8 = coalesce t7\n"                 // 10: uncoalesced: from the data
      "t9 = values t8\n"                   // 11
      "t10 = coalesce t8\n"                // 12: returns t8 itself
      "t11 = to_dense t10\n"               // 13
      "t12 = to_sparse_bsr t4 [1,3]\n"     // 14
      "t13 = values t12\n"                 // 15
      "t14 = transpose t13 1 2\n"          // 16
      "t15 = add t14 1\n");                // 17
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(Program{});
  EXPECT_EQ(rep.steps_run, 17);
  for (const TraceLine& line : rep.trace) {
    ASSERT_EQ(line.errors.size(), 2u);
    EXPECT_EQ(line.errors[1], ErrorKind::kNone) << "step " << line.step;
  }
  const std::vector<VarObs>& twin = rep.last[1].vars;
  EXPECT_EQ(twin[1].layout, Layout::kSparseCsc);
  EXPECT_TRUE(twin[1].fake);
  EXPECT_EQ(twin[1].nnz, 5) << "the twin keeps the real result's nnz";
  EXPECT_TRUE(twin[3].fake);
  EXPECT_EQ(twin[3].version, 1) << "mul_ through values() bumps the part's version (S2)";
  EXPECT_TRUE(twin[4].fake);
  EXPECT_EQ(twin[4].strides[0], 1);
  EXPECT_EQ(twin[4].strides[1], 2) << "to_dense of CSC: eager's transposed strides";
  EXPECT_FALSE(twin[7].coalesced);
  EXPECT_TRUE(twin[8].coalesced);
  EXPECT_EQ(twin[8].nnz, 4);
  EXPECT_TRUE(twin[9].fake);
  EXPECT_EQ(twin[10].identity_class, 8) << "coalesce of a coalesced tensor returns it";
  EXPECT_EQ(twin[12].layout, Layout::kSparseBsr);
  EXPECT_TRUE(twin[15].fake) << "add on a fake part";
}

// sparse_coo_tensor keeps its inputs as parts (S3): the twin's parts are
// over the inputs' fake storages, so values() aliases the values input on
// the twin as on eager (nnz 1: coalesced, so values() is allowed).
TEST(FakeTwin, SparseCooTensorPartsShareTheInputsFakeStoragesS3) {
  RunReport rep = crossref(
      "t0 = zeros [2,1] i64\nt1 = rand [1,3] f32 5\nt2 = sparse_coo_tensor t0 t1 [4,4,3]\n"
      "t3 = values t2\nt4 = indices t2\nmul_ t3 2\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(Program{});
  EXPECT_EQ(rep.steps_run, 6);
  const std::vector<VarObs>& twin = rep.last[1].vars;
  EXPECT_TRUE(twin[3].fake);
  EXPECT_EQ(twin[3].alias_class, 1) << "values() shares t1's fake storage";
  EXPECT_EQ(twin[4].alias_class, 0) << "indices() shares t0's fake storage";
}

TEST(FakeTwin, SparseIndexCheckOnDataIsTheRealRunsOutcome) {
  // An index written out of range through indices(): eager's to_dense
  // refuses (S8) from the data, which the twin has not.
  RunReport rep = crossref(
      "t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = indices t1\nfill_ t2 100\n"
      "t3 = to_dense t1\nt4 = values t1\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(Program{});
  ASSERT_EQ(rep.trace.size(), 6u);
  EXPECT_EQ(rep.trace[4].errors[0], ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(rep.trace[4].errors[1], ErrorKind::kUndefinedBehavior);
  EXPECT_FALSE(rep.last[1].vars[3].live);
  EXPECT_TRUE(rep.last[1].vars[4].live);
}

TEST(FakeTwin, PlantedMetaBugOnASparsePartIsADivergence) {
  if (!fault_injection_available()) GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";
  FaultScope f(Fault::kMetaOutplaceContiguous);
  RunReport rep = crossref(
      "t0 = arange [2,4] f32\nt1 = to_sparse_bsr t0 [2,2]\nt2 = values t1\n"
      "t3 = transpose t2 1 2\nt4 = mul t3 2\n");
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 5);
  EXPECT_EQ(rep.divergence.mismatch.field, "strides");
  EXPECT_EQ(rep.divergence.mismatch.a, "[4, 1, 2]");
  EXPECT_EQ(rep.divergence.mismatch.b, "[4, 2, 1]");
}

}  // namespace
}  // namespace storcheck
