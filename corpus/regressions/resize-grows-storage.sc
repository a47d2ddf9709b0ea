# storcheck program v1
# what: resize_ of a view grows the shared storage to (numel + offset) *
#   itemsize; new bytes are defined as zero (R6); same sizes keep strides
# found: 2026-11-30, hand-written seed for the gate
t0 = arange [2,3] f32
t1 = slice t0 0 1 2 1
resize_ t1 [2,3]
t2 = t t0
resize_ t2 [3,2]
