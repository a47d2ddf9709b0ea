# storcheck program v1
# known: meta-as-strided-overflow-unchecked-1.13
# what: F9/S9 - as_strided of a meta tensor with strides whose extent
#   overflows int64 raises storage_size_overflow; LibTorch 1.13's meta
#   as_strided skips that check, and its bounds check then computes the
#   wrapped size (4 bytes) and raises out_of_bounds for the emptied
#   (0-byte) meta storage, where a storage of 4 bytes or more passes
# found: 2026-12-06 by views.errors_agree (seed 2019, program 920828) once
#   the entry matched only a LibTorch side that raised nothing
t0 = arange [] f32
t1 = meta t0
shrink t1
t2 = contiguous t1
t3 = as_strided t2 [4] [4611686018427387904] 0
