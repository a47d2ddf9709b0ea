# storcheck program v1
# what: F4 - values() of a sparse COO tensor is a view of it, which
#   PyTorch 1.13's MetaConverter refuses (meta converter nyi); detach() of
#   it shares the storage but is no view (_is_view() false, _base None), so
#   fake converts it, as do views of the detached tensor. The reference
#   carried the sparse base through detach and raised
#   unsupported_fake_tensor where LibTorch converted.
# found: 2026-11-30, fake_fuzzer (seed 7)
t0 = arange [1,2,4] f32
t1 = to_sparse_coo t0 2
t2 = values t1
t3 = detach t2
t4 = fake t3
t5 = view t3 [8]
t6 = fake t5
t7 = fake t2
t8 = alias t2
t9 = fake t8
