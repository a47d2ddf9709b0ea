# storcheck program v1
# target: fake_fuzzer
# what: strides of values() of to_sparse_coo(t0, 2) for t0 = full
#   [1,1,1,1,3,1,5] with dims 1 and 5 transposed (strides
#   [15,5,15,15,5,15,1]). The first fix of the values layout (see
#   to-sparse-coo-values-keep-dense-layout.sc) zeroed the strides of size-1
#   dims as if they broadcast, and gave [15,15,15,5,5,1]; TensorIterator
#   keeps an operand's own stride on a size-1 dim of the iteration shape,
#   and LibTorch 1.13 gives [15,15,15,5,15,1]. Fixed in the same Note
#   [Values layout of to_sparse] (impl/sparse.cpp), which now also models
#   the index operands' view strides.
# found: 2026-12-01 by fake_fuzzer (10-minute run, -seed=31, at input
#   34,234), minimized 40 -> 4 steps by `storcheck minimize`.
t0 = full [1,1,1,1,3,1,5] 2 f32
transpose_ t0 1 -2
t1 = to_sparse_coo t0 2
t2 = values t1
