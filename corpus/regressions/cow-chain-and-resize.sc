# storcheck program v1
# what: C2/C8 - lazy clones of a lazy clone join one block of three
#   sharers; resizing one copies into fresh memory and leaves the group
#   without materializing the others; a foreign-owned buffer cannot be
#   lazily cloned (C7) and is left untouched
# found: 2026-11-30, written for the COW properties
t0 = rand [2,3] f64 5
t1 = lazy_clone t0
t2 = lazy_clone t1
resize_storage t1 64
mul_ t2 2
drop t0
mutable_data_ptr t2
t3 = from_blob [2,2] i32
t4 = lazy_clone t3
fill_ t3 7
