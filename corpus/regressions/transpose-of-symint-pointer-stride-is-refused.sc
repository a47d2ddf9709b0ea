# storcheck program v1
# target: cow_fuzzer
# what: transpose of two distinct dims of a numel-0 tensor with a stride in
#   LibTorch 1.13's symbolic-pointer range [-2^63, -2^62) (resize_ to
#   [0,3,2^62-1000] gives the contiguous stride -2^62-3000): at::transpose
#   copies the sym_strides, dereferencing that stride as a SymInt node
#   pointer (PyTorch 1.13 segfaults on
#   torch.zeros(0,3,2**62-1000,dtype=torch.int64).transpose(0,1)). The
#   LibTorch backend refuses the step (S8); a transpose of a dim with itself
#   copies nothing and runs (t1). Other views of such a tensor raise 'cannot
#   be represented as a SymInt' (known divergence symint-range-1.13).
# found: probing the ops of the language after the clone finding
#   (cow_fuzzer -seed=945), 2026-12-01
t0 = zeros [2] i64
resize_ t0 [0,3,4611686018427386904]
t1 = transpose t0 2 -1
t2 = transpose t0 0 1
