# storcheck program v1
# property: pytorch.eager_matches_libtorch
# what: expand checks like ATen: the number of sizes first, then the dims
#   from the last to the first. [-1,3,5] on a [4,3] tensor fails at dim 2
#   (5 vs 3: shape_mismatch) before dim 0's -1 in a new leading dim; the
#   reference and the LibTorch backend's pre-check looked at the -1 first
#   and said invalid_argument where PyTorch says shape_mismatch. [-2,4,3]
#   passes dims 2 and 1 and reaches the policy's size below -1 (S8).
# found: 2026-12-05 by pytorch.eager_matches_libtorch (seed 1933, program
#   104294, after resize-nonresizable-not-atomic-1.13 left LibTorch's t0
#   [4,3]). The PyTorch backend refuses the last step (a size below -1).
t0 = arange [4,3] f32
t1 = expand t0 [-1,3,5]
t2 = expand t0 [-1,3]
t3 = expand t0 [-2,4,3]
