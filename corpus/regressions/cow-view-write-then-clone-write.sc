# storcheck program v1
# what: C3/C4 - PyTorch's own COW scenario: a lazy clone, a view of the
#   source taken after it, a write through the view (the source copies: the
#   clone still shares the block... then the clone is the last sharer), then
#   a write through the clone, which keeps its original address (C4, Case 3)
#   and sees none of the source's writes (C6)
# found: 2026-11-30, from c10/core/impl/README-cow.md's scenarios
t0 = arange [4,4] f32
t1 = lazy_clone t0
t2 = slice t0 0 1 3 1
add_ t2 10
fill_ t1 -1
t3 = clone t1
t4 = sum t0
