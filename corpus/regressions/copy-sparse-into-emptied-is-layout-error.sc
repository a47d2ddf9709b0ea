# storcheck program v1
# what: S8 invariant - copy_ from a (fake) sparse tensor into an emptied
#   tensor is refused by the layout policy (unsupported_layout) before the
#   op touches data, in every backend; the S8 invariant expected
#   undefined_behavior and now accepts a layout refusal as it accepts a
#   device mismatch (harness/invariants.cpp).
# found: 2026-11-30, fake_fuzzer (seed 8), minimized 28 -> 6 steps
t0 = arange [2,4] f32
t1 = to_sparse_coo t0 2
t2 = fake t1
t3 = arange [3,3] u8
shrink t3
copy_ t3 t2
