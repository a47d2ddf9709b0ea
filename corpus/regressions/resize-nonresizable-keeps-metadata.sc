# storcheck program v1
# known: resize-nonresizable-not-atomic-1.13
# what: S10 - resize_ that must grow a non-resizable storage raises and, in
#   the reference, leaves sizes, strides and storage unchanged; LibTorch 1.13
#   changes the sizes first (an expected failure on 1.13 that the gate flags
#   once it stops reproducing)
# found: 2026-11-30 by views.errors_agree
t0 = arange [] f32
set_nonresizable t0
resize_ t0 [1,3]
