# storcheck program v1
# what: S5 - a zero-element contiguous tensor whose strides wrapped around
#   int64 (a huge size beside a zero size) carries negative strides;
#   clone_preserve_strides ends in as_strided, which refuses them
#   (invalid_argument); the reference used to accept them
# found: 2026-11-30 by cow_fuzzer
t0 = arange [0,3,4,4,4,9223372036854775807,3,2] f64
t1 = clone_preserve_strides t0
