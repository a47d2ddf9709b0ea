// MetaConverter and to_meta (SEMANTICS F1-F3, F5, F8; impl/fake.h).
#include "impl/fake.h"

#include <gtest/gtest.h>

#include "impl/fault.h"
#include "impl/ops.h"

namespace storcheck {
namespace {

Tensor arange_of(Context& ctx, std::initializer_list<int64_t> sizes) {
  std::vector<int64_t> s(sizes);
  return arange(ctx, IntSpan(s.data(), static_cast<int>(s.size())), DType::kF32).value();
}

struct FaultScope {
  explicit FaultScope(Fault f) : on(set_active_fault(f)) {}
  ~FaultScope() { set_active_fault(Fault::kNone); }
  bool on;
};

TEST(MetaConverter, KeepsGeometryAndDtypeF1) {
  Context ctx;
  Tensor t = arange_of(ctx, {4, 6});
  // transpose: sizes [6, 4], strides [1, 6]; rows 1 and 3: offset 1, strides [2, 6].
  Tensor v = slice(transpose(t, 0, 1).value(), 0, 1, 5, 2).value();
  MetaConverter conv;
  MetaTensor m = conv.convert(v, FakeDevice::kCpu);
  EXPECT_EQ(m->geom.rank, 2);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(m->geom.sizes[d], v->geom.sizes[d]);
    EXPECT_EQ(m->geom.strides[d], v->geom.strides[d]);
  }
  EXPECT_EQ(m->geom.offset, v->geom.offset);
  EXPECT_EQ(m->geom.offset, 1);
  EXPECT_EQ(m->geom.strides[0], 2);
  EXPECT_EQ(m->dtype, DType::kF32);
  EXPECT_EQ(m->device, FakeDevice::kCpu);
  EXPECT_EQ(m->storage->nbytes, 96);  // the whole real storage, not the view's extent
}

TEST(MetaConverter, SameTensorSameFakeAndViewsShareOneStorageF2) {
  Context ctx;
  Tensor t = arange_of(ctx, {3, 4});
  Tensor v = select(t, 0, 1).value();
  Tensor other = arange_of(ctx, {3, 4});
  MetaConverter conv;
  MetaTensor mt = conv.convert(t);
  EXPECT_EQ(conv.convert(t), mt) << "the same live tensor gives the same fake tensor";
  MetaTensor mv = conv.convert(v);
  EXPECT_NE(mv, mt);
  EXPECT_EQ(mv->storage, mt->storage) << "a view shares its base's meta storage";
  EXPECT_EQ(mv->geom.offset, 4);
  EXPECT_NE(conv.convert(other)->storage, mt->storage);
  EXPECT_EQ(conv.stats(), (MemoStats{3, 2, 0}));
}

TEST(MetaConverter, EmptiedStorageGivesZeroByteMetaStorageF2) {
  Context ctx;
  Tensor t = arange_of(ctx, {2, 8});
  ASSERT_TRUE(shrink(t).ok());
  MetaConverter conv;
  MetaTensor m = conv.convert(t);
  EXPECT_EQ(m->storage->nbytes, 0);
  EXPECT_EQ(m->geom.sizes[1], 8) << "the shape is kept (R1)";
}

TEST(MetaConverter, MemoIsWeakAndEmptiesAfterDeathsAndASweepF3) {
  Context ctx;
  MetaConverter conv;
  Tensor base = arange_of(ctx, {4, 4});
  Tensor view = transpose(base, 0, 1).value();
  MetaTensor mb = conv.convert(base);
  EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0}));
  base.reset();  // the tensor dies; its storage lives on in `view`
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "entry gone, storage pending";
  conv.sweep();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "a live storage stays";
  // Converting the view reattaches the storage entry: aliasing with the
  // converted (now dead) base is kept through the meta storage.
  EXPECT_EQ(conv.convert(view)->storage, mb->storage);
  EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0}));
  view.reset();  // tensor and storage die together: found at the tensor's death
  EXPECT_EQ(conv.stats(), (MemoStats{0, 0, 0}));

  // A storage that outlives its converted tensors dies later: the sweep finds it.
  Tensor a = arange_of(ctx, {8});
  Tensor keep = slice(a, 0, 2, 6, 1).value();
  conv.convert(a);
  a.reset();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1}));
  keep.reset();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "not swept yet";
  conv.sweep();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 0, 0}));
}

TEST(MetaConverter, SweepsEverySweepIntervalConversions) {
  Context ctx;
  MetaConverter conv;
  EXPECT_EQ(conv.sweep_interval(), 128);
  // One pending storage whose tensors died: converting 128 unrelated
  // tensors runs the automatic sweep.
  {
    Tensor a = arange_of(ctx, {2});
    Tensor v = select(a, 0, 1).value();
    conv.convert(a);
    a.reset();
    ASSERT_EQ(conv.stats().pending, 1);
  }  // v dies: the pending storage is dead but still in the memo
  ASSERT_EQ(conv.stats().storages, 1);
  std::vector<Tensor> live;  // conversion 1 was `a`
  for (int k = 0; k < 126; ++k) {
    live.push_back(arange_of(ctx, {1}));
    conv.convert(live.back());
  }
  EXPECT_EQ(conv.stats().pending, 1) << "127 conversions since the last sweep";
  live.push_back(arange_of(ctx, {1}));
  conv.convert(live.back());
  EXPECT_EQ(conv.stats().pending, 0) << "the 128th conversion sweeps";
  EXPECT_EQ(conv.stats().storages, 127);
}

TEST(MetaConverter, FakeFromMetaSharesTheMetaStorageF5) {
  Context ctx;
  Tensor t = arange_of(ctx, {3});
  MetaConverter conv;
  MetaTensor m = conv.convert(t);
  MetaTensor f = MetaConverter::from_meta(m, FakeDevice::kCuda);
  EXPECT_EQ(f->storage, m->storage);
  EXPECT_EQ(f->device, FakeDevice::kCuda);
  EXPECT_EQ(f->geom.sizes[0], 3);
}

TEST(ToMeta, IsACloneOntoMetaNotAConversionF8) {
  Context ctx;
  Tensor t = arange_of(ctx, {4, 6});
  Tensor tt = transpose(t, 0, 1).value();  // non-overlapping and dense: strides kept
  MetaTensor m = to_meta(tt);
  EXPECT_EQ(m->geom.strides[0], 1);
  EXPECT_EQ(m->geom.strides[1], 6);
  EXPECT_EQ(m->storage->nbytes, 96);
  Tensor s = slice(t, 1, 1, 6, 2).value();  // offset 1, strides [6, 2]: not dense
  MetaTensor ms = to_meta(s);
  EXPECT_EQ(ms->geom.offset, 0);
  EXPECT_EQ(ms->geom.strides[0], 3);
  EXPECT_EQ(ms->geom.strides[1], 1);
  EXPECT_EQ(ms->storage->nbytes, 4 * 3 * 4);
  EXPECT_NE(to_meta(t)->storage, to_meta(t)->storage) << "a fresh storage each time";
}

TEST(MetaConverterFaults, PlantedLeakAndLostAliasingAreObservable) {
  if (!fault_injection_available()) GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";
  Context ctx;
  {
    FaultScope f(Fault::kMemoStrongRef);
    MetaConverter conv;
    Tensor t = arange_of(ctx, {3});
    conv.convert(t);
    t.reset();
    conv.sweep();
    EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0})) << "the leak keeps the entry (F3 broken)";
  }
  {
    FaultScope f(Fault::kFakeViewLosesAliasing);
    MetaConverter conv;
    Tensor t = arange_of(ctx, {3, 3});
    Tensor v = transpose(t, 0, 1).value();
    EXPECT_NE(conv.convert(v)->storage, conv.convert(t)->storage) << "F2 broken";
  }
}

}  // namespace
}  // namespace storcheck
