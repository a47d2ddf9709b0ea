# storcheck program v1
# target: shrink_fuzzer
# what: resize_ t1 [2^63-1, 2, 0]: numel 0. The reference computed numel
#   with signed checks that stop at 2^63-1 * 2 and, ignoring the failure,
#   read an uninitialized count (gcc: ok by chance; clang/ASan: a charge of
#   423037151833984 bytes, resource_limit). The LibTorch backend's own
#   pre-check called the same product a storage size overflow. LibTorch
#   1.13 multiplies in uint64 (safe_compute_numel): [2^63-1, 2, 0] is numel
#   0 and resizes; [2^63-1, 4, 0] overflows uint64 and raises "numel:
#   integer multiplication overflow". Geometry::numel now gives 0 for any
#   size-0 dim, and the backend mirrors 1.13's unsigned product.
# found: 2026-12-01 by shrink_fuzzer (10-minute run from the seeds,
#   -seed=41, at input 367,436), minimized 32 -> 2 steps by hand.
t1 = full [3] 255 f32
resize_ t1 [9223372036854775807,2,0]
t2 = full [3] 255 f32
resize_ t2 [9223372036854775807,4,0]
t3 = full [3] 255 f32
resize_ t3 [2,0,9223372036854775807,9223372036854775807]
