# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-storage-pending-after-its-tensor-1.13
# what: F3 - t0 dies with its storage, so the reference's fake memo drops
#   both entries at once; PyTorch 1.13's MetaConverter drops the tensor entry
#   in a weakref.finalize callback that runs while the storage still lives
#   (Note [expired-storages] in meta_utils.py), so memo_stats sees its
#   storage entry pending ("0 tensors, 1 storages (1 pending)"); a sweep
#   before memo_stats clears it and the memos agree
# found: 2026-12-03 by pytorch.fake_matches_reference (seed 1924), once
#   pytorch-memo-keeps-view-bases stopped matching memo counts where PyTorch
#   holds no extra tensor
t0 = ones [] i64
t1 = fake t0
drop t0
memo_stats
