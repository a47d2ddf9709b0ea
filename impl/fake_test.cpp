// MetaConverter and to_meta (SEMANTICS F1-F3, F5, F8; impl/fake.h).
#include "impl/fake.h"

#include <gtest/gtest.h>

#include <cstring>

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
  MetaConverter conv(/*fake=*/true);
  Tensor m = conv.convert(v).value();
  EXPECT_EQ(m->geom.rank, 2);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(m->geom.sizes[d], v->geom.sizes[d]);
    EXPECT_EQ(m->geom.strides[d], v->geom.strides[d]);
  }
  EXPECT_EQ(m->geom.offset, v->geom.offset);
  EXPECT_EQ(m->geom.offset, 1);
  EXPECT_EQ(m->geom.strides[0], 2);
  EXPECT_EQ(m->dtype, DType::kF32);
  EXPECT_TRUE(m->fake) << "a fake tensor reports the real device";
  EXPECT_TRUE(m->is_meta());
  EXPECT_EQ(m->storage->nbytes(), 96);  // the whole real storage, not the view's extent
}

TEST(MetaConverter, SameTensorSameFakeAndViewsShareOneStorageF2) {
  Context ctx;
  Tensor t = arange_of(ctx, {3, 4});
  Tensor v = select(t, 0, 1).value();
  Tensor other = arange_of(ctx, {3, 4});
  MetaConverter conv;
  Tensor mt = conv.convert(t).value();
  EXPECT_EQ(conv.convert(t).value(), mt) << "the same live tensor gives the same fake tensor";
  Tensor mv = conv.convert(v).value();
  EXPECT_NE(mv, mt);
  EXPECT_EQ(mv->storage, mt->storage) << "a view shares its base's meta storage";
  EXPECT_EQ(mv->geom.offset, 4);
  EXPECT_NE(conv.convert(other).value()->storage, mt->storage);
  EXPECT_EQ(conv.stats(), (MemoStats{3, 2, 0}));
}

TEST(MetaConverter, EmptiedStorageGivesZeroByteMetaStorageF2) {
  Context ctx;
  Tensor t = arange_of(ctx, {2, 8});
  ASSERT_TRUE(shrink(t).ok());
  MetaConverter conv;
  Tensor m = conv.convert(t).value();
  EXPECT_EQ(m->storage->nbytes(), 0);
  EXPECT_EQ(m->geom.sizes[1], 8) << "the shape is kept (R1)";
}

TEST(MetaConverter, MemoIsWeakAndEmptiesAfterDeathsAndASweepF3) {
  Context ctx;
  MetaConverter conv;
  Tensor base = arange_of(ctx, {4, 4});
  Tensor view = transpose(base, 0, 1).value();
  Tensor mb = conv.convert(base).value();
  EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0}));
  base.reset();  // the tensor dies; its storage lives on in `view`
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "entry gone, storage pending";
  conv.sweep();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "a live storage stays";
  // Converting the view reattaches the storage entry: aliasing with the
  // converted (now dead) base is kept through the meta storage.
  EXPECT_EQ(conv.convert(view).value()->storage, mb->storage);
  EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0}));
  view.reset();  // tensor and storage die together: found at the tensor's death
  EXPECT_EQ(conv.stats(), (MemoStats{0, 0, 0}));

  // A storage that outlives its converted tensors dies later: the sweep finds it.
  Tensor a = arange_of(ctx, {8});
  Tensor keep = slice(a, 0, 2, 6, 1).value();
  (void)conv.convert(a);
  a.reset();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1}));
  keep.reset();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 1, 1})) << "not swept yet";
  conv.sweep();
  EXPECT_EQ(conv.stats(), (MemoStats{0, 0, 0}));
}

// Note [Dropping dead entries lazily]: a tensor made at a dead converted
// tensor's address gets a meta tensor of its own, and the dead entry's
// storage count is released first (placement-new makes the reuse certain;
// allocators, ASan's quarantine among them, may not reuse an address).
TEST(MetaConverter, ADeadTensorsReusedAddressGetsItsOwnMetaTensorF2F3) {
  Context ctx;
  MetaConverter conv;
  Tensor a = arange_of(ctx, {2, 3}), b = arange_of(ctx, {5});
  alignas(TensorImpl) unsigned char slot[sizeof(TensorImpl)];
  auto at_slot = [&](const Tensor& like) {
    return Tensor(new (slot) TensorImpl(*like), [](TensorImpl* p) { p->~TensorImpl(); });
  };
  Tensor first = at_slot(a);
  Tensor meta_first = conv.convert(first).value();
  EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0}));
  (void)conv.convert(b);  // an entry that stays alive throughout
  first.reset();          // dies; its entry stays until the memo is read
  Tensor second = at_slot(b);
  ASSERT_EQ(static_cast<void*>(second.get()), static_cast<void*>(slot));
  Tensor meta_second = conv.convert(second).value();
  EXPECT_NE(meta_second, meta_first);
  EXPECT_EQ(meta_second->geom.rank, 1);
  EXPECT_EQ(meta_second->geom.sizes[0], 5);
  EXPECT_EQ(meta_second->storage, conv.convert(b).value()->storage);  // b's storage
  // a's storage entry lost its only tensor entry: pending, a is still alive.
  EXPECT_EQ(conv.stats(), (MemoStats{2, 2, 1}));
  EXPECT_EQ(conv.convert(second).value(), meta_second);
  second.reset();
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
    (void)conv.convert(a);
    a.reset();
    ASSERT_EQ(conv.stats().pending, 1);
  }  // v dies: the pending storage is dead but still in the memo
  ASSERT_EQ(conv.stats().storages, 1);
  std::vector<Tensor> live;  // conversion 1 was `a`
  for (int k = 0; k < 126; ++k) {
    live.push_back(arange_of(ctx, {1}));
    (void)conv.convert(live.back());
  }
  EXPECT_EQ(conv.stats().pending, 1) << "127 conversions since the last sweep";
  live.push_back(arange_of(ctx, {1}));
  (void)conv.convert(live.back());
  EXPECT_EQ(conv.stats().pending, 0) << "the 128th conversion sweeps";
  EXPECT_EQ(conv.stats().storages, 127);
}

TEST(MetaConverter, FakeFromMetaSharesTheMetaStorageF5) {
  Context ctx;
  Tensor t = arange_of(ctx, {3});
  MetaConverter conv;
  Tensor m = conv.convert(t).value();
  Tensor f = MetaConverter::from_meta(m).value();
  EXPECT_EQ(f->storage, m->storage);
  EXPECT_EQ(f->version, m->version) << "PyTorch wraps the meta tensor";
  EXPECT_TRUE(f->fake);
  EXPECT_FALSE(m->fake);
  EXPECT_EQ(MetaConverter::from_meta(t).error().kind, ErrorKind::kUnsupportedFakeTensor);
  EXPECT_EQ(MetaConverter::from_meta(f).error().kind, ErrorKind::kUnsupportedFakeTensor);
  EXPECT_EQ(f->geom.sizes[0], 3);
}

TEST(ToMeta, IsACloneOntoMetaNotAConversionF8) {
  Context ctx;
  Tensor t = arange_of(ctx, {4, 6});
  Tensor tt = transpose(t, 0, 1).value();  // non-overlapping and dense: strides kept
  Tensor m = to_meta(tt).value();
  EXPECT_EQ(m->geom.strides[0], 1);
  EXPECT_EQ(m->geom.strides[1], 6);
  EXPECT_EQ(m->storage->nbytes(), 96);
  Tensor s = slice(t, 1, 1, 6, 2).value();  // offset 1, strides [6, 2]: not dense
  Tensor ms = to_meta(s).value();
  EXPECT_EQ(ms->geom.offset, 0);
  EXPECT_EQ(ms->geom.strides[0], 3);
  EXPECT_EQ(ms->geom.strides[1], 1);
  EXPECT_EQ(ms->storage->nbytes(), 4 * 3 * 4);
  EXPECT_NE(to_meta(t).value()->storage, to_meta(t).value()->storage) << "a fresh storage each time";
  EXPECT_EQ(to_meta(ms).value(), ms) << "to_meta of a meta tensor returns it";
}

TEST(MetaConverter, MetaOrFakeInputIsUnsupportedAndLeavesTheMemoF4) {
  Context ctx;
  Tensor t = arange_of(ctx, {3});
  MetaConverter conv(/*fake=*/true);
  Tensor f = conv.convert(t).value();
  MemoStats before = conv.stats();
  Result<Tensor> again = conv.convert(f);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::kUnsupportedFakeTensor);
  EXPECT_NE(again.error().message.find("already a fake tensor"), std::string::npos)
      << again.error().message;
  EXPECT_EQ(conv.stats(), before);
}

// Note [Meta execution]: ops run on meta tensors with eager's checks (F6, F9).
TEST(MetaExecution, OutputsAreMetaWithEagerMetadataAndNoBudget) {
  Context ctx;
  ctx.budget.max_tensor_bytes = 64;  // smaller than the meta results below
  Tensor t = arange_of(ctx, {2, 3});
  MetaConverter conv;
  Tensor m = conv.convert(transpose(t, 0, 1).value()).value();  // sizes [3, 2], strides [1, 3]
  int64_t used = ctx.budget.used;
  const int64_t wide_sizes[] = {1000, 3, 2};
  Tensor e = expand(unsqueeze(m, 0).value(), wide_sizes).value();
  Tensor c = clone(ctx, e).value();  // 24000 bytes: meta allocates nothing
  EXPECT_TRUE(c->is_meta());
  EXPECT_EQ(c->storage->nbytes(), 1000 * 6 * 4);
  EXPECT_EQ(c->geom.strides[0], 6) << "clone's preserve_format rule, as on CPU";
  EXPECT_EQ(ctx.budget.used, used);
  Tensor a = add(ctx, m, Scalar::floating(1.5)).value();
  EXPECT_TRUE(a->is_meta());
  EXPECT_EQ(a->geom.strides[0], 1) << "TensorIterator keeps the input's layout";
  EXPECT_EQ(a->geom.strides[1], 3);
  EXPECT_TRUE(mul_(m, Scalar::integer(2)).ok());
  EXPECT_EQ(*m->version, 1);
  float one = 0;
  std::memcpy(&one, t->storage->read_data() + 4, sizeof one);
  EXPECT_EQ(one, 1.0f) << "the real tensor is untouched";
}

TEST(MetaExecution, MakesEagersChecksF9) {
  Context ctx;
  MetaConverter conv;
  Tensor real = arange_of(ctx, {3});
  Tensor m = conv.convert(real).value();
  const int64_t two_by_three[] = {2, 3};
  Tensor wide = expand(unsqueeze(m, 0).value(), two_by_three).value();
  EXPECT_EQ(add_(wide, Scalar::integer(1)).error().kind, ErrorKind::kInternalOverlap);
  Tensor dst = conv.convert(arange_of(ctx, {2, 3})).value();
  Tensor four = conv.convert(arange_of(ctx, {4})).value();
  EXPECT_EQ(copy_(dst, four).error().kind, ErrorKind::kShapeMismatch);
  Tensor u8 = to(ctx, dst, DType::kU8).value();
  EXPECT_TRUE(u8->is_meta());
  EXPECT_EQ(fill_(u8, Scalar::integer(300)).error().kind, ErrorKind::kScalarOverflow);
  EXPECT_EQ(copy_(real, m).error().kind, ErrorKind::kDeviceMismatch) << "copy out of meta";
  EXPECT_TRUE(copy_(m, real).ok()) << "copy into meta: checks only";
  MetaConverter fakes(/*fake=*/true);
  Tensor f = fakes.convert(real).value();
  EXPECT_EQ(copy_(f, m).error().kind, ErrorKind::kDeviceMismatch) << "FakeTensorMode mixing";
  Tensor fv = add(ctx, f, Scalar::integer(1)).value();
  EXPECT_TRUE(fv->fake) << "ops on fake tensors give fake tensors";
  EXPECT_TRUE(transpose(f, 0, 0).value()->fake);
}

TEST(MetaExecution, EmptiedMetaIsNotRestoredAndStorageOpsChangeTheSizeOnly) {
  Context ctx;
  Tensor t = arange_of(ctx, {2, 4});
  ASSERT_TRUE(shrink(t).ok());
  MetaConverter conv;
  Tensor m = conv.convert(t).value();
  EXPECT_FALSE(is_emptied(*m)) << "R2 is about data: a meta storage has none";
  Tensor c = clone(ctx, m).value();  // the meta clone reads nothing: no restore
  EXPECT_EQ(c->storage->nbytes(), 32);
  EXPECT_EQ(clone_preserve_strides(ctx, m).error().kind, ErrorKind::kOutOfBounds)
      << "its as_strided checks the 0-byte meta storage";
  ASSERT_TRUE(resize_storage(ctx, m, 1 << 30).ok());
  EXPECT_EQ(m->storage->nbytes(), 1 << 30);
  EXPECT_EQ(m->storage->read_data(), nullptr);
  EXPECT_EQ(t->storage->nbytes(), 0) << "the real storage is another storage";
}

TEST(MetaConverterFaults, PlantedLeakAndLostAliasingAreObservable) {
  if (!fault_injection_available()) GTEST_SKIP() << "needs -DSTORCHECK_FAULT_INJECTION=ON";
  Context ctx;
  {
    FaultScope f(Fault::kMemoStrongRef);
    MetaConverter conv;
    Tensor t = arange_of(ctx, {3});
    (void)conv.convert(t);
    t.reset();
    conv.sweep();
    EXPECT_EQ(conv.stats(), (MemoStats{1, 1, 0})) << "the leak keeps the entry (F3 broken)";
  }
  {
    FaultScope f(Fault::kFakeViewLosesAliasing);
    MetaConverter conv;
    Tensor t = arange_of(ctx, {3, 3});
    Tensor v = transpose(t, 0, 1).value();
    EXPECT_NE(conv.convert(v).value()->storage, conv.convert(t).value()->storage) << "F2 broken";
  }
}

// --- F7: the fallback (Note [Fallback] in fake.cpp) ---------------------------

TEST(Fallback, InplaceViewOpsNeverFallBackF7) {
  Status st = fallback_allowed("transpose_", /*inplace_view=*/true);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kUnsupportedFakeTensor);
  EXPECT_NE(st.error().message.find("transpose_"), std::string::npos);
  EXPECT_TRUE(fallback_allowed("add", false).ok());
}

TEST(Fallback, ZerosKeepGeometryAndSharingF7) {
  Context ctx;
  Tensor t = arange_of(ctx, {4, 6});
  Tensor v = slice(transpose(t, 0, 1).value(), 0, 1, 5, 2).value();  // offset 1, strides [2, 6]
  MetaConverter conv(/*fake=*/true);
  Tensor ft = conv.convert(t).value(), fv = conv.convert(v).value();
  Result<std::vector<Tensor>> r = fallback_inputs(ctx, {fv, ft, fv});
  ASSERT_TRUE(r.ok());
  const std::vector<Tensor>& z = r.value();
  ASSERT_EQ(z.size(), 3u);
  EXPECT_FALSE(z[0]->is_meta());
  EXPECT_FALSE(z[0]->fake);
  EXPECT_EQ(z[0]->geom.offset, 1);
  EXPECT_EQ(z[0]->geom.strides[0], 2);
  EXPECT_EQ(z[0]->storage, z[1]->storage) << "fakes sharing a storage get zeros sharing one";
  EXPECT_EQ(z[0], z[2]) << "the same fake twice is the same real tensor";
  EXPECT_EQ(z[1]->storage->nbytes(), 96);
  for (int64_t k = 0; k < 24; ++k) EXPECT_EQ(z[1]->storage->read_data()[k * 4], 0);
}

TEST(Fallback, EmptiedAndHugeInputsF7) {
  Context ctx;
  Tensor t = arange_of(ctx, {2, 3});
  ASSERT_TRUE(shrink(t).ok());
  MetaConverter conv(true);
  Tensor f = conv.convert(t).value();
  EXPECT_EQ(f->storage->nbytes(), 0);
  Result<std::vector<Tensor>> r = fallback_inputs(ctx, {f});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0]->storage->nbytes(), 24) << "zeros cover the geometry: nothing undersized";
  Tensor huge = conv.convert(arange_of(ctx, {2})).value();
  std::vector<int64_t> big{int64_t{1} << 32};
  ASSERT_TRUE(resize_(ctx, huge, IntSpan(big.data(), 1)).ok()) << "a meta resize allocates nothing";
  Result<std::vector<Tensor>> h = fallback_inputs(ctx, {huge});
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().kind, ErrorKind::kResourceLimit) << "the fallback really allocates";
}

TEST(Fallback, OutputsMapBackF7) {
  Context ctx;
  MetaConverter conv(true), out_conv(true);
  Tensor f = conv.convert(arange_of(ctx, {2, 3})).value();
  std::vector<Tensor> reals = fallback_inputs(ctx, {f}).value();
  // In place (no output) and an output identical to an input: the input's fake.
  EXPECT_EQ(fallback_output({f}, reals, nullptr, out_conv).value(), f);
  EXPECT_EQ(fallback_output({f}, reals, reals[0], out_conv).value(), f);
  // A view of an input: raises.
  Result<Tensor> v = fallback_output({f}, reals, transpose(reals[0], 0, 1).value(), out_conv);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().kind, ErrorKind::kUnsupportedFakeTensor);
  // A fresh output: a fresh fake of its geometry.
  Tensor fresh = add(ctx, transpose(reals[0], 0, 1).value(), Scalar::integer(1)).value();
  Tensor m = fallback_output({f}, reals, fresh, out_conv).value();
  EXPECT_TRUE(m->fake);
  EXPECT_NE(m->storage, f->storage);
  EXPECT_EQ(m->geom.strides[0], 1);
  EXPECT_EQ(m->geom.strides[1], 3);
  EXPECT_EQ(m->storage->nbytes(), 24);
}

}  // namespace
}  // namespace storcheck
