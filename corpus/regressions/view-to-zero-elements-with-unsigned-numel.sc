# storcheck program v1
# target: views_fuzzer
# what: view of a 0-element tensor as [2, 2^63-1, 0, 1]. LibTorch 1.13
#   computes the new sizes' numel as an unsigned product
#   (safe_compute_numel): 2 * (2^63-1) = 2^64-2 fits in uint64, then 0, so
#   the view is made; the reference checked a signed product, which
#   overflows at the second size, and raised storage_size_overflow. It now
#   uses the unsigned rule, which still raises where uint64 overflows
#   ([4, 2^63-1, 0]: t2) and for reshape alike (t3, t4).
# found: 2026-12-01 by views_fuzzer (10-minute run from the seeds,
#   -seed=505), minimized 11 -> 2 steps by `storcheck minimize`.
t0 = rand [2,0,4] f64 7
t1 = view t0 [2,9223372036854775807,0,1]
t2 = view t0 [4,9223372036854775807,0,1]
t3 = reshape t0 [2,9223372036854775807,0]
t4 = reshape t0 [4,9223372036854775807,0]
