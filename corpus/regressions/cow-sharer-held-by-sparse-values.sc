# storcheck program v1
# what: C2 invariant - sparse_coo_tensor aliases its values t1; lazy_clone
#   t1 shares t1's block with t3; after drop t1 the sparse tensor t2 still
#   holds t1's storage, so the block has two sharers though one variable
#   names it. The reference counted right; the C2 check counted only the
#   storages variables name and now allows sharers that a live sparse
#   tensor's parts hold (harness/invariants.cpp).
# found: 2026-11-30, fake_fuzzer (seed 10), minimized 63 -> 5 steps
t0 = rand [1,5] i64 7
t1 = rand [5,2] f32 8
t2 = sparse_coo_tensor t0 t1 [10,2]
t3 = lazy_clone t1
drop t1
drop t2
add_ t3 1
