# storcheck program v1
# what: contiguous() of a contiguous tensor returns the same tensor object,
#   so a later in-place metadata change is seen through both names
# found: 2026-11-30, hand-written seed for the gate
t0 = arange [2,3] i64
t1 = contiguous t0
t_ t0
t2 = contiguous t1
mul_ t2 3
