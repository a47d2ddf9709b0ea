# storcheck program v1
# target: fake_fuzzer
# what: F3 - the compressed constructors keep their inputs themselves as
#   parts (Note [Compressed parts are the inputs], impl/sparse.cpp), so a
#   dropped input that was converted keeps its memo entry while the sparse
#   tensor lives. The memo invariants counted only the tensors bound to
#   variables and reported "4 tensor entries for 3 live tensors"; they now
#   count the parts of live sparse variables too.
# found: 2026-12-02, fake_fuzzer -seed=993 (8 steps) and -seed=992
t0 = arange [2,3] f32
t1 = fake t0
t2 = zeros [1] i64
t3 = zeros [0] i64
t4 = rand [0] f32 3
t5 = fake t2
t6 = sparse_csr_tensor t2 t3 t4 [0,-4]
drop t2
drop t4
drop t5
sweep
memo_stats
