# storcheck program v1
# known: meta-fill-unchecked-1.13
# what: F9 - fill_ on a meta tensor with a scalar out of range for its dtype:
#   eager raises scalar_overflow, so the meta kernel must too; LibTorch 1.13's
#   meta fill_ accepts it
# found: 2026-11-30 by fake.matches_libtorch_meta
t0 = arange [3] f32
t1 = meta t0
fill_ t1 1e+300
