# storcheck program v1
# target: fake_fuzzer
# what: to_sparse_bsc of a [2,100000] f32 tensor (800,000 bytes dense).
#   Its values are observed through to_dense, whose blocked path reshapes
#   the blocks buffer into a second, copied tensor of the same size: the
#   reference charged both to a scratch budget whose total was one
#   tensor's limit (1 MiB), so t2's values were unobservable where the
#   LibTorch backend, which checks the dense form's own bytes against that
#   limit, read them. The reference's to_dense now charges the result's
#   bytes once (the copy replaces the buffer already charged), as the
#   LibTorch backend does, so the dense form's own bytes decide, and a
#   to_dense step near the program's total no longer fails in the
#   reference alone (t3).
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds,
#   -seed=303), minimized 51 -> 4 steps by `storcheck minimize`.
t0 = arange [3] f32
resize_ t0 [2,100000]
t1 = clone_preserve_strides t0
t2 = to_sparse_bsc t1 [2,2]
t3 = to_dense t2
