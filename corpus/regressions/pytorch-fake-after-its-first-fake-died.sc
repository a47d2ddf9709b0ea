# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-fake-memo-weak-values-1.13
# what: F2 - t1, the fake of t0, is transposed in place and dropped; F2
#   gives the same fake for t0 while t0 lives, so the reference's t2 is that
#   fake (sizes [2, 1]). PyTorch 1.13's FakeTensorConverter holds fakes
#   weakly: t1 died, and t2 is a new fake made from the MetaConverter's memo
#   (sizes [1, 2]). The PyTorch backend notes the memo miss (Note [Stale
#   converter memo entries] in oracles/python_backend.py)
# found: 2026-12-05 by pytorch.fake_matches_reference (seed 1936, program
#   20589, shrunk to 5 steps), once the entry for stale memo entries matched
#   only noted steps (before, it took this divergence for one of them)
t0 = arange [1,2] f32
t1 = fake t0
transpose_ t1 -1 0
drop t1
t2 = fake t0
