# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-memo-stale-after-inplace-metadata-1.13
# what: F1, F2 - meta of t0 after t_ has t0's current sizes [4, 2]; PyTorch
#   1.13's MetaConverter converted t0 as the base of the view t1 and returns
#   that memoized conversion from before the t_ (sizes [2, 4]): an upstream
#   limitation
# found: 2026-11-30 by pytorch.fake_matches_reference (seed 4, program 126)
t0 = empty_strided [2,4] [4,4] u8
t1 = select t0 1 1
t2 = meta t1
t_ t0
t3 = meta t0
