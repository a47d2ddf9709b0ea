// Storage shrink and restore (SEMANTICS group R) on the reference and on
// LibTorch with its real storage resize: both backends are run in lock step
// and specific observations are asserted.
#include <gtest/gtest.h>

#include "oracles/runner.h"
#include "program/text_format.h"

namespace storcheck {
namespace {

struct Both {
  std::unique_ptr<Backend> ref = make_reference_backend();
  std::unique_ptr<Backend> torch = make_torch_cpu_backend();
  RunReport run(const char* text) {
    ParseResult r = parse_program(text);
    EXPECT_TRUE(r.ok()) << r.error.to_string();
    program = r.program;
    Runner runner({ref.get(), torch.get()}, Limits{});
    return runner.run(program, /*keep_trace=*/true);
  }
  Program program;
};

TEST(TorchShrink, ShrinkEmptiesEveryAliasWithNullDataR1) {
  Both b;
  RunReport rep = b.run("t0 = arange [4,4] f32\nt1 = slice t0 0 1 3 1\nshrink t1\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  for (const Observation& o : rep.last) {
    EXPECT_EQ(o.vars[0].storage_nbytes, 0);
    EXPECT_TRUE(o.vars[0].data_null);
    EXPECT_EQ(o.vars[1].offset, 4);  // metadata kept
    EXPECT_FALSE(o.vars[1].values_known);
  }
}

TEST(TorchShrink, ClonePathsOfEmptiedViewGiveZerosR3) {
  Both b;
  RunReport rep = b.run(
      "t0 = ones [2,3] f32\nt1 = t t0\nshrink t0\nt2 = clone t1\nt3 = contiguous t1\n"
      "t4 = clone_preserve_strides t1\nt5 = to t1 f64\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  const Observation& o = rep.last[1];  // LibTorch's view
  EXPECT_EQ(o.vars[2].strides[0], 1);  // clone keeps the transposed strides
  EXPECT_EQ(o.vars[2].strides[1], 3);
  EXPECT_EQ(o.vars[3].strides[0], 2);  // contiguous
  EXPECT_EQ(o.vars[5].dtype, DType::kF64);
  for (int v = 2; v <= 5; ++v) {
    ASSERT_TRUE(o.vars[v].values_known) << v;
    for (uint8_t byte : o.vars[v].values) EXPECT_EQ(byte, 0) << v;
    EXPECT_EQ(o.vars[v].alias_class, v);
  }
  EXPECT_EQ(o.vars[1].storage_nbytes, 0);  // the input stays emptied
}

TEST(TorchShrink, ComputeOnEmptiedIsUndefinedAndViewsRaiseBoundsR4) {
  Both b;
  RunReport rep = b.run(
      "t0 = ones [2,3] f32\nshrink t0\nadd_ t0 1\nt1 = select t0 0 1\nt2 = view t0 [6]\n"
      "t3 = add t0 1\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  EXPECT_EQ(rep.trace[2].errors[1], ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(rep.trace[3].errors[1], ErrorKind::kOutOfBounds);
  EXPECT_NE(rep.trace[3].messages[1].find("for storage of size 0"), std::string::npos);
  EXPECT_EQ(rep.trace[4].errors[1], ErrorKind::kNone);  // view does not check (S5)
  EXPECT_EQ(rep.trace[5].errors[1], ErrorKind::kUndefinedBehavior);
}

TEST(TorchShrink, RehydrateSizesFromLargestExtentAndKeepsAliasingR5) {
  Both b;
  RunReport rep = b.run(
      "t0 = ones [4,4] f32\nt1 = slice t0 0 1 2 1\nt2 = narrow t0 0 0 2\nshrink t0\n"
      "rehydrate\nfill_ t1 3\nreshrink\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  EXPECT_EQ(rep.last[1].vars[0].storage_nbytes, 0);  // after reshrink
  Both c;
  RunReport mid = c.run(
      "t0 = ones [4,4] f32\nt1 = slice t0 0 1 2 1\nt2 = narrow t0 0 0 2\nshrink t0\n"
      "rehydrate\nfill_ t1 3\n");
  ASSERT_FALSE(mid.diverged);
  const VarObs& base = mid.last[1].vars[0];
  EXPECT_EQ(base.storage_nbytes, 64);  // the base's extent, not the views'
  EXPECT_EQ(mid.last[1].vars[1].alias_class, 0);
  EXPECT_EQ(mid.last[1].vars[1].offset, 4);
  float row1;
  std::memcpy(&row1, base.values.data() + 4 * 4, 4);
  EXPECT_EQ(row1, 3.0f);  // written through the view, seen through the base
  float row0;
  std::memcpy(&row0, base.values.data(), 4);
  EXPECT_EQ(row0, 0.0f);  // rehydrated storage is zeros
}

TEST(TorchShrink, UndersizedIsNotRestoredAndNonResizableRaisesR7R1) {
  Both b;
  RunReport rep = b.run(
      "t0 = ones [4] f32\nresize_storage t0 8\nt1 = clone t0\nset_nonresizable t0\nshrink t0\n"
      "resize_storage t0 16\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  EXPECT_EQ(rep.trace[2].errors[1], ErrorKind::kUndefinedBehavior);
  EXPECT_EQ(rep.trace[4].errors[1], ErrorKind::kNonResizable);
  EXPECT_EQ(rep.trace[5].errors[1], ErrorKind::kNonResizable);
  EXPECT_EQ(rep.last[1].vars[0].storage_nbytes, 8);  // unchanged by the failures
}

// R5: reshrink acts on the restored storages a variable still reaches. The
// LibTorch backend counted a storage's holders instead: a storage restored
// twice (rehydrate, shrink, rehydrate) was listed twice, and a view's
// autograd base (clone_preserve_strides binds a view of its buffer) kept the
// buffer's storage after set_ moved the view off it. Either looked alive,
// and reshrink raised on its non-resizable flag (found by
// shrink.matches_eager, seed 2013).
TEST(TorchShrink, ReshrinkSkipsAStorageNoVariableReaches) {
  Both b;
  RunReport rep = b.run(
      "t0 = arange [] f32\nshrink t0\nrehydrate\nshrink t0\nrehydrate\nset_nonresizable t0\n"
      "t1 = lazy_clone t0\nset_ t0 t1\nreshrink\n");
  ASSERT_FALSE(rep.diverged) << rep.divergence.to_string(b.program);
  ASSERT_EQ(rep.trace.size(), 9u);
  EXPECT_EQ(rep.trace[8].errors[1], ErrorKind::kNone) << rep.trace[8].messages[1];
  EXPECT_EQ(rep.last[1].vars[0].storage_nbytes, 4);  // t0's storage now: t1's, untouched
  RunReport base = b.run(
      "t0 = arange [] f32\nt1 = clone_preserve_strides t0\nshrink t1\nrehydrate\n"
      "set_nonresizable t1\nset_ t1 t0\nreshrink\n");
  ASSERT_FALSE(base.diverged) << base.divergence.to_string(b.program);
  ASSERT_EQ(base.trace.size(), 7u);
  EXPECT_EQ(base.trace[6].errors[1], ErrorKind::kNone) << base.trace[6].messages[1];
}

}  // namespace
}  // namespace storcheck
