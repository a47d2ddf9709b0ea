# storcheck program v1
# property: pytorch.memo_weak_no_leak
# known: pytorch-fake-memo-hit-leaks-1.13
# what: F3 - PyTorch 1.13's FakeTensorConverter returns the fake of a live
#   real tensor from its memo on a second conversion, and its _get_memo calls
#   _fix_weakref() on it first; such a fake outlives every reference: at the
#   sweep, after gc.collect(), it is alive with t0 dead, no variable holding
#   it and the memo empty (converted once, none is). The reference's memo is
#   weak and leaks nothing. Plain PyTorch 1.13, no storcheck: 100 of 100
#   fakes converted twice in a loop stay alive.
# found: 2026-12-02 by pytorch.eager_matches_libtorch, pytorch.fake_matches_reference
#   and pytorch.memo_weak_no_leak (seed 1908, program 1679: a sparse COO
#   tensor converted twice), shrunk to 8 steps, then to this dense program
#   by hand
t0 = arange [4] f32
t1 = fake t0
t2 = fake t0
drop t0
drop t1
drop t2
sweep
