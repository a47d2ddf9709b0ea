# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-memo-stale-after-inplace-metadata-1.13
# what: F2 - PyTorch 1.13's MetaConverter converts t2 (a view) by converting
#   its base t0 first, and memoizes t0's conversion; set_ then moves t0 onto
#   t1's storage, but the memo entry keeps t0's old storage, so `meta` of
#   t4 (a view of t0 made after the set_) is built on it and shares storage
#   with t3 (alias class t#3); the reference converts t4 over a meta twin
#   of t1's storage (alias class t#5). The PyTorch backend notes the stale
#   entry (Note [Stale converter memo entries] in oracles/python_backend.py)
# found: 2026-12-05 by pytorch.fake_matches_reference (seed 1936, program
#   138750, shrunk to 7 steps)
t0 = zeros [] f32
t1 = rand [] f32 585481964
t2 = expand t0 [3,3]
t3 = meta t2
set_ t0 t1
t4 = permute t0 []
t5 = meta t4
