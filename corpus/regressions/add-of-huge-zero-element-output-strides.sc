# storcheck program v1
# target: fake_fuzzer
# what: add/mul with a scalar of a 0-element tensor whose sizes overflow
#   when multiplied by the itemsize. TensorIterator's compatible_stride
#   builds the output strides in bytes (wrapping) and divides by the
#   itemsize after, and set_sizes_and_strides replaces a negative stride;
#   the reference multiplied in elements, so t2 had strides
#   [1,0,2^62] against LibTorch's [1,0,0]. The cases below: the byte
#   product wraps to 0 (t2), to a negative (t4, t5, t11: 1 after the
#   replacement), to a small positive (t7: 3), or stays exact (t9).
# found: 2026-12-01 by fake_fuzzer in the CI smoke run (-seed=1, 10,000
#   runs), minimized 36 -> 3 steps by hand; more cases added after probing
#   PyTorch 1.13.
t0 = empty_strided [4611686018427387904,2,0] [1,4,4] i32
t1 = to_meta t0
t2 = add t1 1.5
t3 = empty_strided [2305843009213693952,2,0] [1,4,4] f32
t4 = mul t3 2
t5 = add t3 1
t6 = empty_strided [4611686018427387907,2,0] [1,4,4] f64
t7 = add t6 1
t8 = empty_strided [576460752303423488,2,0] [1,4,4] u8
t9 = add t8 1
t10 = empty_strided [4611686018427387903,2,0] [1,4,4] f64
t11 = mul t10 3
