# storcheck program v1
# target: fake_fuzzer
# what: slice of a 2-element dim by step 2^63-1. LibTorch 1.13's slice
#   computes (end - start + step - 1) / step in signed int64: 2 + 2^63 - 2
#   overflows (undefined behaviour, S8) to a size of -1, and its bounds
#   check then said out_of_bounds where the reference, which mirrored the
#   wrap, said storage_size_overflow. Every backend now refuses a slice or
#   narrow whose offset, size or stride arithmetic overflows with
#   kUndefinedBehavior, after LibTorch's own argument checks
#   (slice_arithmetic_overflows, impl/ops.h): t2 (size), t4 (stride 2 of
#   the meta tensor * step 2^62), t7 (start 2 * stride 2^62, through
#   narrow, on a 0-element view), t8 (a piece of a split, which narrows).
#   The near misses t3, t5 and t9 run, and a zero step (t10) is still
#   LibTorch's own error.
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds,
#   -seed=202, at input 124,818), minimized 35 -> 3 steps by
#   `storcheck minimize`.
t0 = empty_strided [2,3] [1,1] f32
t1 = to_meta t0
t2 = slice t1 -2 -3 16 9223372036854775807
t3 = slice t1 0 0 2 9223372036854775806
t4 = slice t1 1 0 3 4611686018427387904
t5 = slice t1 1 0 3 2305843009213693952
t6 = as_strided t0 [3,0] [4611686018427387904,1] 0
t7 = narrow t6 0 2 1
t8 = split t6 1 0 0
t9 = narrow t6 0 1 1
t10 = slice t1 0 0 2 0
