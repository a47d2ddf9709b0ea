# storcheck program v1
# what: C1 - a lazy clone's storage keeps its source's resizable flag (as
#   LibTorch 2.3's lazy_clone_storage does), so shrinking the clone of a
#   non-resizable storage raises. Before 2.3 the Python and C++ stand-ins
#   for _lazy_clone build a fresh storage, which was resizable: the PyTorch
#   backend shrank it where LibTorch raised.
# found: 2026-12-03 by pytorch.eager_matches_libtorch (seed 1926), once
#   set_nonresizable ran in Python (through numpy())
t0 = arange [1] f32
t1 = split t0 1 0 0
set_nonresizable t0
t2 = lazy_clone t1
shrink t2
