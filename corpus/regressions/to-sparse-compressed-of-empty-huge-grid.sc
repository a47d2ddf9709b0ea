# storcheck program v1
# target: fake_fuzzer
# what: Case 1 (resource limits) - a 0-element tensor of sizes
#   [100000,100000,0] converted to a compressed layout: the compressed
#   indices have batch * (rows / blocksize + 1) entries whatever the data
#   (80 GB here). The reference refused (resource_limit) but the LibTorch
#   backend let LibTorch allocate first; under ASan the allocator aborts
#   the fuzzer. The LibTorch backend now checks those bytes before LibTorch
#   runs (check_compressed_indices in oracles/torch_backend.cpp). Below the
#   limit (the CSC case: 100000 batches of one entry) the conversion runs.
# found: 2026-12-01, fake_fuzzer (seed 1, 60 s), minimized 45 -> 5 steps
t0 = ones [3] f64
t1 = contiguous t0
resize_ t1 [100000,100000,0]
t2 = mul t1 2
t3 = to_sparse_bsr t2 [1,2]
t4 = to_sparse_csr t2
t5 = to_sparse_csc t2
t6 = to_sparse_bsc t2 [2,1]
