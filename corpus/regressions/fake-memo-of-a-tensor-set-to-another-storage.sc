# storcheck program v1
# what: F2/F3 after set_: a converted tensor that set_ moves to another
#   storage keeps its memo entry (the same live tensor converts to the same
#   meta tensor, of its old geometry: PyTorch 1.13's converters do the
#   same), and that entry keeps its old storage's entry, dead or not, until
#   the tensor dies; the new storage's entry, named by no live tensor's
#   entry once t1 dies, is pending. The invariants' F2 and F3 checks count
#   both (harness/invariants.cpp).
# found: 2026-12-01 by `storcheck check fake.memo_weak_no_leak --seed 777`
#   when set_ joined the language (program 4,383)
t0 = arange [] f64
t1 = lazy_clone t0
set_ t0 t1
drop t1
t2 = fake t0
t3 = ones [2] f64
t4 = meta t3
set_ t3 t0
t5 = meta t3
drop t2
sweep
memo_stats
