# storcheck program v1
# known: meta-copy-unchecked-1.13
# what: F9 - copy_ into a meta tensor from a source that does not broadcast
#   to it: eager raises shape_mismatch, so the meta kernel must too; LibTorch
#   1.13's copy_ returns before any check when the destination is meta
# found: 2026-11-30 by fake.matches_libtorch_meta
t0 = zeros [2,3] f32
t1 = meta t0
t2 = arange [4] f32
copy_ t1 t2
