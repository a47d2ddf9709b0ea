# storcheck program v1
# known: meta-set-sets-nbytes-1.13
# what: set_ of a meta tensor to a meta view that does not reach its
#   storage's end (t2, 16 of 48 bytes): LibTorch 1.13 sets the shared meta
#   storage to 16 bytes (t0's meta twin t2 and every alias see it shrink);
#   the reference, as later LibTorch, only grows it (Note [set_]).
# found: 2026-12-01 by probing set_ when it joined the language
t0 = arange [3,4] f32
t1 = narrow t0 0 0 1
t2 = meta t1
t3 = zeros [2] f32
t4 = meta t3
set_ t4 t2
