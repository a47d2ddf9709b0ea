# storcheck program v1
# what: S9 - LibTorch 1.13's as_strided multiplies offset * itemsize without
#   an overflow check, so offset 2^62 on f32 wraps to 0 bytes and yields a
#   view pointing far outside its storage. The reference raises
#   storage_size_overflow and the LibTorch backend refuses to run it (S8).
# found: 2026-11-30, while writing the reference's as_strided
t0 = zeros [4] f32
t1 = as_strided t0 [1] [1] 4611686018427387904
t2 = as_strided t0 [2] [1] 2
add_ t2 1
