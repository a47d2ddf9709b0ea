# storcheck program v1
# target: fake_fuzzer
# what: sparse_coo_tensor of 0-element indices of sizes [2^63-1, 0] with
#   2-D values: LibTorch computes sparse_dim + dense_dim = (2^63-1) + 1 in
#   int64 (signed overflow: undefined behaviour) before it compares the sum
#   with the sizes' length (PyTorch 1.13 wraps and raises "number of
#   dimensions must be sparse_dim (9223372036854775807) + dense_dim (1), but
#   got 2"). The reference made the same sum and overflowed itself (UBSan in
#   impl/sparse.cpp); it now compares without overflowing and raises
#   shape_mismatch. The LibTorch backend refuses the step (S8,
#   coo_dims_overflow in oracles/layout_policy.h), the PyTorch backend too
#   (case 7), the emitted reproducers stop before it, and the run is compared
#   up to it.
# found: fake_fuzzer -seed=968, 2026-12-02, after 22,426 inputs (UBSan in the
#   reference; minimized 22 -> 3 steps by hand)
t0 = full [] 1 f32
t1 = expand t0 [9223372036854775807,0]
t2 = sparse_coo_tensor t1 t1 [1]
