# storcheck program v1
# target: views_fuzzer
# what: resize_ t1 [2,1,0] where t1 sits at offset 2^62 (f32). LibTorch
#   1.13's computeStorageNbytesContiguous adds the offset to numel even for
#   0 elements: (0 + 2^62) * 4 overflows and resize_ raises "Storage size
#   calculation overflowed"; the reference skipped the check for 0
#   elements and resized. Every backend now checks (numel + offset) *
#   itemsize whatever numel, before LibTorch runs: LibTorch sets the new
#   sizes before it raises, where S10 wants them unchanged (t1 stays [0]).
#   At offset 2^61 - 1 ([2,1,0]: 2^63 - 4 bytes) it still resizes (t3),
#   and so does a meta tensor whose product fits (t5).
# found: 2026-12-01 by views_fuzzer (10-minute run from the seeds,
#   -seed=101, in its first minute), minimized 12 -> 3 steps by
#   `storcheck minimize`.
t0 = zeros [2,3] f32
t1 = as_strided t0 [0] [1] 4611686018427387904
resize_ t1 [2,1,0]
t2 = zeros [2,3] f32
t3 = as_strided t2 [0] [1] 2305843009213693951
resize_ t3 [2,1,0]
t4 = to_meta t0
t5 = as_strided t4 [0] [1] 2305843009213693951
resize_ t5 [3,0]
t6 = as_strided t4 [0] [1] 4611686018427387904
resize_ t6 [3,0]
