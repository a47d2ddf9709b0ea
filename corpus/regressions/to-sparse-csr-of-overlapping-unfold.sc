# storcheck program v1
# target: fake_fuzzer
# what: to_sparse_csr of t2 = unfold of a [1, 100000] tensor: [1, 99999, 2],
#   199,998 elements over 100,000 offsets. The reference's sparse
#   conversions read their input through the observations' read, which
#   gives a view of more than 65,536 elements that repeats offsets by
#   distinct offset (100,000 elements), then indexed it as 199,998 row-major
#   elements: a heap-buffer-overflow under ASan. They now read every
#   element in row-major order (read_row_major_elements, bounded by
#   Limits::max_step_reads).
# found: 2026-12-01 by fake_fuzzer (9-minute run, -seed=47, at input
#   75,546, ASan), minimized 36 -> 4 steps by hand.
t0 = arange [1,100000] u8
t1 = mul t0 0
t2 = unfold t1 1 2 1
t3 = to_sparse_csr t2
t4 = to_sparse_coo t2 2
