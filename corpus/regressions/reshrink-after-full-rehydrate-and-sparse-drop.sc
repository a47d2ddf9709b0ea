# storcheck program v1
# target: fake_fuzzer
# what: a bug in the runner's incremental observation (Note [Incremental
#   observation] rule 5), not in a backend. rehydrate ran while a
#   sparse-tainted variable lived (t2, the operand of a sparse step, here
#   one that failed), so it was observed in full, and that early return
#   skipped restore-tainting the variables it restored. Once t2 was dropped
#   the reshrink was observed incrementally from an empty seed set: t0's
#   16-byte storage, emptied again by reshrink, stayed in the observation
#   and the R5 hook reported "after reshrink, t0's storage still holds 16
#   bytes". The full observation now comes after the set and its taint.
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds,
#   -seed=808), minimized 31 -> 8 steps by `storcheck minimize`.
t0 = empty_strided [2,3] [1,1] f32
t1 = expand t0 [2,-1]
shrink t1
t2 = arange [2,4] f32
t3 = to_sparse_coo t2 -3
rehydrate
drop t2
reshrink
