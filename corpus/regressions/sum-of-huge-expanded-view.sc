# storcheck program v1
# what: Note [Elements a step reads] (impl/ops.h) - sum of an expand of 4
#   elements to [100000, 1000, 4] read 4e8 elements (20 s in the reference),
#   and of an overlapping as_strided view 1e10 (minutes in LibTorch too).
#   Every backend now raises resource_limit past Limits::max_step_reads
#   elements for sum and to_sparse_*, after the S8 check; at the limit
#   (2^20 elements) the sum runs.
# found: 2026-11-30, while bounding the observation of such views
t0 = arange [4] f32
t1 = expand t0 [100000,1000,4]
t2 = sum t1
t3 = arange [4000] i32
t4 = as_strided t3 [100,100,100,100,100] [1,1,1,1,1] 0
t5 = sum t4
t6 = to_sparse_csr t4
t7 = expand t0 [262144,4]
t8 = sum t7
