# storcheck program v1
# property: pytorch.eager_matches_libtorch
# known: pytorch-sparse-coo-indices-converted
# what: F4 - sparse_coo_tensor of i32 indices: LibTorch's at::sparse_coo_tensor
#   raises (expected scalar type Long but found Int), as the reference does;
#   Python's torch.sparse_coo_tensor converts the indices to a new int64
#   tensor (the sparse tensor then shares no storage with t0; float indices
#   are truncated), a difference of the front ends (checked in PyTorch 1.13)
# found: 2026-12-02 by pytorch.eager_matches_libtorch (seed 1906, program
#   107, shrunk to 3 steps), once the sparse programs drew invalid
#   sparse_coo_tensor steps
t0 = arange [1,2] i32
t1 = rand [2] f32 514703602
t2 = sparse_coo_tensor t0 t1 [10]
