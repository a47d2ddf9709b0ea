# storcheck program v1
# known: meta-sparse-compressed-1.13
# what: F4 - fake of a CSR tensor keeps its sizes, dense_dim and index dtype
#   with nnz 0 (PyTorch 2.x's converter); LibTorch 1.13 has no meta
#   compressed sparse tensors and raises
# found: 2026-11-30 by fake.sparse_metadata
t0 = arange [2,3] f32
t1 = to_sparse_csr t0
t2 = fake t1
