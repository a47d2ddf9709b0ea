# storcheck program v1
# Found by views_fuzzer, shrink_fuzzer and cow_fuzzer (issue 6), minimized
# by `storcheck minimize`. Contiguous strides of a tensor of numel 0 whose
# other sizes overflow int64 wrap in LibTorch 1.13 (the reference
# saturated them at 2^63-1), and slice's START = 2^63-1 is a value, clamped
# to the size (the reference read it as "no start", 0).
t0 = arange [3,3,0,9223372036854775807] u8
t1 = rand [0,2,9223372036854775807,2] bool 0
t2 = rand [4,16,3] u8 7
t3 = slice t2 2 9223372036854775807 4 1
