# storcheck program v1
# property: pytorch.eager_matches_libtorch
# what: sparse_csr_tensor of sizes with a negative entry: 1.13 checks the
#   parts, then computes the numel unsigned (storage_size_overflow for
#   [3,-4]; [0,-4] multiplies to 0 and builds a tensor whose to_dense
#   raises). The PyTorch backend observed that tensor's values as empty
#   where the others cannot densify it.
# found: 2026-12-02, the first run of sparse_csr_tensor against LibTorch
t0 = zeros [4] i64
t1 = zeros [0] i64
t2 = rand [0] f32 1
t3 = sparse_csr_tensor t0 t1 t2 [3,-4]
t4 = zeros [1] i64
t5 = sparse_csr_tensor t4 t1 t2 [0,-4]
t6 = values t5
t7 = to_dense t5
