# storcheck program v1
# property: pytorch.eager_matches_libtorch
# known: pytorch-unflatten-empty-sizes-checked-first
# what: S6 - unflatten of a 0-dim tensor at dim -2 with no sizes: ATen's
#   unflatten wraps the dim first and raises dim_out_of_range, as LibTorch
#   and the reference do; Python's Tensor.unflatten (torch/_tensor.py)
#   raises "unflatten: sizes must be non-empty" before it calls ATen, a
#   difference of the two front ends (checked in PyTorch 1.13; the same
#   check stands in later PyTorch)
# found: 2026-12-05 by pytorch.fake_matches_reference (seed 1937, program
#   51864, shrunk to 5 steps: on a meta tensor that resize_ made 0-dim)
t0 = zeros [] f32
t1 = unflatten t0 -2 []
