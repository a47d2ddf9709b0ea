# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-meta-sparse-coo-nnz-0-1.13
# what: F4 - storcheck's meta of a COO tensor is the faithful mode (nnz 5
#   kept); PyTorch 1.13's MetaConverter gives nnz 0 by design
# found: 2026-11-30 by pytorch.fake_matches_reference
t0 = arange [2,3] f32
t1 = to_sparse_coo t0 2
t2 = meta t1
