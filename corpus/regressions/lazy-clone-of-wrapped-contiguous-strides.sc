# storcheck program v1
# target: cow_fuzzer
# what: lazy_clone of a 0-element tensor whose contiguous strides wrapped
#   past int64 (dim 1's stride is -64, see
#   meta-of-wrapped-contiguous-strides.sc). The LibTorch backend builds the
#   clone's TensorImpl with set_sizes_and_strides, which recomputes the
#   negative stride with an overflowing signed multiply; it now refuses the
#   step (S8) and the reference's lazy clone is still checked by the
#   invariants.
# found: 2026-12-01 with the meta case, by reading the backend's other
#   set_sizes_and_strides calls.
t0 = rand [4,2,64,0,9223372036854775807,0] f32 7
t1 = lazy_clone t0
