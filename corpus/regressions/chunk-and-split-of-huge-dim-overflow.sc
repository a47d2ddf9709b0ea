# storcheck program v1
# target: fake_fuzzer
# what: chunk and split of a dim of size near 2^63. LibTorch computes
#   `dim_size + chunks - 1` (chunk) and `dim_size + split_size - 1` (split,
#   also inside chunk) in signed int64: an overflow, undefined behaviour
#   (S8), and the reference overflowed the same way (UBSan). Every backend
#   now refuses such a step with kUndefinedBehavior once LibTorch's own
#   argument checks pass (split_arithmetic_overflows, impl/ops.h): t2 (the
#   first sum overflows), t3 and t5 (the inner split's sum overflows), t6
#   (split). The near misses t8, t9 and t10 run (the inner sum of t8 is
#   exactly 2^63-1), and a bad dim (t11) is still LibTorch's dim error.
# found: 2026-11-30 by fake_fuzzer under UBSan (10-minute run from the
#   seeds), minimized by hand to 3 steps.
t0 = zeros [1] f32
t1 = expand t0 [9223372036854775807]
t2 = chunk t1 2 0 0
t3 = chunk t1 1 0 0
t4 = expand t0 [4611686018427387905]
t5 = chunk t4 1 0 0
t6 = split t4 4611686018427387904 0 1
t7 = expand t0 [4611686018427387904]
t8 = chunk t7 1 0 0
t9 = split t7 4611686018427387904 0 0
t10 = chunk t7 2 0 1
t11 = chunk t1 2 5 0
