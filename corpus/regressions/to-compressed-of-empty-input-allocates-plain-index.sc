# storcheck program v1
# target: fake_fuzzer
# what: to_sparse_bsr of a 0-element [1, 0, 2^62] tensor, blocksize [1,2]:
#   LibTorch 1.13 raised a storage size overflow (an int64 tensor of 2^61
#   elements), the reference converted it. For a 0-element input 1.13
#   allocates an int64 index of the plain dim's positions (block columns
#   for CSR/BSR, block rows for CSC/BSC) whatever the input holds, and a
#   [1, 0, 2^40] input made it try 4 TiB. Both backends now check that
#   index as a transient allocation (Note [The plain index of an empty
#   input], impl/sparse.cpp): an overflow here, a resource limit for a
#   huge one.
# found: 2026-12-01, fake_fuzzer -seed=917 (10 minutes from a merged corpus)
t0 = full [2,0,4611686018427387904] 2 f32
t1 = slice t0 0 1 2 1
t2 = clone t1
t3 = to t2 i32
t4 = to_sparse_bsr t3 [1,2]
t5 = full [0,4611686018427387904] 2 f32
t6 = to_sparse_bsr t5 [1,2]
t7 = to_sparse_csr t3
t8 = full [1,4611686018427387904,0] 2 f32
t9 = to_sparse_bsc t8 [2,1]
t10 = to_sparse_csc t8
t11 = full [0,4] 2 f32
t12 = to_sparse_csr t11
t13 = to_sparse_bsc t11 [1,2]
