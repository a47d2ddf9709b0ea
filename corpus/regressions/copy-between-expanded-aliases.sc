# storcheck program v1
# Found by views_fuzzer (issue 6) and minimized by `storcheck minimize`:
# copy_ between two views with the same geometry over one storage returned
# early in the reference, while LibTorch 1.13 first raises internal_overlap
# when the destination has overlapping elements (S7). The same tensor
# copied onto itself still returns early in both.
t0 = arange [2,2] f64
t1 = as_strided t0 [4] [1] 0
t2 = expand t1 [3,4]
t3 = expand t1 [3,4]
copy_ t3 t2
copy_ t3 t3
t4 = transpose t0 0 1
t5 = transpose t0 0 1
copy_ t5 t4
