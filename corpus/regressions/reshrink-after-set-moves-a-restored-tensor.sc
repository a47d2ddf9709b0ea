# storcheck program v1
# what: R5 with set_: rehydrate restores t0's storage; set_ then moves t0
#   to t1's storage (4 bytes, never emptied); reshrink returns the restored
#   storage to 0 bytes, not t0's new one. The invariant followed the
#   variable, not the storage (harness/invariants.cpp ReshrinkHook).
# found: 2026-12-01 by the planted-fault tests' gates when set_ joined the
#   language
t0 = arange [] f32
t1 = arange [] f32
shrink t0
t2 = unfold t1 0 1 2
rehydrate
set_ t0 t2
reshrink
