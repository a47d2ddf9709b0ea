# storcheck program v1
# target: fake_fuzzer
# what: F3 - `fake` of indices() (a COO part: an alias without a _base,
#   converted as a strided tensor) memoizes the part's storage; after `drop
#   t2` the sparse tensor t1 still holds it, so after a sweep the memo rightly
#   keeps it. The program-conversion F3 check counted only storages of live
#   variables and reported a leak; it now counts live sparse variables' parts.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, minimized 32 -> 6 steps)
t0 = arange [2,4] f32
t1 = to_sparse_coo t0 2
t2 = indices t1
t3 = fake t2
drop t2
sweep
drop t1
sweep
