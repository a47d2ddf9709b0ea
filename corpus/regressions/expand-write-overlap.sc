# storcheck program v1
# what: S7 - in-place arithmetic on an expanded tensor raises internal
#   overlap; fill_ is idempotent and allowed
# found: 2026-11-30, hand-written seed for the gate
t0 = arange [3,1] f32
t1 = expand t0 [3,4]
add_ t1 1
fill_ t1 2
copy_ t1 t0
t2 = clone t1
