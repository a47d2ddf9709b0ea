# storcheck program v1
# target: fake_fuzzer
# what: coalesce of a COO tensor with duplicate indices. LibTorch allocates
#   the new indices and values for the old nnz (5) and narrows them to the
#   new nnz (3): the bytes past it are never written, and resize_ growth
#   (the fuzzer's find) or as_strided read them. Under ASan, whose malloc
#   fills with 0xbe, t4 after resize_ read [0, 8, 9, -4702111234474983746,
#   ...] in LibTorch and [0, 8, 9, 0, ...] in the reference. Those bytes are
#   now defined as zero in every backend and reproducer (Note [Coalesce
#   slack] in oracles/torch_backend.cpp; the `coalesce` helper of the
#   emitted scripts). t11 (2 sparse dims, nnz 4 -> 1) leaves a tail in each
#   indices row.
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds, -seed=101,
#   in its first minute), minimized 53 -> 7 steps by `storcheck minimize`.
t0 = rand [1,5] i64 7
t1 = rand [5,2] f32 8
t2 = sparse_coo_tensor t0 t1 [10,2]
t3 = coalesce t2
t4 = indices t3
t5 = values t3
t6 = as_strided t4 [5] [1] 0
t7 = as_strided t5 [5,2] [2,1] 0
resize_ t4 [100]
t8 = zeros [2,4] i64
t9 = rand [4] f64 5
t10 = sparse_coo_tensor t8 t9 [10,10]
t11 = coalesce t10
t12 = indices t11
t13 = as_strided t12 [2,4] [4,1] 0
