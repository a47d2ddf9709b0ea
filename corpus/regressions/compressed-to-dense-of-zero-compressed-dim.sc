# storcheck program v1
# target: fake_fuzzer
# what: a compressed tensor whose compressed dim is 0 (CSR and BSR rows,
#   CSC and BSC columns) with one plain index: sparse_csr_tensor accepts it
#   (no row to check the index against), and 1.13's to_dense raises on it,
#   reshaping the 0-element result to [-1, 0, 4] (CSR, CSC) or selecting
#   block 0 of none (BSR, BSC). The reference gave an empty dense tensor,
#   so it observed values LibTorch cannot densify (Note [PyTorch 1.13
#   sparse conversions], 6, impl/sparse.cpp). t11 has nnz 0: zeros.
# found: 2026-12-03, fake_fuzzer -seed=1000 after 4 minutes
t0 = zeros [1] i64
t1 = zeros [1] f32
t2 = zeros [1,2,2] f32
t3 = sparse_csr_tensor t0 t0 t1 [0,4]
t4 = to_dense t3
t5 = sparse_csc_tensor t0 t0 t1 [4,0]
t6 = to_dense t5
t7 = sparse_bsr_tensor t0 t0 t2 [0,4]
t8 = to_dense t7
t9 = zeros [0] i64
t10 = zeros [0] f32
t11 = sparse_csr_tensor t0 t9 t10 [0,4]
t12 = to_dense t11
t13 = sparse_bsc_tensor t0 t0 t2 [4,0]
t14 = to_dense t13
