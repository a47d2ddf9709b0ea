# storcheck program v1
# target: fake_fuzzer
# what: S8 - copy_ writes [0, 1, 2] into ccol_indices of an nnz-0 CSC tensor:
#   its ranges [0, 1) and [1, 2) reach past nnz 0, so to_dense would read
#   row_indices and values out of bounds. 1.13 checks no index invariant
#   when nnz is 0; the LibTorch backend ran to_dense (UB) to observe it,
#   where the reference refuses. Both refuse now.
# found: 2026-11-30 by fake_fuzzer (seed 7, minimized 28 -> 5 steps)
t0 = zeros [2,2] u8
t1 = to_sparse_csc t0
t2 = ccol_indices t1
t3 = arange [3] f32
copy_ t2 t3
t4 = to_dense t1
