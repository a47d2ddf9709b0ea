# storcheck program v1
# known: to-meta-sparse-coo-empty-1.13
# what: F8 - to_meta of a hybrid, uncoalesced sparse COO tensor keeps nnz 3,
#   sparse_dim 1, dense_dim 1 and the coalesced flag false; LibTorch 1.13's
#   to(kMeta) gives an empty COO tensor (nnz 0, sparse_dim 2, dense_dim 0,
#   coalesced)
# found: 2026-11-30 by fake.sparse_metadata
t0 = arange [1,3] i64
t1 = ones [3,2] f32
t2 = sparse_coo_tensor t0 t1 [3,2]
t3 = to_meta t2
