# storcheck program v1
# target: cow_fuzzer
# what: chunk of a 0-element [0, 3, 2^62] int32 tensor (contiguous strides
#   [3*2^62 wrapped to -2^62, 2^62, 1]) into 2 along dim 1: the reference
#   raised as_strided's negative-stride error at piece 0, the LibTorch
#   backend refused the step as undefined because piece 1's offset 2 * 2^62
#   overflows int64. LibTorch builds the pieces in order, so piece 0's
#   as_strided raises before piece 1's arithmetic runs: the backend now
#   checks each piece's as_strided (set_strided_checks, impl/ops.h) before
#   the next piece's overflow. t3 and t4 keep the undefined case: piece 0
#   is valid there, piece 1 overflows.
# found: 2026-12-01, cow_fuzzer -seed=922 (10 minutes from a merged corpus)
t0 = rand [0,3,4611686018427387904] i32 3
t1 = chunk t0 2 1 0
t2 = split t0 2 1 1
t3 = full [1,3,0] 1 f32
t4 = as_strided t3 [3,0] [4611686018427387904,1] 0
t5 = chunk t4 2 0 0
