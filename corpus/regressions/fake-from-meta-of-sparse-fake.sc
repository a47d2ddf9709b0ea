# storcheck program v1
# target: fake_fuzzer
# what: F4 - fake_from_meta of a sparse fake tensor is refused by the layout
#   policy with unsupported_layout before any converter runs, on every
#   backend; the F4 invariant accepted only unsupported_fake_tensor. The
#   memos stay unchanged either way.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, scripts/sanitize.sh)
t0 = arange [2,4] f32
t1 = to_sparse_coo t0 2
t2 = fake t1
t3 = fake_from_meta t2
