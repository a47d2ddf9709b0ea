# storcheck program v1
# what: Note [Compressed parts are the inputs] (impl/sparse.cpp) -
#   sparse_csr_tensor keeps the tensors it is given as its parts, as 1.13
#   does: unsqueeze_ of the compressed indices makes the sparse tensor
#   report dense_dim -1 and crow_indices of rank 2 (its sizes stay), and
#   to_dense then refuses the parts that fail the construction checks (S8);
#   a write to the values input is seen through the sparse tensor. The
#   reference made dense_dim a fixed field, and the fake twin's to_dense
#   raised the hybrid error where the real run refused.
# found: 2026-12-02, the first run of sparse_csr_tensor against LibTorch
t0 = arange [4] i64
t1 = zeros [3] i64
t2 = rand [3] f32 1
t3 = sparse_csr_tensor t0 t1 t2 [3,4]
t4 = crow_indices t3
add_ t2 1
t5 = values t3
unsqueeze_ t0 0
t6 = crow_indices t3
t7 = to_dense t3
