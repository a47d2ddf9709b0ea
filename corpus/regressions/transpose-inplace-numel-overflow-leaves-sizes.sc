# storcheck program v1
# target: views_fuzzer
# what: transpose_ of a 0-element tensor of sizes [2^63-1, 0, 3] into
#   [2^63-1, 3, 0]. LibTorch 1.13 counts numel as an unsigned product that
#   overflows before it reaches the 0 (safe_compute_numel) and raises
#   "numel: integer multiplication overflow", but only after
#   set_sizes_and_strides has set the new sizes; the reference raises and
#   keeps them (S10). The LibTorch backend now checks the new sizes first
#   for transpose_ and as_strided_ (with a size-0 dim: without one
#   LibTorch's bounds check raises before it sets anything; t_ has two
#   dims, whose product cannot overflow before a 0), and the PyTorch
#   backend refuses such a step (case 1). t0 keeps
#   [2^63-1, 0, 3]; the swap that does not overflow (t1, dims 1 and 0:
#   [0, 2^63-1, 3]) runs; as_strided_ to the overflowing order is refused
#   alike (t2).
#   The check comes after as_strided_'s own: a stride that wrapped negative
#   (t4's contiguous strides) raises invalid_argument first, in both
#   (found by shrink_fuzzer, -seed=606, when the check came first).
# found: 2026-12-01 by views_fuzzer (10-minute run from the seeds,
#   -seed=404), minimized 28 -> 2 steps by `storcheck minimize`.
t0 = full [9223372036854775807,0,3] 1 f32
transpose_ t0 -1 1
t1 = full [9223372036854775807,0,3] 1 f32
transpose_ t1 1 0
t2 = full [9223372036854775807,0,3] 1 f32
as_strided_ t2 [9223372036854775807,3,0] [3,1,3] 0
t4 = zeros [0,3,4,3,1,0,9223372036854775807] i64
transpose_ t4 0 -1
