# storcheck program v1
# target: fake_fuzzer
# what: S8/F9 - copy_ from a meta tensor into an emptied real one raises
#   device_mismatch ("Cannot copy out of meta tensor") before any data is
#   touched, in LibTorch and the reference alike; the S8 invariant expected
#   undefined_behavior for every compute kernel on an emptied tensor
# found: 2026-11-30 by scripts/nightly.sh (fake_fuzzer)
t0 = zeros [] u8
t1 = meta t0
shrink t0
t2 = to t1 f32
copy_ t0 t2
