# storcheck program v1
# what: Note [Observing overlapping views] (impl/geometry.h) - a view that
#   reaches far more elements than its storage holds (4e8 from 4 here) was
#   observed element by element after every step: 1.6 GB per backend per
#   step, and cow_fuzzer's smoke run timed out on such a program. Such views
#   are now observed by the elements at their distinct offsets; the values
#   below still differ after each write, so a backend that wrote wrong
#   elements is still caught.
# found: 2026-11-30, cow_fuzzer smoke run in CI (timeout after 10 s)
t0 = zeros [4] f32
t1 = expand t0 [100000,1000,4]
add_ t0 1
t2 = arange [700] i64
t3 = as_strided t2 [300,300] [1,1] 3
mul_ t2 3
t4 = select t1 0 5
add_ t0 2
