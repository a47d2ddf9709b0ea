# storcheck program v1
# target: fake_fuzzer
# what: compressed conversions of 0-element inputs with 2^63-1 rows.
#   1) [0, 2^63-1, 1]: the LibTorch backend's pre-check computed the
#      compressed indices' length rows / 1 + 1 (signed overflow, which UBSan
#      stopped) before noticing the zero batch dim, whose error LibTorch
#      raises first. It now checks the batch dims first and adds with an
#      overflow check.
#   2) [2^63-1, 0] (the parser had refused this factory as needing more
#      than 2^63 bytes, though a size-0 dim makes it 0 bytes; it now takes
#      it): rows + 1 entries overflow int64. The reference wrapped them
#      (signed overflow too) into a negative dimension; LibTorch 1.13 wraps
#      them and raises about a SymInt. Both backends now raise
#      storage_size_overflow before computing it (S8, S9).
# found: 2026-12-01 by fake_fuzzer (10-minute run, -seed=43, at input
#   191,250, UBSan), case 1 minimized by hand; case 2 by reading the code.
t0 = arange [0,9223372036854775807,1] i64
t1 = to_sparse_csr t0
t2 = arange [9223372036854775807,0] i64
t3 = to_sparse_csr t2
t4 = to_sparse_bsr t2 [1,1]
