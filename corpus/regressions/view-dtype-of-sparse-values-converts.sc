# storcheck program v1
# target: fake_fuzzer
# what: F4 keys "a view of a part of a sparse tensor" on PyTorch's _base:
#   values() of a COO tensor is a view of it (MetaConverter refuses it,
#   "meta converter nyi"), but values().view(torch.uint8) is a new tensor
#   over the same storage with _is_view() False and _base None (Note
#   [view_dtype] in impl/ops.cpp), so it converts, and so does a view of it
#   (checked in PyTorch 1.13: MetaConverter and FakeTensorMode.from_tensor
#   both give a [28] uint8 tensor). The reference passes the sparse base on
#   to view_dtype's result unless it treats view_dtype as it treats detach.
# found: 2026-12-02, checked in PyTorch 1.13 when view_dtype joined the
#   language (the bind_strided rule of oracles/reference_backend.cpp)
t0 = arange [2,4] i32
t1 = to_sparse_coo t0 2
t2 = values t1
t3 = view_dtype t2 u8
t4 = meta t3
t5 = slice t3 0 4 28 1
t6 = fake t5
t7 = fake t2
t8 = view_dtype t2 i32
t9 = meta t8
