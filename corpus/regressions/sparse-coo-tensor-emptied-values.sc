# storcheck program v1
# target: fake_fuzzer
# what: S8 - sparse_coo_tensor reads its indices (their bounds) and only
#   aliases its values, so an emptied values tensor (R2) is no reason to
#   refuse: the reference reports the nnz mismatch (5 vs 4), as LibTorch
#   does. The LibTorch backend refused first with undefined_behavior on the
#   values. A matching nnz then builds a tensor whose values part is
#   undersized: to_dense of it is refused (S8) by both.
# found: 2026-11-30 by fake_fuzzer (seed 21, minimized 43 -> 4 steps)
t0 = full [4,4] 2 f64
shrink t0
t1 = rand [1,5] i64 7
t2 = sparse_coo_tensor t1 t0 [10,2]
t3 = full [5,2] 1 f64
shrink t3
t4 = sparse_coo_tensor t1 t3 [10,2]
t5 = to_dense t4
