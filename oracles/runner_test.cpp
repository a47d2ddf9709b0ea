// Tests of the comparator, the runner's step-outcome rules and the
// known-divergence mechanism, with the reference backend on both sides
// (and a deliberately wrong backend to prove divergences are reported).
#include "oracles/runner.h"

#include <gtest/gtest.h>

#include <string>

#include "impl/ops.h"
#include "oracles/compare.h"
#include "oracles/known_divergences.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

Program parse_ok(const char* text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

/// Wraps the reference and perturbs one observation, to prove that the
/// comparator names the step, variable and field.
class SkewedBackend final : public Backend {
 public:
  explicit SkewedBackend(int64_t skew_step) : inner_(make_reference_backend()), skew_step_(skew_step) {}
  std::string_view name() const override { return "skewed"; }
  void begin(const Program& p, const Limits& l) override {
    step_ = 0;
    inner_->begin(p, l);
  }
  Error run_step(const Step& s) override {
    ++step_;
    return inner_->run_step(s);
  }
  void observe(Observation* obs, const ObserveScope& scope = {}) override {
    inner_->observe(obs, scope);
    if (step_ == skew_step_) obs->vars[1].strides[0] += 1;
  }

 private:
  std::unique_ptr<Backend> inner_;
  int64_t skew_step_;
  int64_t step_ = 0;
};

TEST(Runner, IdenticalBackendsDoNotDiverge) {
  auto a = make_reference_backend();
  auto b = make_reference_backend();
  Runner r({a.get(), b.get()}, Limits{});
  Program p = parse_ok("t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nadd_ t1 1\n");
  RunReport rep = r.run(p);
  EXPECT_FALSE(rep.diverged);
  EXPECT_EQ(rep.steps_run, 3);
}

// cow_copies (C4) counts the copies of this backend's own steps: two
// reference backends in lock step on one thread (the bench's planted
// backend wraps one) each see 1 after the copy_ into the lazy clone. Both
// read one thread-wide counter before, and differed (1 vs 2; found by
// Bench.PlantedFailuresShrinkToAtMostFiveSteps when view_dtype joined the
// language and the generator drew this program).
TEST(Runner, TwoReferenceBackendsCountOnlyTheirOwnCowCopies) {
  auto a = make_reference_backend();
  auto b = make_reference_backend();
  Runner r({a.get(), b.get()}, Limits{});
  Program p = parse_ok(
      "t0 = arange [] f32\nt1 = sum t0\nt2 = lazy_clone t1\nt3 = arange [] f32\n"
      "copy_ t2 t3\n");
  RunReport rep = r.run(p, /*keep_trace=*/true);
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.last.size(), 2u);
  EXPECT_EQ(rep.last[0].cow_copies, 1);
  EXPECT_EQ(rep.last[1].cow_copies, 1);
}

// Note [sum in f64]: the reference refuses a sum whose f64 result depends on
// the order of the additions (rule 5: not comparable from there on), and
// only such a sum. Found by views.errors_agree (seed 2020): LibTorch's
// cascade gave 2^53 + 4 for what the reference summed in order to 2^53 + 6.
TEST(Runner, TheReferenceRefusesASumWhoseOrderDecides) {
  auto a = make_reference_backend();
  Runner r({a.get()}, Limits{});
  Program p = parse_ok(
      "t0 = arange [5] f64\nt1 = as_strided t0 [] [] 4\nfill_ t1 9007199254740992\n"
      "t2 = sum t0\nt3 = to t2 u8\n");
  RunReport rep = r.run(p);
  EXPECT_FALSE(rep.diverged);
  EXPECT_EQ(rep.steps_run, 4);
  EXPECT_EQ(rep.refusal,
            "step 4 (t2 = sum t0): reference refused: sum: the f64 sum of these elements rounds, "
            "so its result depends on the order of the additions, and the reference cannot add "
            "in LibTorch's (Note [sum in f64])");
  // Without the 2^53 every order gives 10: no refusal, the program runs out.
  Program q = parse_ok("t0 = arange [5] f64\nt2 = sum t0\nt3 = to t2 u8\n");
  RunReport all = r.run(q);
  EXPECT_EQ(all.refusal, "");
  EXPECT_EQ(all.steps_run, 3);
}

// Backend::take_refusal hands a refusal over once: the reason into *why,
// or dropped when why is null; the next ask says no.
TEST(Runner, ARefusalIsTakenOnceWithOrWithoutItsReason) {
  auto a = make_reference_backend();
  Program p = parse_ok(
      "t0 = arange [5] f64\nt1 = as_strided t0 [] [] 4\nfill_ t1 9007199254740992\n"
      "t2 = sum t0\n");
  for (bool keep : {true, false}) {
    a->begin(p, Limits{});
    std::string why;
    for (size_t k = 0; k + 1 < p.steps.size(); ++k) {
      ASSERT_EQ(a->run_step(p.steps[k]).kind, ErrorKind::kNone);
      EXPECT_FALSE(a->take_refusal(&why)) << why;
    }
    ASSERT_EQ(a->run_step(p.steps.back()).kind, ErrorKind::kNone);
    EXPECT_TRUE(a->take_refusal(keep ? &why : nullptr));
    EXPECT_EQ(why.rfind("sum: the f64 sum of these elements rounds", 0) == 0, keep) << why;
    EXPECT_FALSE(a->take_refusal(&why));
  }
}

TEST(Runner, NamesFirstDifferingStepVariableAndField) {
  auto a = make_reference_backend();
  SkewedBackend b(2);
  Runner r({a.get(), &b}, Limits{});
  Program p = parse_ok("t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nadd_ t1 1\n");
  RunReport rep = r.run(p);
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 2);
  EXPECT_EQ(rep.divergence.mismatch.field, "strides");
  EXPECT_EQ(rep.divergence.mismatch.var, 1);
  EXPECT_EQ(rep.divergence.mismatch.a, "[1, 4]");
  EXPECT_EQ(rep.divergence.mismatch.b, "[2, 4]");
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 2 (t1 = transpose t0 0 1): strides of t1: reference [1, 4] vs skewed [2, 4]");
}

TEST(Runner, FailedStepLeavesOutputUnboundAndLaterUsesAreSkipped) {
  auto a = make_reference_backend();
  auto b = make_reference_backend();
  Runner r({a.get(), b.get()}, Limits{});
  Program p = parse_ok(
      "t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nt2 = view t1 [12]\nadd_ t2 1\nt3 = clone t2\n"
      "add_ t0 1\n");
  RunReport rep = r.run(p, /*keep_trace=*/true);
  EXPECT_FALSE(rep.diverged);
  ASSERT_EQ(rep.trace.size(), 6u);
  EXPECT_EQ(rep.trace[2].errors[0], ErrorKind::kViewIncompatible);
  EXPECT_TRUE(rep.trace[3].skipped);
  EXPECT_TRUE(rep.trace[4].skipped);
  EXPECT_FALSE(rep.trace[5].skipped);
  EXPECT_EQ(rep.steps_run, 4);
  EXPECT_EQ(rep.steps_failed, 1);
  EXPECT_FALSE(rep.last[0].vars[2].live);
}

TEST(Runner, ObservesAliasAndIdentityClassesAndVersions) {
  auto a = make_reference_backend();
  Runner r({a.get()}, Limits{});
  Program p = parse_ok(
      "t0 = arange [2,3] f32\nt1 = contiguous t0\nt2 = t t0\nt3 = clone t0\nadd_ t2 1\ndrop t0\n");
  RunReport rep = r.run(p, /*keep_trace=*/true);
  const auto& v = rep.last[0].vars;
  EXPECT_FALSE(v[0].live);
  EXPECT_EQ(v[1].identity_class, 1);  // t0 dropped: t1 is now the smallest id
  EXPECT_EQ(v[2].alias_class, 1);     // t2 views t1's (= t0's) storage
  EXPECT_EQ(v[3].alias_class, 3);     // clone: fresh storage
  EXPECT_EQ(v[1].version, 1);
  EXPECT_EQ(v[2].version, 1);
  EXPECT_EQ(v[3].version, 0);
}

TEST(Compare, ErrorKindsAreComparedFirst) {
  Observation x, y;
  x.error = ErrorKind::kOutOfBounds;
  y.error = ErrorKind::kNone;
  Mismatch m;
  EXPECT_FALSE(compare_observations(x, {}, y, {}, &m));
  EXPECT_EQ(m.field, "error");
  EXPECT_EQ(m.var, kNoVar);
  EXPECT_EQ(m.a, "out_of_bounds");
}

TEST(Compare, UnobservableFieldsAreSkippedNotGuessed) {
  Observation x, y;
  x.vars.resize(1);
  y.vars.resize(1);
  x.vars[0].live = y.vars[0].live = true;
  x.vars[0].version_known = true;
  x.vars[0].version = 3;
  y.vars[0].version_known = false;
  Mismatch m;
  EXPECT_TRUE(compare_observations(x, {}, y, {}, &m));
  Capabilities no_version;
  no_version.version = false;
  y.vars[0].version_known = true;
  EXPECT_TRUE(compare_observations(x, {}, y, no_version, &m));
  EXPECT_FALSE(compare_observations(x, {}, y, {}, &m));
  EXPECT_EQ(m.field, "version");
}

TEST(Compare, FloatValuesTreatNanAsEqualAndIntsExactly) {
  Observation x, y;
  x.vars.resize(1);
  y.vars.resize(1);
  for (Observation* o : {&x, &y}) {
    o->vars[0].live = true;
    o->vars[0].dtype = DType::kF32;
    o->vars[0].values_known = true;
    o->vars[0].values.resize(4);
  }
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(x.vars[0].values.data(), &nan, 4);
  std::memcpy(y.vars[0].values.data(), &nan, 4);
  Mismatch m;
  EXPECT_TRUE(compare_observations(x, {}, y, {}, &m));
  float one = 1.0f;
  std::memcpy(y.vars[0].values.data(), &one, 4);
  EXPECT_FALSE(compare_observations(x, {}, y, {}, &m));
  EXPECT_EQ(m.field, "values");
  EXPECT_EQ(m.b, "[1]");
}

TEST(KnownDivergences, MatchByIdAndVersionPrefix) {
  std::vector<KnownDivergence> list = {
      {"resize-nonresizable-partial", "1.13,2.0", "resize_", "sizes", "sizes change first"},
      {"everywhere", "*", "view", "error", "always"}};
  const KnownDivergence* k = find_known_divergence("resize-nonresizable-partial", list);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->applies_to("1.13.1"));
  EXPECT_TRUE(k->applies_to("2.0.0"));
  EXPECT_FALSE(k->applies_to("2.1.0"));
  EXPECT_FALSE(k->applies_to("1.1.0"));
  EXPECT_FALSE(k->applies_to("1.130.0"));
  EXPECT_TRUE(find_known_divergence("everywhere", list)->applies_to("9.9"));
  EXPECT_EQ(find_known_divergence("missing", list), nullptr);
}

// Entries for what a failed call leaves behind (S10) name the failure, and
// the meta-kernel entry for set_ the device: the same field differing after
// a call that succeeded, or on real tensors, is a finding. Until 2026-12-03
// the three entries matched the op and field alone, so any sizes or strides
// divergence after a resize_, add_out or mul_out, and any storage_nbytes
// divergence after a set_ on CPU, counted as expected.
TEST(KnownDivergences, FailedCallAndMetaEntriesNeedTheirContext) {
  auto mismatch = [](const char* field, VarId var, const char* a, const char* b) {
    Mismatch m;
    m.field = field;
    m.var = var;
    m.a = a;
    m.b = b;
    return m;
  };
  Mismatch m = mismatch("sizes", 0, "[]", "[1, 3]");
  EXPECT_EQ(match_known_divergence("resize_", m, "1.13.0"), nullptr);
  m.error_a = m.error_b = "Trying to resize storage that is not resizable";
  const KnownDivergence* k = match_known_divergence("resize_", m, "1.13.0");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "resize-nonresizable-not-atomic-1.13");
  EXPECT_EQ(match_known_divergence("resize_", m, "2.4.0"), nullptr);  // 1.13 only

  Mismatch o = mismatch("rank", 0, "3", "9");
  EXPECT_EQ(match_known_divergence("add_out", o, "1.13.0"), nullptr);
  o.error_b = "as_strided: Negative strides are not supported at the moment, got strides: [-8]";
  k = match_known_divergence("add_out", o, "1.13.0");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "out-restride-not-atomic-1.13");

  Mismatch n = mismatch("storage_nbytes", 2, "48", "16");
  EXPECT_EQ(match_known_divergence("set_", n, "1.13.0"), nullptr);
  n.on_meta = true;
  k = match_known_divergence("set_", n, "1.13.0");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "meta-set-sets-nbytes-1.13");
  // 1.13's set_ shrinks a meta storage; more bytes on LibTorch's side is a finding.
  Mismatch grown = mismatch("storage_nbytes", 2, "16", "48");
  grown.on_meta = true;
  EXPECT_EQ(match_known_divergence("set_", grown, "1.13.0"), nullptr);

  // The unchecked meta kernels raise nothing where the reference raises its
  // check's error; LibTorch raising something else on a meta input is a finding.
  auto entry = [&](const char* op, const std::string& ref, const std::string& torch) {
    const KnownDivergence* hit =
        match_known_divergence(op, mismatch("error", kNoVar, ref.c_str(), torch.c_str()), "1.13.0");
    return hit ? std::string(hit->id) : std::string("none");
  };
  const std::string fill =
      "scalar_overflow (value cannot be converted to type float without overflow [meta])";
  EXPECT_EQ(entry("fill_", fill, "none"), "meta-fill-unchecked-1.13");
  EXPECT_EQ(entry("fill_", fill, "invalid_argument (fill_ only supports 0-dimension value tensor)"),
            "none");
  const std::string copy =
      "shape_mismatch (The size of tensor a (3) must match the size of tensor b (4) at "
      "non-singleton dimension 1 [meta])";
  EXPECT_EQ(entry("copy_", copy, "none"), "meta-copy-unchecked-1.13");
  EXPECT_EQ(entry("copy_", "none", copy), "none");  // the reference raised nothing
  const std::string overflow =
      "storage_size_overflow (Storage size calculation overflowed with sizes=[4, 3, 3] and "
      "strides=[4611686018427387904, 0, 0] [meta])";
  EXPECT_EQ(entry("as_strided", overflow, "none"), "meta-as-strided-overflow-unchecked-1.13");
  // Past the skipped check, LibTorch's bounds check of the wrapped size
  // (views.errors_agree, seed 2019).
  EXPECT_EQ(entry("as_strided", overflow,
                  "out_of_bounds (torch: setStorage: sizes [4], strides [4611686018427387904], "
                  "storage offset 0, and itemsize 4 requiring a storage size of 4 are out of "
                  "bounds for storage of size 0)"),
            "meta-as-strided-overflow-unchecked-1.13");
  // An internal assert instead is the SymInt entry's, not this one's.
  EXPECT_EQ(entry("as_strided", overflow, "other (torch: Expected !is_symbolic() to be true)"),
            "symint-range-assert-1.13");
  EXPECT_EQ(entry("as_strided", "dim_out_of_range (Dimension out of range [meta])", "none"),
            "none");

  // PyTorch's memo keeps view bases: it holds more tensors than the
  // reference's (the second backend's count is larger), never fewer; a
  // sparse tensor kept alive by its values() (a view of it in 1.13) too.
  auto memo_only_larger_in_pytorch = [&](const char* op, const char* ref, const char* py) {
    Mismatch m = mismatch("fake_memo", kNoVar, ref, py);
    const KnownDivergence* hit = match_known_divergence(op, m, "1.13.0", /*with_pytorch=*/true);
    EXPECT_TRUE(hit && hit->id == "pytorch-memo-keeps-view-bases") << ref << " vs " << py;
    std::swap(m.a, m.b);
    EXPECT_EQ(match_known_divergence(op, m, "1.13.0", /*with_pytorch=*/true), nullptr);
  };
  memo_only_larger_in_pytorch("memo_stats", "1 tensors, 1 storages (0 pending), 0 sparse",
                              "2 tensors, 1 storages (0 pending), 0 sparse");
  memo_only_larger_in_pytorch("sweep", "0 tensors, 0 storages (0 pending), 0 sparse",
                              "0 tensors, 0 storages (0 pending), 1 sparse");

  // from_meta_and_device's memo gives an earlier variable's fake: PyTorch's
  // identity class is below the reference's, never above.
  const KnownDivergence* memo_hit = match_known_divergence(
      "fake_from_meta", mismatch("identity_class", 3, "t#3", "t#1"), "1.13.0", true);
  EXPECT_TRUE(memo_hit && memo_hit->id == "pytorch-fake-from-meta-memoized");
  EXPECT_EQ(match_known_divergence("fake_from_meta", mismatch("identity_class", 3, "t#1", "t#3"),
                                   "1.13.0", true),
            nullptr);

  // Its pending list keeps storages the reference dropped; a storage it
  // keeps that is not pending is a leak (F3), a finding.
  Mismatch pending = mismatch("fake_memo", kNoVar, "0 tensors, 0 storages (0 pending), 0 sparse",
                              "0 tensors, 1 storages (1 pending), 0 sparse");
  k = match_known_divergence("memo_stats", pending, "1.13.0", /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-storage-pending-after-its-tensor-1.13");
  pending.b = "0 tensors, 1 storages (0 pending), 0 sparse";
  EXPECT_EQ(match_known_divergence("memo_stats", pending, "1.13.0", /*with_pytorch=*/true),
            nullptr);

  // LibTorch 1.13's to(kMeta) of a COO tensor is a new empty one: only its
  // values (nnz 0, dense_dim 0, coalesced, sparse_dim the rank) match.
  k = match_known_divergence("to_meta", mismatch("nnz", 1, "4", "0"), "1.13.0");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "to-meta-sparse-coo-empty-1.13");
  EXPECT_EQ(match_known_divergence("to_meta", mismatch("nnz", 1, "4", "3"), "1.13.0"), nullptr);
  EXPECT_NE(match_known_divergence("to_meta", mismatch("sparse_dim", 1, "1", "2"), "1.13.0"),
            nullptr);
  EXPECT_EQ(match_known_divergence("to_meta", mismatch("sparse_dim", 1, "2", "1"), "1.13.0"),
            nullptr);
  EXPECT_EQ(match_known_divergence("to_meta", mismatch("coalesced", 1, "coalesced", "uncoalesced"),
                                   "1.13.0"),
            nullptr);
  // PyTorch's MetaConverter gives a COO tensor nnz 0, on either side.
  EXPECT_NE(match_known_divergence("meta", mismatch("nnz", 1, "0", "4"), "1.13.0", true), nullptr);
  EXPECT_NE(match_known_divergence("meta", mismatch("nnz", 1, "4", "0"), "1.13.0", true), nullptr);
  EXPECT_EQ(match_known_divergence("meta", mismatch("nnz", 1, "4", "2"), "1.13.0", true), nullptr);
}

// The runner's mismatch carries that context: the step's error message in
// each backend and whether the differing variable is meta.
TEST(KnownDivergences, TheRunnersMismatchCarriesTheStepErrorsAndTheDevice) {
  auto a = make_reference_backend();
  {
    SkewedBackend b(4);  // t1's strides, after the failed resize_
    Runner r({a.get(), &b}, Limits{});
    Program p =
        parse_ok("t0 = arange [3] f32\nt1 = view t0 [3]\nset_nonresizable t1\nresize_ t1 [9]\n");
    RunReport rep = r.run(p);
    ASSERT_TRUE(rep.diverged);
    EXPECT_EQ(rep.divergence.step, 4);
    EXPECT_EQ(rep.divergence.mismatch.field, "strides");
    EXPECT_EQ(rep.divergence.mismatch.error_a, "Trying to resize storage that is not resizable");
    EXPECT_EQ(rep.divergence.mismatch.error_b, rep.divergence.mismatch.error_a);
    EXPECT_FALSE(rep.divergence.mismatch.on_meta);
  }
  {
    SkewedBackend b(3);  // t1, a meta tensor, at a step that succeeds
    Runner r({a.get(), &b}, Limits{});
    Program p = parse_ok("t0 = arange [3] f32\nt1 = meta t0\nt2 = view t1 [3]\n");
    RunReport rep = r.run(p);
    ASSERT_TRUE(rep.diverged);
    EXPECT_EQ(rep.divergence.step, 3);
    EXPECT_EQ(rep.divergence.mismatch.var, 1);
    EXPECT_TRUE(rep.divergence.mismatch.on_meta);
    EXPECT_EQ(rep.divergence.mismatch.error_a, "");
  }
}

TEST(KnownDivergences, ShippedListHasUniqueIdsAndReasons) {
  const auto& list = known_divergences();
  for (size_t i = 0; i < list.size(); ++i) {
    EXPECT_FALSE(list[i].reason.empty()) << list[i].id;
    for (size_t j = i + 1; j < list.size(); ++j) EXPECT_NE(list[i].id, list[j].id);
  }
}

}  // namespace
}  // namespace storcheck
