# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-meta-set-resizes-storage-1.13
# what: F2 - meta of an emptied tensor (R2) has a 0-byte storage; PyTorch
#   1.13's MetaConverter builds it with set_, which resizes the meta storage
#   to the tensor's extent (48 bytes): an upstream bug
# found: 2026-11-30 by pytorch.fake_matches_reference (seed 1, program 9)
t0 = full [6] 2 f64
shrink t0
t1 = meta t0
