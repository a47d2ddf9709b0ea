# storcheck program v1
# target: views_fuzzer
# what: UBSan in the LibTorch backend: flatten of a 0-element tensor over
#   dims [2^63-1, 4] took their product in int64 (signed overflow,
#   undefined) before asking ATen whether a view fits. It is now taken
#   modulo 2^64, as LibTorch's compiled flatten and the reference
#   (wrap_mul) take it, like reshape's (reshape-sizes-product-overflows.sc).
# found: 2026-12-01, views_fuzzer -seed=918 (10 minutes from a merged corpus)
t0 = zeros [0,9223372036854775807,4] u8
t1 = flatten t0 1 2
t2 = flatten t0 0 2
t5 = full [0,4,3,9223372036854775807,4,0,3] true u8
t6 = flatten t5 3 4
t7 = flatten t5 2 4
