# storcheck program v1
# known: meta-as-strided-overflow-unchecked-1.13
# what: F9/S9 - to_meta of an [2^63-1] f32 tensor of stride 0 (an expanded
#   scalar kept by clone_preserve_strides) gives a meta tensor of stride 1
#   whose extent overflows int64 (PyTorch 1.13: t2.to('meta') reports
#   nbytes 2^64-4). squeeze of a dim that is not 1 is a view of the same
#   geometry: eager's as_strided would raise storage_size_overflow, so the
#   reference raises it on meta too; LibTorch 1.13 builds squeeze,
#   unsqueeze and permute (movedim) with as_strided, whose meta kernel
#   skips that check, and returns the view. view, alias, detach and
#   flatten agree (no check on either side).
# found: fake_fuzzer -seed=975, 2026-12-02, after 75,664 inputs (storcheck
#   minimize: 45 -> 5 steps)
t0 = full [] 0 f32
t1 = expand t0 [9223372036854775807]
t2 = clone_preserve_strides t1
t3 = to_meta t2
t4 = squeeze t3 0
