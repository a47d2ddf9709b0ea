# storcheck program v1
# known: meta-as-strided-overflow-unchecked-1.13
# what: F9/S9 - as_strided of a meta tensor with strides whose extent
#   overflows int64: eager raises storage_size_overflow, so the meta kernel
#   must too; LibTorch 1.13's meta as_strided builds the tensor
# found: 2026-11-30 by fake.matches_libtorch_meta
t0 = arange [] f32
t1 = meta t0
t2 = as_strided t1 [4,3,3] [4611686018427387904,0,0] 0
