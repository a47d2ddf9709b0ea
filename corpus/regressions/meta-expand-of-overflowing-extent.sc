# storcheck program v1
# known: meta-as-strided-overflow-unchecked-1.13
# what: F9/S9 - as meta-squeeze-of-overflowing-extent.sc, through expand:
#   to_meta of an expanded [2^63-1] f64 tensor gives a meta tensor of
#   stride 1 whose extent overflows int64; expand to the same sizes keeps
#   that geometry, which eager's as_strided would refuse
#   (storage_size_overflow, as the reference raises). LibTorch 1.13's
#   expand is as_strided, whose meta kernel skips the check.
# found: fake_fuzzer -seed=976, 2026-12-02, after 84,488 inputs (storcheck
#   minimize: 26 -> 4 steps)
t0 = full [1] 1e+10 f64
t1 = expand t0 [9223372036854775807]
t2 = to_meta t1
t3 = expand t2 [9223372036854775807]
