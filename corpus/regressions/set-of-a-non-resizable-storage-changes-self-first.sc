# storcheck program v1
# what: Note [set_] (impl/ops.cpp) rule 5: set_ to an emptied source on a
#   non-resizable storage must grow it and raises non_resizable, but only
#   after LibTorch has pointed self at the source's storage with its
#   geometry (set_storage_cpu_ sets them before resize_impl_cpu_); the
#   version is not bumped. Then set_ to a source of another dtype raises
#   invalid_argument (PyTorch's binding asserts equal dtypes) and changes
#   nothing.
# found: 2026-12-01 by probing set_ when it joined the language
t0 = ones [2,3] f32
t1 = transpose t0 0 1
shrink t0
set_nonresizable t0
t2 = arange [4] f32
set_ t2 t1
t3 = arange [2] i32
set_ t3 t2
