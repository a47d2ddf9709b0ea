# storcheck program v1
# what: Note [set_] (impl/ops.cpp): self.set_(source) takes the source's
#   storage, offset, sizes and strides; LibTorch grows the storage only when
#   the sizes or strides differ from self's old ones. t1 (sizes [5], as t0)
#   set_ to emptied t0 stays emptied (0 bytes, both); t2 ([2]) set_ to t0
#   grows the shared storage to 20 bytes for every alias (zero-filled, R6;
#   uninitialized in LibTorch), so t0 and t1 are no longer emptied. set_ to
#   itself bumps only the version; set_ a view keeps the version counter
#   shared with its old base (t4), not with the source.
# found: 2026-12-01 by probing set_ when it joined the language
t0 = ones [5] f32
shrink t0
t1 = zeros [5] f32
set_ t1 t0
t2 = zeros [2] f32
t3 = narrow t2 0 0 1
set_ t2 t0
add_ t1 2
set_ t1 t1
t4 = narrow t3 0 0 1
set_ t3 t1
add_ t3 1
