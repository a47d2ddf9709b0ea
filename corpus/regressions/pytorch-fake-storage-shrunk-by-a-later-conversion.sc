# storcheck program v1
# property: pytorch.fake_matches_reference
# known: pytorch-meta-set-resizes-storage-1.13
# what: F2 - converting another tensor of a storage already converted leaves
#   the shared fake storage as it is; PyTorch 1.13's MetaConverter builds the
#   new fake with set_, which sets the shared meta storage's byte count to
#   that tensor's extent (8 bytes) and shrinks it under t1, which resize_
#   had grown to 64: an upstream bug (Note [Meta storages sized by set_])
# found: 2026-12-06 by pytorch.fake_matches_reference (seed 1940, program
#   35293; shrunk by hand from 8 steps) once the known divergence matched
#   only noted steps
t0 = zeros [2] f32
t1 = fake t0
resize_ t1 [16]
t2 = detach t0
t3 = fake t2
