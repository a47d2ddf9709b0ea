# storcheck program v1
# target: cow_fuzzer
# what: Note [out=] 7 (impl/ops.cpp): add_out into an out of other sizes
#   restrides out only when TensorIterator's layout is permuted; for the
#   identity order it keeps resize_'s contiguous strides, even wrapped
#   negative ones of a 0-element input of huge sizes: PyTorch 1.13's
#   torch.add(t1, -1, out=t2) with t1 = zeros(0,3,2**62).clone() leaves t2
#   of sizes [0,3,2^62] and strides [-2^62,2^62,1] and raises nothing. The
#   reference raised the restride's "Negative strides" error here for a
#   while (its check must follow the permuted case only).
# found: cow_fuzzer -seed=973, 2026-12-02, after 27,486 inputs (storcheck
#   minimize: 13 -> 5 steps; rand replaced by zeros by hand)
t0 = zeros [0,3,4611686018427387904] i64
t1 = clone t0
t2 = arange [256,4,1,4] f32
add_out t2 t1 -1
