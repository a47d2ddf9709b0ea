# storcheck program v1
# target: fake_fuzzer
# what: resize_ of a meta tensor whose storage nbytes wrapped to -4 (to_meta
#   of a scalar expanded to [2^63-1]): LibTorch 1.13 compares the request
#   with the storage's size_t nbytes (2^64 - 4), so the storage keeps its
#   size; the reference compared signed int64 and grew it to 400 bytes.
#   PyTorch 1.13 shows the same (nbytes 18446744073709551612 after resize_).
# found: fake_fuzzer -seed=941, 2026-12-01 (minimized 25 -> 4 steps)
t0 = full [] 1e+10 f32
t1 = expand t0 [9223372036854775807]
t2 = to_meta t1
resize_ t2 [100]
