# storcheck program v1
# what: Note [sum in f64] - a sum whose f64 additions round depends on their
#   order: the reference sums [0, 1, 2, 3, 2^53] in order to 2^53 + 6,
#   LibTorch's vectorized cascade to 2^53 + 4 (and `to u8` shows 6 vs 4).
#   Neither is wrong; the reference refuses the step (Note [Step outcome
#   rules] rule 5), and the program is not comparable from there on
# found: 2026-12-06 by views.errors_agree (seed 2020, program 1192466)
t0 = arange [5] f64
t1 = as_strided t0 [] [] 4
fill_ t1 9007199254740992
t2 = sum t0
t3 = to t2 u8
