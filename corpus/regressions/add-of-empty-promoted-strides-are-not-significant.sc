# storcheck program v1
# target: gate
# what: F6/F7 - add of a 0-element u8 tensor (sizes [1,0,4,3], strides
#   [4,5,0,2^62]) with a float scalar, promoted to f32: LibTorch's CPU
#   kernel converts the input first and gives contiguous strides
#   [12,12,3,1]; its meta kernel orders dims by the input's strides and
#   gives [1,4,1,0]. The reference mirrors both, so the fake twin and the
#   fallback disagreed with eager on strides that address nothing. F6 now
#   compares strides as PyTorch's check_significant_strides does: dims of
#   size > 1 of tensors with elements (oracles/compare.cpp).
# found: 2026-12-01 by `storcheck gate --seed 15151 --budget 1200`
#   (fake.crossref_matches_eager, program 104,284)
t0 = arange [] u8
as_strided_ t0 [3,1,0,4] [4611686018427387904,4,5,0] 0
t1 = movedim t0 0 -1
t2 = add t1 -0.0
