# storcheck program v1
# what: with the planted fault transpose_square_strides the reference gives a
#   square transpose the strides of its input; LibTorch does not, so the
#   emitted reproducers must fail at step 3 (harness/emit_check.sh)
t0 = arange [3,3] f32
t1 = clone t0
t2 = transpose t0 0 1
add_ t2 1
