# storcheck program v1
# target: fake_fuzzer
# what: Limits (S9) - to_sparse_csr of a [100000,2] f32 tensor (800,000
#   bytes) allocates 1,600,000 bytes of int64 col_indices. The reference
#   charged its parts to the budget and refused it (resource_limit); the
#   LibTorch backend did not count sparse parts and ran it. Both now charge
#   every part of to_sparse_* and coalesce, one after another.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, scripts/sanitize.sh)
t0 = zeros [100000,2] f32
add_ t0 1
t1 = to_sparse_csr t0
t2 = slice t0 0 0 30000 1
t3 = to_sparse_coo t2 2
t6 = to_sparse_coo t2 2
t7 = to_sparse_coo t2 2
t8 = to_sparse_coo t2 2
t9 = to_sparse_coo t2 2
t10 = to_sparse_coo t2 2
t11 = to_sparse_coo t2 2
t12 = to_sparse_coo t2 2
t13 = to_sparse_coo t2 2
t14 = to_sparse_coo t2 2
t15 = to_sparse_coo t2 2
t16 = to_sparse_coo t2 2
t17 = to_sparse_coo t2 2
t18 = to_sparse_coo t2 2
t19 = to_sparse_coo t2 2
t20 = to_sparse_coo t2 1
