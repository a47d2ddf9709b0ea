# storcheck program v1
# target: fake_fuzzer
# what: S8 - fill_ through ccol_indices of an nnz-0 CSC tensor makes every
#   range [3, 3): empty, so to_dense reads nothing and LibTorch gives zeros.
#   The reference called any range past nnz out of bounds and observed no
#   values.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, scripts/sanitize.sh)
t0 = zeros [2,2] u8
t1 = to_sparse_csc t0
t2 = ccol_indices t1
fill_ t2 3
t3 = to_dense t1
