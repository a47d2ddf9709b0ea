# storcheck program v1
# target: fake_fuzzer
# what: strides of values() of to_sparse_coo(t1, 2), where t1 = add of an
#   overlapping [1,1,2,3] u8 tensor (strides [x,x,1,1]) gives [1,1,2,3]
#   with strides [6,6,1,2]. The reference made the values contiguous
#   ([6,3,1]); LibTorch 1.13 takes them from
#   self.index(indices).squeeze(0).clone(preserve_format), a TensorIterator
#   that lays them out in the input's dense-dims order: [6,1,2]. The
#   reference now computes that layout (Note [Values layout of to_sparse],
#   impl/sparse.cpp).
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds, -seed=23,
#   at input 159,395), minimized 35 -> 6 steps by `storcheck minimize`.
t0 = empty_strided [2,3] [1,1] u8
unsqueeze_ t0 0
unsqueeze_ t0 0
t1 = add t0 1.5
t2 = to_sparse_coo t1 2
t3 = values t2
