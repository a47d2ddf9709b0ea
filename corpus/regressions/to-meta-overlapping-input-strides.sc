# storcheck program v1
# what: F8 - to_meta of an overlapping input follows _to_copy's
#   preserve_format: infer_dense_strides in the input's layout order ([1, 2]
#   for sizes [2, 3] strides [1, 1]), not contiguous strides; the reference
#   used contiguous ones
# found: 2026-11-30 by fake.matches_libtorch_meta
t0 = empty_strided [2,3] [1,1] f32
t1 = to_meta t0
t2 = empty_strided [1,2,1,1] [2,2,1,1] f32
t3 = to_meta t2
