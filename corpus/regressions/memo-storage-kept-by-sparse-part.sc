# storcheck program v1
# target: fake_fuzzer
# what: F3 - the ccol_indices part of a CSC tensor was converted while t2
#   viewed it; after `drop t2` the sparse tensor t1 still holds that
#   storage, so after a sweep the memo rightly keeps it pending. The F3
#   invariant counted only storages of live variables and reported a leak;
#   it now counts every converted storage still alive.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, scripts/sanitize.sh)
t0 = ones [2,2] f32
t1 = to_sparse_csc t0
t2 = ccol_indices t1
drop t2
sweep
t3 = values t1
drop t1
