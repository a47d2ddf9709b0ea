# storcheck program v1
# Found by views_fuzzer under UBSan (issue 6): the LibTorch backend's reshape
# inferred the shape with at::infer_size_dv, inlined from ATen/InferSize.h,
# whose int64 product of the sizes overflowed (signed overflow, undefined).
# It now infers with the product taken modulo 2^64, as LibTorch's compiled
# reshape and the reference (wrap_mul) do.
t0 = ones [4] f32
t1 = reshape t0 [4611686018427387904,2]
t2 = reshape t0 [-1,4611686018427387904,4]
t3 = flatten t0 0 0
t4 = reshape t0 [2,-1]
# An empty tensor: the wrapped product is 0, numel's; LibTorch then computes
# the new numel with checked arithmetic and raises (S9).
t5 = zeros [0] f32
t6 = reshape t5 [4611686018427387904,4]
t7 = view t5 [4611686018427387904,4]
t8 = reshape t5 [0,4611686018427387904,4]
