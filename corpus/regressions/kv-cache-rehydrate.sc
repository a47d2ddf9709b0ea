# storcheck program v1
# what: R5 - rehydrate sizes the shared storage from the largest extent among
#   its emptied tensors (the base, not the offset-1 view), zeroes it, and
#   keeps the view's offset and its aliasing with the base; reshrink returns
#   it to 0 bytes; writes through the view are seen through the base.
# found: 2026-11-30, written for the rehydrate-from-one-view fault
t0 = rand [1,8,128,64] f32 11
t1 = slice t0 3 1 64 1
t2 = narrow t0 2 0 4
shrink t0
rehydrate
fill_ t1 2.5
t3 = clone t2
reshrink
t4 = clone t0
t5 = select t1 2 3
