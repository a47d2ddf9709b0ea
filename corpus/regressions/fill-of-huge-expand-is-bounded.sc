# storcheck program v1
# target: cow_fuzzer
# what: fill_ of t1 = expand of a 1-element tensor to [3,4,2^31]: 2.6e10
#   element writes (LibTorch's fill_ accepts a view that repeats offsets;
#   it is idempotent), so both backends ran for minutes and libFuzzer
#   reported a timeout. fill_ and zero_ now raise resource_limit past
#   Limits::max_step_reads elements in every backend, right after their S8
#   check, as sum and to_sparse_* do (Note [Elements a step reads],
#   impl/ops.h); a fill_ of a smaller expand still runs.
# found: 2026-12-01 by cow_fuzzer (10-minute run from the seeds, -seed=37,
#   at input 311,924), minimized 25 -> 4 steps by hand.
t0 = zeros [1] i64
t1 = expand t0 [3,4,2147483648]
fill_ t1 -0.0
zero_ t1
t2 = expand t0 [3,4]
fill_ t2 7
