# storcheck program v1
# what: R5's reshrink check (harness/invariants.cpp ReshrinkHook) follows
#   the storages rehydrate restored: a tensor that set_ moved to another
#   storage is not reshrunk, and neither is any variable bound to the same
#   tensor object (t2: contiguous of the contiguous t0 returns t0 itself).
#   The hook forgot t2 and reported "after reshrink, t2's storage still
#   holds 1 bytes" where the reference, LibTorch and R5 all agree.
# found: 2026-12-02 by `storcheck gate --seed 16161 --budget 1200 --jobs 1`
#   (shrink.reshrink_returns_to_zero, program 9156, shrunk to 7 steps)
t0 = arange [] u8
resize_storage t0 0
t1 = clone t0
t2 = contiguous t0
rehydrate
set_ t0 t1
reshrink
