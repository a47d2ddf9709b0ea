// Tests of the PyTorch backend (python_backend.h): PyTorch 1.13 through
// embedded CPython, against storcheck's LibTorch backend (eager) and the
// reference (PyTorch's FakeTensorConverter and MetaConverter, group F).
// Built as `pytorch_test` (ctest label `pytorch`); every test skips, with
// the reason CMake or the import gave, when the backend is absent.
#include <gtest/gtest.h>
#include <sys/resource.h>
#if STORCHECK_HAVE_PYTHON
#include <Python.h>
#endif

#include <array>
#include <string>

#include "harness/properties.h"
#include "impl/fault.h"
#include "oracles/known_divergences.h"
#include "oracles/python_backend.h"
#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

/// The process's PyTorch backend and LibTorch backend (null when absent).
struct Backends {
  std::unique_ptr<Backend> pytorch, torch, reference;
  std::string why;
  Backends() {
    pytorch = make_python_backend(&why);
    torch = make_torch_cpu_backend();
    reference = make_reference_backend();
  }
};

Backends& backends() {
  static Backends b;
  return b;
}

#define SKIP_WITHOUT_PYTORCH()                                                           \
  do {                                                                                   \
    if (!backends().pytorch) GTEST_SKIP() << "no PyTorch backend: " << backends().why;   \
    if (!backends().torch) GTEST_SKIP() << "no LibTorch backend: built without LibTorch"; \
  } while (0)

Program parse(const std::string& text) {
  ParseResult r = parse_program(text);
  EXPECT_TRUE(r.ok()) << r.error.to_string();
  return r.program;
}

RunReport run(const Program& p, std::vector<Backend*> list) {
  Runner runner(std::move(list), Limits{});
  return runner.run(p, /*keep_trace=*/true);
}

// Each program runs to its end on both backends with no divergence and no
// refusal: the observations (sizes, strides, offsets, dtypes, nbytes, alias
// and identity classes, versions, values, errors) are equal after every step.
TEST(PytorchBackend, HandWrittenProgramsObserveLikeLibTorch) {
  SKIP_WITHOUT_PYTORCH();
  const char* programs[] = {
      // S3: views and writes through them; S2: shared version counters.
      "t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nadd_ t1 1.5\nt2 = select t0 1 2\n"
      "t3 = contiguous t1\nt4 = contiguous t3\nmul_ t2 2\nt5 = sum t0\n",
      // Errors classified alike: S6 view, S5 out of bounds, dim out of range.
      "t0 = rand [2,3] f64 7\nt1 = transpose t0 0 1\nt2 = view t1 [6]\nt3 = as_strided t0 [4] [2] 0\n"
      "t4 = select t0 5 0\nt5 = reshape t1 [6]\nt6 = to t5 i32\n",
      // R1: shrink keeps the geometry; every alias sees 0 bytes and a null pointer.
      "t0 = ones [4] i64\nt1 = narrow t0 0 1 2\nshrink t0\nt2 = zeros [2,2] u8\nfill_ t2 true\ndrop t1\n",
      // Meta tensors through LibTorch's to(kMeta) (F8).
      "t0 = arange [2,3] f32\nt1 = t t0\nt2 = to_meta t1\nt3 = to_meta t0\nt4 = add t2 1\n",
      // Note [Observing overlapping views]: views observed by distinct offsets.
      "t0 = arange [4] f32\nt1 = expand t0 [100000,1000,4]\nadd_ t0 1\n"
      "t2 = arange [700] i64\nt3 = as_strided t2 [300,300] [1,1] 3\nmul_ t2 3\n",
  };
  for (const char* text : programs) {
    Program p = parse(text);
    RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
    EXPECT_FALSE(rep.diverged) << text << rep.divergence.to_string(p);
    EXPECT_EQ(rep.refusal, "") << text;
    EXPECT_EQ(rep.steps_run, static_cast<int64_t>(p.steps.size())) << text;
  }
}

// The observed fields themselves, not only their agreement: fake tensors
// report the fake device cpu with a meta storage of the real nbytes (F1, F2).
TEST(PytorchBackend, FakeConversionKeepsMetadataAndSharesStorage) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = arange [2,3] f32\nt1 = transpose t0 0 1\nf0 = fake t1\nf1 = fake t0\n"
                    "f2 = fake t0\n");
  RunReport rep = run(p, {backends().pytorch.get()});
  ASSERT_EQ(rep.refusal, "");
  const Observation& o = rep.last.at(0);
  const VarObs& f0 = o.vars.at(2);
  EXPECT_TRUE(f0.fake);
  EXPECT_EQ(f0.device, Device::kCpu);
  EXPECT_EQ(f0.sizes[0], 3);
  EXPECT_EQ(f0.strides[0], 1);
  EXPECT_EQ(f0.strides[1], 3);
  EXPECT_EQ(f0.storage_nbytes, 24);
  EXPECT_EQ(o.vars.at(3).alias_class, 2);     // F2: one fake storage for t0 and its view
  EXPECT_EQ(o.vars.at(4).identity_class, 3);  // F2: the same live tensor, the same fake
  EXPECT_FALSE(f0.values_known);
}

// F3 with PyTorch 1.13's own memo: after the views and their fakes are
// dropped and gc.collect() runs, the entries of dead real tensors are gone.
TEST(PytorchBackend, FakeConversionGivesExpectedMemoStats) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = zeros [2,3] f32\nt1 = transpose t0 0 1\nf0 = fake t1\nf1 = fake t0\nmemo_stats\n"
      "drop f0\ndrop t1\nmemo_stats\ndrop f1\ndrop t0\nsweep\nmemo_stats\n");
  Runner runner({backends().pytorch.get()}, Limits{});
  RunReport rep = runner.run(p, true);
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.refusal, "");
  // Replay step by step to read the memo after each memo_stats.
  Backend& b = *backends().pytorch;
  b.begin(p, Limits{});
  std::vector<MemoStats> seen;
  for (const Step& s : p.steps) {
    ASSERT_EQ(b.run_step(s).kind, ErrorKind::kNone) << print_step(p, s);
    Observation o;
    b.observe(&o);
    std::string why;
    EXPECT_FALSE(b.take_refusal(&why)) << why;
    EXPECT_EQ(b.take_unsafe_finding(), "") << print_step(p, s);
    if (s.op == OpId::kMemoStats) {
      EXPECT_TRUE(o.memo_known);
      seen.push_back(o.fake_memo);
      EXPECT_EQ(o.meta_memo, MemoStats{}) << "no `meta` step ran";
    } else if (s.op != OpId::kSweep) {
      EXPECT_FALSE(o.memo_known) << "memos are observed at memo_stats and sweep only";
    }
  }
  ASSERT_EQ(seen.size(), 3u);
  // t1, t0 and t1's view base (zeros' result is t0 itself): two tensors
  // converted, one storage.
  EXPECT_EQ(seen[0].tensors, 2);
  EXPECT_EQ(seen[0].storages, 1);
  EXPECT_EQ(seen[0].pending, 0);
  // t1 died: its entry went; the storage lives on through t0.
  EXPECT_EQ(seen[1].tensors, 1);
  EXPECT_EQ(seen[1].storages, 1);
  // Every real tensor died and a sweep ran: the memo is empty (F3).
  EXPECT_EQ(seen[2], MemoStats{});
}

// A step PyTorch's Python API cannot express is refused with the op table's
// reason, and the Runner stops comparing there: no divergence, no failure.
TEST(PytorchBackend, InexpressibleStepIsRefusedNotCompared) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [2] f32\nshrink t0\nrehydrate\nt1 = clone t0\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged);
  EXPECT_NE(rep.refusal.find("step 3 (rehydrate): pytorch refused: the step expands from the "
                             "reference's state"),
            std::string::npos)
      << rep.refusal;
  EXPECT_EQ(rep.steps_run, 3);
}

// set_nonresizable runs in Python through numpy(), which marks a storage
// non-resizable for good (it was refused as inexpressible until 2026-12-03):
// a later resize past the storage fails as in LibTorch, and the tensor's
// version and data are untouched. Meta and fake inputs are refused (case 11).
TEST(PytorchBackend, SetNonresizableRunsThroughNumpy) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = arange [2,3] f32\nt1 = transpose t0 0 1\nset_nonresizable t1\nresize_ t0 [9]\n"
      "shrink t1\nt2 = clone t1\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  EXPECT_EQ(rep.refusal, "");
  ASSERT_EQ(rep.trace.size(), 6u);
  EXPECT_EQ(rep.trace[3].errors.at(0), ErrorKind::kNonResizable) << rep.trace[3].messages.at(0);
  EXPECT_EQ(rep.trace[4].errors.at(0), ErrorKind::kNonResizable) << rep.trace[4].messages.at(0);
  // A lazy clone keeps its source's flag (lazy_clone_storage): the stand-in too.
  Program c = parse(
      "t0 = arange [1] f32\nt1 = split t0 1 0 0\nset_nonresizable t0\nt2 = lazy_clone t1\n"
      "shrink t2\n");
  RunReport clone = run(c, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(clone.diverged) << clone.divergence.to_string(c);
  ASSERT_EQ(clone.trace.size(), 5u);
  EXPECT_EQ(clone.trace[4].errors.at(0), ErrorKind::kNonResizable) << clone.trace[4].messages.at(0);
  Program m = parse("t0 = zeros [2] f32\nt1 = meta t0\nset_nonresizable t1\n");
  RunReport meta = run(m, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_NE(meta.refusal.find("case 11: set_nonresizable of a meta or fake tensor"),
            std::string::npos)
      << meta.refusal;
}

// expand's -1 keeps an existing size and runs in Python (refused with every
// negative size until 2026-12-03: 6% of the pytorch.eager_matches_libtorch
// programs stopped there); in a new leading dim PyTorch raises as the other
// backends do, except on a 0-dim tensor, where LibTorch 1.13 reports a numel
// overflow: refused (case 5).
TEST(PytorchBackend, ExpandWithMinusOneRuns) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = zeros [2,3] f32\nt1 = expand t0 [-1,3]\nt2 = expand t0 [4,-1,-1]\n"
      "t3 = expand t0 [-1,2,3]\nt4 = zeros [] f32\nt5 = expand t4 [-1]\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.trace.size(), 6u);
  EXPECT_EQ(rep.trace[2].errors.at(0), ErrorKind::kNone) << rep.trace[2].messages.at(0);
  EXPECT_EQ(rep.trace[3].errors.at(0), ErrorKind::kInvalidArgument) << rep.trace[3].messages.at(0);
  EXPECT_NE(rep.refusal.find("step 6 (t5 = expand t4 [-1]): pytorch refused: case 5: expand's "
                             "size -1 at dim 0 on a tensor of 0 dims"),
            std::string::npos)
      << rep.refusal;
}

// A size below -1 is refused only where LibTorch would take it (a size-1 or
// new leading dim, expand_size_not_allowed); where ATen raises first (too
// few sizes, a mismatch in a later dim: it checks the dims from the last)
// the step runs and PyTorch raises as the other backends do (refused with
// every size below -1 until 2026-12-05).
TEST(PytorchBackend, ExpandBelowMinusOneIsRefusedOnlyWhereATenWouldTakeIt) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = zeros [4,3] f32\nt1 = expand t0 [-2,3,5]\nt2 = expand t0 [-3]\n"
      "t3 = expand t0 [2,-2]\nt4 = zeros [1,3] f32\nt5 = expand t4 [-2,3]\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.trace.size(), 6u);
  for (size_t k : {1u, 2u, 3u})
    EXPECT_EQ(rep.trace[k].errors.at(0), ErrorKind::kShapeMismatch)
        << "step " << k + 1 << ": " << rep.trace[k].messages.at(0);
  EXPECT_NE(rep.refusal.find("step 6 (t5 = expand t4 [-2,3]): pytorch refused: case 5: expand's "
                             "size -2 at dim 0 on a tensor of 2 dims"),
            std::string::npos)
      << rep.refusal;
}

// from_blob of 0 bytes holds a null data pointer (S1), in PyTorch's spelling
// too (it wrapped a numpy array, whose pointer is never null: the known
// divergence pytorch-from-blob-numpy-empty, gone with it).
TEST(PytorchBackend, FromBlobOfZeroBytesHoldsNull) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = from_blob [2,0] i32\nt1 = from_blob [3] f64\nresize_storage t1 32\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.last.size(), 2u);
  EXPECT_TRUE(rep.last[1].vars.at(0).data_null);
  EXPECT_FALSE(rep.last[1].vars.at(1).data_null);
  ASSERT_EQ(rep.trace.size(), 3u);
  EXPECT_EQ(rep.trace[2].errors.at(1), ErrorKind::kNonResizable) << rep.trace[2].messages.at(1);
}

// Note [Steps the PyTorch backend refuses] case 3: a clone of an emptied
// tensor is LibTorch-backend policy (R3), never run on plain PyTorch.
TEST(PytorchBackend, CloneOfEmptiedTensorIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = ones [3] f32\nshrink t0\nt1 = clone t0\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged);
  EXPECT_NE(rep.refusal.find("step 3 (t1 = clone t0): pytorch refused: case 3"), std::string::npos)
      << rep.refusal;
}

// A near-miss program runs on PyTorch and agrees with the LibTorch backend
// without a refusal; `refused` is refused with a reason containing `reason`.
void expect_near_miss_runs_and_refuses(const std::string& near, const std::string& refused,
                                       const std::string& reason) {
  Program ok_p = parse(near);
  RunReport ok = run(ok_p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(ok.diverged) << ok.divergence.to_string(ok_p);
  EXPECT_EQ(ok.refusal, "");
  Program p = parse(refused);
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged);
  EXPECT_NE(rep.refusal.find(reason), std::string::npos) << rep.refusal;
}

// Case 4: copy_, add_out and mul_out within one storage run where their
// operands are disjoint or overlap in a way LibTorch detects (a partial
// overlap raises alike), on real and fake tensors; only an overlap
// LibTorch does not detect (S8 in the other backends) is refused. Before,
// every such step was refused (650 of 2,000 PyTorch programs ended at a
// refusal).
TEST(PytorchBackend, WritesWithinOneStorageRunUnlessTheOverlapIsUndetected) {
  SKIP_WITHOUT_PYTORCH();
  const std::string rows = "t0 = arange [2,4] f32\nt1 = select t0 0 0\nt2 = select t0 0 1\n";
  // Contiguous and shifted by one: a partial overlap LibTorch detects.
  const std::string shifted = "t8 = view t0 [8]\nt3 = narrow t8 0 0 6\nt4 = narrow t8 0 2 6\n";
  expect_near_miss_runs_and_refuses(
      rows + "add_out t2 t1 1\ncopy_ t1 t2\nmul_out t1 t2 2\n" + shifted +
          "copy_ t3 t4\nmul_out t4 t3 2\nt5 = fake t0\nt6 = select t5 0 0\nt7 = select t5 0 1\n"
          "add_out t7 t6 1\ncopy_ t6 t7\n",
      rows + "t3 = select t0 1 0\ncopy_ t1 t3\n",  // a column into a row it crosses
      "step 5 (copy_ t1 t3): pytorch refused: case 4");
  expect_near_miss_runs_and_refuses(
      "t0 = full [3,3] true i64\nt1 = fake t0\nt2 = contiguous t1\nt3 = select t2 -1 2\n"
      "t4 = select t2 -1 0\nadd_out t4 t3 0\n",
      "t0 = full [3,3] true i64\nt1 = fake t0\nt2 = contiguous t1\nt3 = select t2 -1 2\n"
      "add_out t3 t1 0\n",
      "step 5 (add_out t3 t1 0): pytorch refused: case 4");
}

// Case 3 on steps with a fake input too: FakeTensorMode rejects a real
// input (device_mismatch alike in every backend) with an error whose text
// formats the real tensor's elements, which read past an emptied storage
// (a segfault at pytorch.memo_weak_no_leak seed 1912, program 6,259). Those
// steps are refused; with the real input's bytes in place they run.
TEST(PytorchBackend, FakeStepsWithAnEmptiedRealInputAreRefused) {
  SKIP_WITHOUT_PYTORCH();
  const std::string setup = "t0 = rand [3] f64 7\nt1 = fake t0\nt3 = clone t1\n";
  const std::string steps[] = {"copy_ t1 t0\n", "add_out t1 t0 1\n", "set_ t3 t0\n"};
  for (const std::string& step : steps)
    expect_near_miss_runs_and_refuses(setup + step, setup + "shrink t0\n" + step,
                                      "pytorch refused: case 3");
}

// Case 9: PyTorch 1.13's MetaConverter converts a view through its autograd
// base, which set_ does not change: a view that set_ moved to another
// storage would convert onto its old base's storage (found by
// pytorch.fake_matches_reference, seed 1603).
TEST(PytorchBackend, MetaOfAViewMovedBySetIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = arange [5,4] f64\nt1 = clone t0\nt2 = unsqueeze t0 0\nt3 = meta t2\n"
      "set_ t1 t0\nt4 = meta t1\n",
      "t0 = arange [5,4] f64\nt1 = clone t0\nt2 = unsqueeze t0 0\nset_ t2 t1\nt3 = meta t2\n",
      "step 5 (t3 = meta t2): pytorch refused: case 9");
}

// Case 10: PyTorch's converters build later views of a real tensor from its
// memoized conversion, so set_ on that conversion redirects them (found by
// pytorch.fake_matches_reference, seed 1604).
TEST(PytorchBackend, SetOfAMemoizedConversionIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = zeros [2] f32\nt1 = meta t0\nt2 = mul t1 2\nset_ t2 t1\nt3 = narrow t0 0 1 1\n"
      "t4 = meta t3\n",
      "t0 = zeros [2] f32\nt1 = meta t0\nt2 = mul t1 2\nset_ t1 t2\nt3 = narrow t0 0 1 1\n"
      "t4 = meta t3\n",
      "step 4 (set_ t1 t2): pytorch refused: case 10");
}

// Case 7: a chunk or split whose own index arithmetic overflows int64 is
// undefined behaviour in PyTorch's C++ (S8).
TEST(PytorchBackend, ChunkWithOverflowingArithmeticIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = zeros [1] f32\nt1 = expand t0 [4611686018427387904]\n"
      "t2 = chunk t1 1 0 0\nt3 = split t1 4611686018427387904 0 0\n",
      "t0 = zeros [1] f32\nt1 = expand t0 [9223372036854775807]\nt2 = chunk t1 1 0 0\n",
      "step 3 (t2 = chunk t1 1 0 0): pytorch refused: case 7");
}

// Case 7 only when PyTorch reaches the overflowing piece: piece 0 of a
// tensor with a wrapped negative stride raises in as_strided first.
TEST(PytorchBackend, ChunkStopsAtThePieceThatRaises) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = rand [0,3,4611686018427387904] i32 3\nt1 = chunk t0 2 1 0\nt2 = split t0 2 1 1\n",
      "t0 = full [1,3,0] 1 f32\nt1 = as_strided t0 [3,0] [4611686018427387904,1] 0\n"
      "t2 = chunk t1 2 0 0\n",
      "step 3 (t2 = chunk t1 2 0 0): pytorch refused: case 7");
}

// Case 7 for slice and narrow: offset, size or stride arithmetic past int64.
TEST(PytorchBackend, SliceWithOverflowingArithmeticIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = zeros [2,3] f32\nt1 = slice t0 1 0 2 9223372036854775806\n"
      "t2 = as_strided t0 [3,0] [4611686018427387904,1] 0\nt3 = narrow t2 0 1 1\n",
      "t0 = zeros [2,3] f32\nt1 = as_strided t0 [3,0] [4611686018427387904,1] 0\n"
      "t2 = narrow t1 0 2 1\n",
      "step 3 (t2 = narrow t1 0 2 1): pytorch refused: case 7");
}

// view_dtype: case 7, a scaling to a smaller item that overflows int64
// (2^60 * 8; 2^59 * 8 runs), and case 8, a wrapped negative stride, which
// set_sizes_and_strides would recompute with an overflowing multiply
// (zeros [0,3,2^62] i32 has stride -2^62 at dim 0; [0,3,2^61] none).
TEST(PytorchBackend, ViewDtypeOfOverflowingScalingOrWrappedStrideIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = arange [1] i64\nt1 = as_strided t0 [1,1] [576460752303423488,1] 0\n"
      "t2 = view_dtype t1 u8\n",
      "t0 = arange [1] i64\nt1 = as_strided t0 [1,1] [1152921504606846976,1] 0\n"
      "t2 = view_dtype t1 u8\n",
      "step 3 (t2 = view_dtype t1 u8): pytorch refused: case 7");
  expect_near_miss_runs_and_refuses(
      "t0 = zeros [0,3,2305843009213693952] i32\nt1 = view_dtype t0 i64\n",
      "t0 = zeros [0,3,4611686018427387904] i32\nt1 = view_dtype t0 i64\n",
      "step 2 (t1 = view_dtype t0 i64): pytorch refused: case 8");
}

// Case 1: a resize_ whose (numel + offset) * itemsize overflows, 0 elements
// too. PyTorch 1.13 raises only after setting the new sizes (S10).
TEST(PytorchBackend, ResizeWithOverflowingStorageSizeIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = zeros [2,3] f32\nt1 = as_strided t0 [0] [1] 2305843009213693951\nresize_ t1 [2,1,0]\n",
      "t0 = zeros [2,3] f32\nt1 = as_strided t0 [0] [1] 4611686018427387904\nresize_ t1 [2,1,0]\n",
      "step 3 (resize_ t1 [2,1,0]): pytorch refused: case 1");
}

// Case 1: transpose_ and as_strided_ to sizes whose numel overflows before
// a size-0 dim: PyTorch 1.13 sets the sizes, then raises (S10).
TEST(PytorchBackend, InplaceViewWithOverflowingNumelIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = full [9223372036854775807,0,3] 1 f32\ntranspose_ t0 1 0\n",
      "t0 = full [9223372036854775807,0,3] 1 f32\ntranspose_ t0 -1 1\n",
      "step 2 (transpose_ t0 -1 1): pytorch refused: case 1");
  expect_near_miss_runs_and_refuses(
      "t0 = full [9223372036854775807,0,3] 1 f32\n"
      "as_strided_ t0 [0,9223372036854775807,3] [1,1,1] 0\n",
      "t0 = full [9223372036854775807,0,3] 1 f32\n"
      "as_strided_ t0 [9223372036854775807,3,0] [3,1,3] 0\n",
      "step 2 (as_strided_ t0 [9223372036854775807,3,0] [3,1,3] 0): pytorch refused: case 1");
}

// Case 1: converting a 0-element input to a compressed layout allocates an
// int64 index of the plain dim's positions in 1.13 (Note [The plain index of
// an empty input], impl/sparse.cpp): past the limits it is refused, as the
// other backends raise resource_limit for it.
TEST(PytorchBackend, PlainIndexOfEmptyInputPastLimitsIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  expect_near_miss_runs_and_refuses(
      "t0 = full [1,0,65536] 2 f32\nt1 = to_sparse_bsr t0 [1,2]\n",
      "t0 = full [1,0,1048576] 2 f32\nt1 = to_sparse_bsr t0 [1,2]\n",
      "step 2 (t1 = to_sparse_bsr t0 [1,2]): pytorch refused: case 1");
  expect_near_miss_runs_and_refuses("t0 = full [65536,0] 2 f32\nt1 = to_sparse_csc t0\n",
                                    "t0 = full [1048576,0] 2 f32\nt1 = to_sparse_csc t0\n",
                                    "step 2 (t1 = to_sparse_csc t0): pytorch refused: case 1");
}

// F4: PyTorch 1.13's FakeTensorConverter takes a meta tensor and fails on
// an assert (AssertionError, kOther) where the reference raises the typed
// unsupported_fake_tensor.
TEST(PytorchBackend, FakeOfMetaIsAnAssertionNotATypedError) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [2] f32\nt1 = to_meta t0\nf0 = fake t1\n");
  Backend& b = *backends().pytorch;
  b.begin(p, Limits{});
  ASSERT_EQ(b.run_step(p.steps[0]).kind, ErrorKind::kNone);
  ASSERT_EQ(b.run_step(p.steps[1]).kind, ErrorKind::kNone);
  Error e = b.run_step(p.steps[2]);
  EXPECT_EQ(e.kind, ErrorKind::kOther);
  EXPECT_NE(e.message.find("AssertionError"), std::string::npos) << e.message;
}

// F3 on PyTorch 1.13 itself: dropping a converted view, its base and its
// fake, then a sweep, leaves an empty memo and nothing alive (no finding). With the
// planted strong reference (Fault::kMemoStrongRef) the same program is a
// memo_leak finding that names the kept real tensor.
TEST(PytorchBackend, MemoLeakCheckIsCleanAndCatchesAPlantedStrongReference) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [2] f32\nt1 = narrow t0 0 0 1\nf0 = fake t1\ndrop f0\n"
                    "drop t1\ndrop t0\nsweep\nmemo_stats\n");
  RunReport clean = run(p, {backends().pytorch.get()});
  EXPECT_FALSE(clean.diverged) << clean.divergence.to_string(p);
  EXPECT_EQ(clean.last.at(0).fake_memo, MemoStats{});
#ifdef STORCHECK_FAULT_INJECTION
  ASSERT_TRUE(set_active_fault(Fault::kMemoStrongRef));
  RunReport leak = run(p, {backends().pytorch.get()});
  set_active_fault(Fault::kNone);
  ASSERT_TRUE(leak.diverged);
  EXPECT_EQ(leak.divergence.step, 7);  // the sweep, which observes the memos too
  EXPECT_EQ(leak.divergence.mismatch.field, "memo_leak");
  EXPECT_NE(leak.divergence.mismatch.b.find("1 converted real tensors alive with no variable"),
            std::string::npos)
      << leak.divergence.mismatch.b;
#endif
}

// The property path (reference vs PyTorch, as pytorch.fake_matches_reference
// runs it) explains that divergence with its known-divergence entry.
TEST(PytorchBackend, FakeOfMetaMatchesItsKnownDivergence) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [2] f32\nt1 = to_meta t0\nf0 = fake t1\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 3);
  EXPECT_EQ(rep.divergence.mismatch.field, "error");
  const KnownDivergence* k = match_known_divergence(
      "fake", rep.divergence.mismatch.field, rep.divergence.mismatch.a, rep.divergence.mismatch.b,
      pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr) << rep.divergence.to_string(p);
  EXPECT_EQ(k->id, "pytorch-fake-meta-device-assert-1.13");
  // Note [FakeTensor's device asserts]: the backend labels this assert; an
  // AssertionError it did not label (another assert) is a finding.
  const std::string& b = rep.divergence.mismatch.b;
  EXPECT_EQ(b,
            "other (pytorch: AssertionError: FakeTensor's device assert (Note [FakeTensor's "
            "device asserts]): )");
  EXPECT_EQ(match_known_divergence("fake", "error", rep.divergence.mismatch.a,
                                   "other (pytorch: AssertionError: )", pytorch_version(), true),
            nullptr);
  // The other two steps the asserts refuse are labelled too.
  for (const char* text : {"t0 = zeros [2] f32\nt1 = fake t0\nt2 = to_meta t1\n",
                           "t0 = zeros [2] f32\nt1 = fake_from_meta t0\n"}) {
    Program q = parse(text);
    RunReport r = run(q, {backends().reference.get(), backends().pytorch.get()});
    ASSERT_TRUE(r.diverged) << text;
    EXPECT_NE(r.divergence.mismatch.b.find("AssertionError: FakeTensor's device assert"),
              std::string::npos)
        << r.divergence.to_string(q);
    const KnownDivergence* kq = match_known_divergence(
        op_info(q.steps.back().op).name, r.divergence.mismatch, pytorch_version(), true);
    ASSERT_NE(kq, nullptr) << r.divergence.to_string(q);
    EXPECT_EQ(kq->id, "pytorch-fake-meta-device-assert-1.13");
  }
}

// Found by pytorch.fake_matches_reference (--seed 777): a meta tensor that
// fake_from_meta converted is in the FakeTensorConverter's memo, so `fake` of
// it gives that fake back instead of the AssertionError above.
TEST(PytorchBackend, FakeOfAMemoizedMetaMatchesItsKnownDivergence) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = arange [] f32\nt1 = meta t0\nt2 = fake_from_meta t1\nt3 = fake t1\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 4);
  EXPECT_EQ(rep.divergence.mismatch.field, "error");
  EXPECT_EQ(rep.divergence.mismatch.b, "none");
  const KnownDivergence* k =
      match_known_divergence("fake", rep.divergence.mismatch.field, rep.divergence.mismatch.a,
                             rep.divergence.mismatch.b, pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr) << rep.divergence.to_string(p);
  EXPECT_EQ(k->id, "pytorch-fake-of-memoized-meta-1.13");
}

// A finding, recorded as an upstream bug: PyTorch 1.13's MetaConverter gives
// an emptied tensor (R2) a fake storage sized to the tensor's extent (set_
// grows the 0-byte meta storage), where F2 wants a 0-byte fake storage. The
// entry is PyTorch's: a LibTorch comparison never matches it.
TEST(PytorchBackend, EmptiedStorageGetsANonZeroFakeStorage) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = ones [3] f32\nshrink t0\nf0 = fake t0\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 3 (f0 = fake t0): storage_nbytes of f0: reference 0 vs pytorch 12");
  // Note [Meta storages sized by set_]: the backend noted both byte counts.
  const Mismatch& m = rep.divergence.mismatch;
  EXPECT_EQ(m.note_b,
            "meta storage sized by set_: 12 bytes where F2 keeps 0 (Note [Meta storages "
            "sized by set_])");
  const KnownDivergence* k = match_known_divergence("fake", m, pytorch_version(), true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-meta-set-resizes-storage-1.13");
  EXPECT_EQ(match_known_divergence("fake", m, pytorch_version()), nullptr);
  // Without the note, or with other counts on either side, it is a finding.
  Mismatch unnoted = m;
  unnoted.note_b.clear();
  EXPECT_EQ(match_known_divergence("fake", unnoted, pytorch_version(), true), nullptr);
  Mismatch other_bytes = m;
  other_bytes.b = "8";
  EXPECT_EQ(match_known_divergence("fake", other_bytes, pytorch_version(), true), nullptr);
  Mismatch other_real = m;
  other_real.a = "4";
  EXPECT_EQ(match_known_divergence("fake", other_real, pytorch_version(), true), nullptr);
}

// The same bug where the tensor does not reach its storage's end: after
// as_strided_, the conversion's set_ gives the meta storage t0's extent (8
// bytes) where F2 keeps the real 32. (zeros, not arange: PyTorch's spelling
// of arange is a view, whose base the MetaConverter converts first.)
TEST(PytorchBackend, ATensorShortOfItsStorageEndGetsASmallerFakeStorage) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [8] f32\nas_strided_ t0 [2] [1] 0\nt1 = meta t0\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 3 (t1 = meta t0): storage_nbytes of t1: reference 32 vs pytorch 8");
  const KnownDivergence* k =
      match_known_divergence("meta", rep.divergence.mismatch, pytorch_version(), true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-meta-set-resizes-storage-1.13");
}

// Note [Observing a sparse variable]: a sparse program (every layout,
// accessors, a write through values(), to_dense, coalesce, sparse_coo_tensor
// and a fake of a COO variable) runs to its end with the LibTorch backend's
// observations after every step; the PyTorch backend's own fields are the
// F4 metadata with no storage.
TEST(PytorchBackend, SparseProgramObservesLikeLibTorch) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = arange [3,4] f32\nt1 = to_sparse_coo t0 1\nt2 = values t1\nadd_ t2 1\n"
      "t3 = to_dense t1\nt4 = to_sparse_csr t0\nt5 = crow_indices t4\nt6 = to_sparse_bsc t0 [1,2]\n"
      "t7 = row_indices t6\nt8 = coalesce t1\nt9 = indices t1\nt10 = arange [1,3] i64\n"
      "t11 = ones [3,2] f32\nt12 = sparse_coo_tensor t10 t11 [3,2]\nt13 = to_dense t12\n"
      "t14 = to_sparse_csc t0\nt15 = values t14\nf0 = fake t1\ndrop t1\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  EXPECT_EQ(rep.refusal, "");
  ASSERT_EQ(rep.steps_run, static_cast<int64_t>(p.steps.size()));
  const Observation& o = rep.last.at(0);
  const VarObs& coo = o.vars.at(12);  // t12: sparse_coo_tensor, uncoalesced
  EXPECT_EQ(coo.layout, Layout::kSparseCoo);
  EXPECT_EQ(coo.sparse_dim, 1);
  EXPECT_EQ(coo.dense_dim, 1);
  EXPECT_EQ(coo.nnz, 3);
  EXPECT_FALSE(coo.coalesced);
  EXPECT_EQ(coo.storage_nbytes, -1);
  EXPECT_EQ(coo.alias_class, -1);
  EXPECT_FALSE(coo.version_known);
  EXPECT_TRUE(coo.values_known);
  EXPECT_EQ(coo.values.size(), 24u);  // to_dense: 3 x 2 f32
  const VarObs& bsc = o.vars.at(6);
  EXPECT_EQ(bsc.layout, Layout::kSparseBsc);
  EXPECT_EQ(bsc.blocksize, (std::array<int64_t, 2>{1, 2}));
  EXPECT_EQ(bsc.index_dtype, DType::kI64);
}

// F4 in PyTorch 1.13's own converter: a fake of a COO variable keeps the
// sizes, the sparse/dense dims split and the coalesced flag, with nnz 0
// (meta_utils.py), and the same live tensor converts to the same fake (F2).
TEST(PytorchBackend, FakeOfCooKeepsDimsSplitWithNnzZero) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 1\nf0 = fake t1\nf1 = fake t1\n");
  RunReport rep = run(p, {backends().pytorch.get()});
  ASSERT_EQ(rep.refusal, "");
  ASSERT_EQ(rep.steps_run, 4);
  const Observation& o = rep.last.at(0);
  EXPECT_EQ(o.vars.at(1).nnz, 2);
  const VarObs& f0 = o.vars.at(2);
  EXPECT_EQ(f0.layout, Layout::kSparseCoo);
  EXPECT_TRUE(f0.fake);
  EXPECT_EQ(f0.device, Device::kCpu);  // F1: the fake device
  EXPECT_EQ(f0.rank, 2);
  EXPECT_EQ(f0.sizes[0], 2);
  EXPECT_EQ(f0.sizes[1], 3);
  EXPECT_EQ(f0.sparse_dim, 1);
  EXPECT_EQ(f0.dense_dim, 1);
  EXPECT_EQ(f0.nnz, 0);
  EXPECT_TRUE(f0.coalesced);
  EXPECT_FALSE(f0.values_known);
  EXPECT_EQ(o.vars.at(3).identity_class, 2);  // F2
}

// Case 6 of Note [Steps the PyTorch backend refuses]: after a write through
// indices() leaves indices out of range, to_dense would index memory with
// them unchecked; PyTorch refuses it before it runs (the LibTorch backend
// reports S8), and neither backend reads the sparse variable's values.
TEST(PytorchBackend, ToDenseAfterIndicesWriteIsRefused) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nt2 = indices t1\n"
      "fill_ t2 9\nt3 = to_dense t1\n");
  RunReport rep = run(p, {backends().pytorch.get(), backends().torch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  EXPECT_NE(rep.refusal.find("step 5 (t3 = to_dense t1): pytorch refused: case 6"),
            std::string::npos)
      << rep.refusal;
  EXPECT_EQ(rep.steps_run, 5);  // the refused step counts
}

// PyTorch 1.13 converts no compressed sparse tensor: the fake of a CSR
// variable raises UnsupportedFakeTensorException where the reference converts
// it (F4); the property path explains it with its known divergence.
TEST(PytorchBackend, FakeOfCsrIsTheKnownCompressedDivergence) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = arange [2,3] f32\nt1 = to_sparse_csr t0\nf0 = fake t1\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 3);
  EXPECT_EQ(rep.divergence.mismatch.field, "error");
  EXPECT_NE(rep.divergence.mismatch.b.find("unsupported_fake_tensor"), std::string::npos)
      << rep.divergence.to_string(p);
  const KnownDivergence* k =
      match_known_divergence("fake", rep.divergence.mismatch.field, rep.divergence.mismatch.a,
                             rep.divergence.mismatch.b, pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr) << rep.divergence.to_string(p);
  EXPECT_EQ(k->id, "pytorch-meta-sparse-compressed-1.13");
}

// `meta` of a COO variable: PyTorch's MetaConverter gives nnz 0 where the
// reference's faithful meta keeps nnz; the known divergence names it, and
// no other field differs before it.
TEST(PytorchBackend, MetaOfCooIsTheKnownNnzDivergence) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = arange [2,3] f32\nt1 = to_sparse_coo t0 2\nm0 = meta t1\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 3 (m0 = meta t1): nnz of m0: reference 5 vs pytorch 0");
  const KnownDivergence* k =
      match_known_divergence("meta", "nnz", rep.divergence.mismatch.a, rep.divergence.mismatch.b,
                             pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-meta-sparse-coo-nnz-0-1.13");
  EXPECT_EQ(
      match_known_divergence("fake", "nnz", rep.divergence.mismatch.a, rep.divergence.mismatch.b,
                             pytorch_version(), /*with_pytorch=*/true),
      nullptr);
}

/// Minor page faults of this process so far (each a page touched for the first time).
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Found by pytorch.memo_weak_no_leak (seed 1920, 44 s and 16 GiB for one
// step): lazy_clone's stand-in for PyTorch before 2.3 (oracles/spelling.cpp)
// zero-filled a CPU buffer of the input's extent before it found that a fake
// input's storage is a meta one, which set_ refuses: a fake resized to
// [4294967296, 2] had it fill 16 GiB. The stand-in now takes the input's
// bytes with set_ first, which refuses the meta storage before anything is
// allocated; the step still fails as before (the known divergence
// pytorch-lazy-clone-standin-pre-2.3), having touched nothing.
TEST(PytorchBackend, LazyCloneOfALargeFakeAllocatesNothing) {
  SKIP_WITHOUT_PYTORCH();
  // 256 MiB of fake bytes: 65,536 pages had the stand-in zero-filled them.
  Program p =
      parse("t0 = zeros [5] u8\nt1 = fake t0\nresize_ t1 [268435456]\nt2 = lazy_clone t1\n");
  const long before = minor_faults();
  RunReport rep = run(p, {backends().pytorch.get()});
  const long faults = minor_faults() - before;
  ASSERT_EQ(rep.trace.size(), 4u);
  EXPECT_EQ(rep.trace[2].errors.at(0), ErrorKind::kNone);  // the fake's resize_ allocates nothing
  EXPECT_NE(rep.trace[3].errors.at(0), ErrorKind::kNone) << rep.trace[3].messages.at(0);
  EXPECT_NE(rep.trace[3].messages.at(0).find("meta"), std::string::npos)
      << rep.trace[3].messages.at(0);
  EXPECT_LT(faults, 16384) << "the stand-in touched " << faults << " pages";
}

// lazy_clone's stand-in for PyTorch before 2.3 (oracles/spelling.cpp) built
// its copy with set_, at version 1 where _lazy_clone's result starts at 0
// (C1), so the known divergence pytorch-lazy-clone-standin-pre-2.3 ended
// the comparison of every program at its first lazy_clone (1,552 of 10,000
// pytorch.eager_matches_libtorch programs). The copy is now a detached view
// of a fresh tensor, at version 0, and the comparison goes on: a clone of a
// transposed slice, written, and the source written after it.
TEST(PytorchBackend, LazyCloneStandInMatchesTheReference) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = arange [3,4] f32\nt1 = transpose t0 0 1\nt2 = slice t1 0 1 4 2\n"
      "t3 = lazy_clone t2\nadd_ t3 1\nmul_ t0 2\nt4 = lazy_clone t0\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  EXPECT_TRUE(rep.refusal.empty()) << rep.refusal;
  EXPECT_EQ(rep.steps_run, 7);
}

// The stand-in's C7 error (a from_blob storage) is invalid_argument, as the
// reference's and the LibTorch backend's: it was "other", and the known
// divergence above, which matched any error, hid it.
TEST(PytorchBackend, LazyCloneOfAForeignStorageIsInvalidArgument) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = from_blob [3] f32\nt1 = lazy_clone t0\n");
  RunReport rep = run(p, {backends().torch.get(), backends().pytorch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.trace.size(), 2u);
  EXPECT_EQ(rep.trace[1].errors.at(1), ErrorKind::kInvalidArgument) << rep.trace[1].messages.at(1);
}

// Found by pytorch.fake_matches_reference (--seed 1924) once the
// pytorch-memo-keeps-view-bases entry required PyTorch's memo to hold more
// tensors: from_blob's helper kept a strong reference to every storage it
// made (for lazy_clone's C7 check), so a dropped from_blob tensor's storage
// stayed in the FakeTensorConverter's storage memo after a sweep
// (PyTorch "0 tensors, 1 storages (2 pending)" where the reference's memo was
// empty). The helper keeps weak references now; C7 still holds while the
// storage lives (the test above).
TEST(PytorchBackend, ADroppedFromBlobStorageLeavesTheMemos) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = from_blob [3] i64\nt1 = fake t0\ndrop t0\nsweep\nt2 = from_blob [2] f32\n"
      "t3 = lazy_clone t2\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  EXPECT_FALSE(rep.diverged) << rep.divergence.to_string(p);
  ASSERT_EQ(rep.trace.size(), 6u);
  EXPECT_EQ(rep.trace[5].errors.at(1), ErrorKind::kInvalidArgument) << rep.trace[5].messages.at(1);
}

// PyTorch 1.13 drops a tensor's memo entry before its storage dies (Note
// [expired-storages] in meta_utils.py): its storage entry waits as pending
// until a sweep, where the reference's goes with the tensor. Known
// divergence pytorch-storage-pending-after-its-tensor-1.13; a sweep first
// and the memos agree.
TEST(PytorchBackend, AStorageThatDiedWithItsTensorIsPendingUntilASweep) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = ones [] i64\nt1 = fake t0\ndrop t0\nmemo_stats\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 4 (memo_stats): fake_memo: reference 0 tensors, 0 storages (0 pending), 0 "
            "sparse vs pytorch 0 tensors, 1 storages (1 pending), 0 sparse");
  const KnownDivergence* k =
      match_known_divergence("memo_stats", rep.divergence.mismatch, pytorch_version(), true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-storage-pending-after-its-tensor-1.13");
  Program q = parse("t0 = ones [] i64\nt1 = fake t0\ndrop t0\nsweep\nmemo_stats\n");
  RunReport swept = run(q, {backends().reference.get(), backends().pytorch.get()});
  EXPECT_FALSE(swept.diverged) << swept.divergence.to_string(q);
}

/// GC-tracked Python objects after a full collection, frozen ones left out
/// (gc.get_objects() does not list the permanent generation); -1 without Python.
long python_unfrozen_objects() {
#if STORCHECK_HAVE_PYTHON
  PyGILState_STATE g = PyGILState_Ensure();
  long n = -1;
  if (PyObject* gc = PyImport_ImportModule("gc")) {
    Py_XDECREF(PyObject_CallMethod(gc, "collect", nullptr));
    if (PyObject* objs = PyObject_CallMethod(gc, "get_objects", nullptr)) {
      n = static_cast<long>(PyList_Size(objs));
      Py_DECREF(objs);
    }
    Py_DECREF(gc);
  }
  PyErr_Clear();
  PyGILState_Release(g);
  return n;
#else
  return -1;
#endif
}

/// Runs `p` on the PyTorch backend alone, step by step (each must succeed
/// unrefused); each step's Observation::step_note, and the last observation.
std::vector<std::string> step_notes(const Program& p, Observation* o) {
  Backend& b = *backends().pytorch;
  b.begin(p, Limits{});
  std::vector<std::string> notes;
  for (const Step& s : p.steps) {
    EXPECT_EQ(b.run_step(s).kind, ErrorKind::kNone) << print_step(p, s);
    std::string why;
    EXPECT_FALSE(b.take_refusal(&why)) << print_step(p, s) << ": " << why;
    b.observe(o);
    notes.push_back(o->step_note);
  }
  return notes;
}

// Note [Stale converter memo entries]: found by pytorch.fake_matches_reference
// (seed 1936). The MetaConverter memoized t0 as t2's base; after set_ moves
// t0 onto t1's storage, meta of a view of t0 is built on t0's stale entry
// and shares t3's storage. The backend notes the stale entry at that step
// alone (not at a fresh conversion), and the known divergence matches the
// alias difference only with that note.
TEST(PytorchBackend, AStaleConverterMemoEntryIsNotedAndExplainsItsDivergence) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = zeros [] f32\nt1 = zeros [] f32\nt2 = expand t0 [3,3]\nt3 = meta t2\n"
      "t4 = meta t1\nset_ t0 t1\nt5 = permute t0 []\nt6 = meta t5\nt7 = meta t0\n"
      "t8 = fake t0\n");
  Observation o;
  std::vector<std::string> notes;
  ASSERT_NO_FATAL_FAILURE(notes = step_notes(p, &o));
  for (size_t k = 0; k < 7; ++k) EXPECT_EQ(notes[k], "") << "step " << k + 1;
  EXPECT_NE(notes[7].find("stale converter memo: its base changed in place"), std::string::npos)
      << notes[7];
  EXPECT_NE(notes[8].find("stale converter memo: the input changed in place"), std::string::npos)
      << notes[8];
  EXPECT_EQ(notes[9], "") << "the FakeTensorConverter never converted t0";
  EXPECT_TRUE(o.vars.at(6).live);
  EXPECT_EQ(o.vars.at(6).alias_class, 3) << "t6 is built on t0's stale conversion: t3's storage";

  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 8 (t6 = meta t5): alias_class of t6: reference t#4 vs pytorch t#3")
      << "the reference shares t4's storage, the conversion of t1's (F2)";
  const KnownDivergence* k = match_known_divergence("meta", rep.divergence.mismatch,
                                                    pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-memo-stale-after-inplace-metadata-1.13");
  Mismatch unnoted = rep.divergence.mismatch;
  unnoted.note_a.clear();
  unnoted.note_b.clear();
  EXPECT_EQ(match_known_divergence("meta", unnoted, pytorch_version(), true), nullptr)
      << "the same alias difference without a stale entry is a finding";
}

// Found by pytorch.fake_matches_reference (seed 1936): FakeTensorConverter's
// memo holds fakes weakly, so after t1 (transposed) dies, `fake t0` makes a
// new fake from the MetaConverter's memo where F2 gives t1 again. Noted at
// that step only; while t1 lives, PyTorch returns it and nothing is noted.
TEST(PytorchBackend, AFakeMadeAfterTheFirstDiedIsNoted) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse(
      "t0 = arange [1,2] f32\nt1 = fake t0\ntranspose_ t1 -1 0\ndrop t1\n"
      "t2 = fake t0\n");
  Observation o;
  std::vector<std::string> notes;
  ASSERT_NO_FATAL_FAILURE(notes = step_notes(p, &o));
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(notes[k], "") << "step " << k + 1;
  EXPECT_NE(notes[4].find("fake memo dropped"), std::string::npos) << notes[4];
  EXPECT_EQ(o.vars.at(2).sizes[0], 1) << "a new fake with t0's geometry";

  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 5 (t2 = fake t0): sizes of t2: reference [2, 1] vs pytorch [1, 2]");
  const KnownDivergence* k = match_known_divergence("fake", rep.divergence.mismatch,
                                                    pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-fake-memo-weak-values-1.13");

  // While the fake lives, the memo returns it, transposed: nothing to note.
  Program alive = parse("t0 = arange [1,2] f32\nt1 = fake t0\ntranspose_ t1 -1 0\nt2 = fake t0\n");
  ASSERT_NO_FATAL_FAILURE(notes = step_notes(alive, &o));
  EXPECT_EQ(notes, std::vector<std::string>(4, ""));
  EXPECT_EQ(o.vars.at(2).identity_class, 1) << "F2: t2 is t1";
  EXPECT_EQ(o.vars.at(2).sizes[0], 2) << "transposed";
}

// Converting another tensor of a storage already converted sets the shared
// meta storage's byte count again: the fake storage that resize_ grew under
// t1 shrinks to t2's extent (found by pytorch.fake_matches_reference, seed
// 1940, once the entry matched only noted steps); F2 leaves it.
TEST(PytorchBackend, ALaterConversionShrinksTheSharedFakeStorageAndIsNoted) {
  SKIP_WITHOUT_PYTORCH();
  Program p =
      parse("t0 = zeros [2] f32\nt1 = fake t0\nresize_ t1 [16]\nt2 = detach t0\nt3 = fake t2\n");
  RunReport rep = run(p, {backends().reference.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.to_string(p),
            "step 5 (t3 = fake t2): storage_nbytes of t1: reference 64 vs pytorch 8");
  const Mismatch& m = rep.divergence.mismatch;
  EXPECT_EQ(m.note_b,
            "meta storage sized by set_: 8 bytes where F2 keeps 64 (Note [Meta storages sized "
            "by set_])");
  const KnownDivergence* k = match_known_divergence("fake", m, pytorch_version(), true);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->id, "pytorch-meta-set-resizes-storage-1.13");
  // A fake of t0 itself is a memo hit: no set_, nothing noted, no divergence.
  Observation o;
  std::vector<std::string> notes;
  ASSERT_NO_FATAL_FAILURE(notes =
                              step_notes(parse("t0 = zeros [2] f32\nt1 = fake t0\nresize_ t1 [16]\n"
                                               "t2 = fake t0\n"),
                                         &o));
  EXPECT_EQ(notes, std::vector<std::string>(4, ""));
  EXPECT_EQ(o.vars[1].storage_nbytes, 64);
}

// Python's Tensor.unflatten checks for empty sizes before ATen wraps the dim.
TEST(PytorchBackend, UnflattenOfNoSizesIsCheckedBeforeTheDim) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [] f32\nt1 = unflatten t0 -2 []\nt2 = unflatten t0 0 []\n");
  RunReport rep = run(p, {backends().torch.get(), backends().pytorch.get()});
  ASSERT_TRUE(rep.diverged);
  EXPECT_EQ(rep.divergence.step, 2);
  EXPECT_EQ(rep.divergence.mismatch.field, "error");
  const KnownDivergence* k = match_known_divergence("unflatten", rep.divergence.mismatch,
                                                    pytorch_version(), /*with_pytorch=*/true);
  ASSERT_NE(k, nullptr) << rep.divergence.to_string(p);
  EXPECT_EQ(k->id, "pytorch-unflatten-empty-sizes-checked-first");
  // Within range, both raise invalid_argument: no divergence to explain.
  Program in_range = parse("t0 = zeros [] f32\nt2 = unflatten t0 0 []\n");
  RunReport same = run(in_range, {backends().torch.get(), backends().pytorch.get()});
  EXPECT_FALSE(same.diverged) << same.divergence.to_string(in_range);
  EXPECT_EQ(same.steps_failed, 1);
}

// Note [Freezing what earlier programs left] (python_backend.py): PyTorch
// 1.13 leaks each fake a FakeTensorConverter memo hit returns, about 12
// tracked objects a program, and every collection walked them all, so a
// long run slowed down as it went (pytorch.eager_matches_libtorch: 367
// programs/s over 2,000 programs, 172 over 16,000). The backend freezes what
// survives a collection every 256 programs; 1,024 programs later (the same
// phase of that period) the objects a collection walks are as many as before.
TEST(PytorchBackend, ObjectsEarlierProgramsLeakedAreFrozen) {
  SKIP_WITHOUT_PYTORCH();
  Program p = parse("t0 = zeros [2] f32\nt1 = fake t0\nt2 = fake t0\n");  // a memo hit
  Runner runner({backends().pytorch.get()}, Limits{});
  auto run_n = [&](int n) {
    for (int k = 0; k < n; ++k) ASSERT_FALSE(runner.run(p).diverged);
  };
  run_n(300);
  const long before = python_unfrozen_objects();
  ASSERT_GT(before, 0);
  run_n(1024);
  const long after = python_unfrozen_objects();
  // Unfrozen, the leak adds about 12,000 (12 a program).
  EXPECT_LT(after, before + 2000) << "before " << before << ", after 1,024 more programs " << after;
}

}  // namespace
}  // namespace storcheck
