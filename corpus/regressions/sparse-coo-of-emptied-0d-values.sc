# storcheck program v1
# target: fake_fuzzer
# what: crash of the reference - sparse_coo_tensor of a 0-d values tensor
#   whose storage was shrunk (R2: emptied). The reference expands a 0-d
#   value to [1] (LibTorch's expand_values_if_needed) and took the view's
#   result without checking it; the view is bounds-checked (S5, R4) and
#   failed, so `.value()` of the error ended the process (std::terminate).
#   The reference now returns expand's out_of_bounds error, which is what
#   LibTorch 1.13 raises too ("setStorage: ... out of bounds for storage of
#   size 0").
# found: 2026-12-01 by fake_fuzzer (8-minute run from the seeds, -seed=7),
#   minimized by hand from 62 steps to 6.
t0 = arange [2] f32
t1 = sum t0
t2 = clone t1
shrink t2
t3 = zeros [1,1] i64
t4 = sparse_coo_tensor t3 t2 [10]
