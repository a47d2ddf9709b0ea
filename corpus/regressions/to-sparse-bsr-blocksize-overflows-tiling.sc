# storcheck program v1
# target: fake_fuzzer
# what: two faults on one step - to_sparse_bsr of a 0-element [0,4] tensor
#   with blocksize [INT64_MAX, 2] (any blocksize divides a 0-size dim).
#   1) The reference multiplied the blocksize's entries (block_numel) even
#      with no block stored: signed overflow, which UBSan stopped. It is now
#      read only for stored blocks.
#   2) LibTorch 1.13 tiles the input as [rows/b0, b0, cols/b1, b1] and
#      computes its strides (max(1, size) per dim) in int64: they overflow
#      (undefined behaviour in C++) and it raises "Negative strides are not
#      supported" ([2^61, 2] gives an internal SymInt assert instead). The
#      LibTorch backend now refuses such a step before LibTorch runs (S8;
#      the run is compared up to it); smaller blocksizes still run.
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds, -seed=11),
#   minimized 48 -> 2 steps by `storcheck minimize`.
t0 = arange [0,4] f32
t1 = to_sparse_bsr t0 [9223372036854775807,2]
