# storcheck program v1
# what: S6 - view of a transposed tensor is not expressible; reshape copies
# found: 2026-11-30, hand-written seed for the gate
t0 = arange [3,4] f32
t1 = transpose t0 0 1
t2 = view t1 [12]
t3 = reshape t1 [12]
add_ t3 1
t4 = view t0 [2,6]
add_ t4 1
