# storcheck program v1
# known: out-restride-not-atomic-1.13
# what: Note [out=] 7 (impl/ops.cpp): add_out into an out of other sizes
#   than the input resizes out (resize_), then restrides it to the
#   iterator's strides with as_strided_, which raises on a negative stride.
#   t5 has 0 elements and huge sizes [4,4,0,1,2^63-1,2,2,1,2] and strides
#   [1,0,4,0,...] (mul's layout), so the iterator's permuted strides wrap
#   negative ([-8,-32,-128,-8,8,4,2,2,1]): PyTorch 1.13's
#   torch.add(t5, 1, out=t0) raises "as_strided: Negative strides are not
#   supported at the moment" and leaves t0 resized to t5's sizes with
#   resize_'s strides. The reference raises the same invalid_argument before
#   resizing (S10), which the known divergence names; it used to keep
#   resize_'s strides and succeed.
# found: views_fuzzer -seed=970, 2026-12-02, after about 41,700 inputs
#   (storcheck minimize: 28 -> 7 steps)
t0 = ones [2,0,3] f64
t1 = diagonal t0 0 0 2
t2 = unflatten t1 0 [4,4,0,1,9223372036854775807,2,2,1]
t3 = contiguous t2
t4 = to t3 i32
t5 = mul t4 1
add_out t0 t5 1
