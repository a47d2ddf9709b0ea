# storcheck program v1
# what: R5 - reshrink returns the storages rehydrate restored that are still
#   alive to 0 bytes. t0's storage is restored twice (rehydrate, shrink,
#   rehydrate), marked non-resizable, then dies when set_ moves t0 onto its
#   lazy clone's storage: reshrink has nothing to do. The LibTorch backend
#   listed the storage once per rehydrate, so the list's second entry kept
#   it alive and reshrink raised non_resizable.
# found: 2026-12-03 by shrink.matches_eager (seed 2013, program 411062)
t0 = arange [] f32
shrink t0
rehydrate
shrink t0
rehydrate
set_nonresizable t0
t1 = lazy_clone t0
set_ t0 t1
reshrink
