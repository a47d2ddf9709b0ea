# storcheck program v1
# target: cow_fuzzer
# what: clone of a numel-0 [0,3,2^62-1000] i64 tensor, whose contiguous
#   stride 3 * (2^62-1000) wraps to -2^62-3000. LibTorch 1.13 marks a
#   c10::SymInt holding a symbolic node's pointer by the int64's top bits
#   10 ([-2^63, -2^62)); clone passes the input's sym_strides to
#   empty_strided, which reads this stride as a pointer and segfaults
#   (PyTorch 1.13: torch.zeros(0,3,2**62-1000,dtype=torch.int64).clone()
#   dies with SIGSEGV). The LibTorch backend refuses the step (S8) and the
#   run is compared up to it; the reference clones.
# found: cow_fuzzer -seed=945, 2026-12-01, after 213,003 inputs (storcheck
#   repro itself crashed; minimized 7 -> 2 steps by hand, its rand [0,3,2^62-1000]
#   i64 -4 replaced by zeros: the emitted reproducers build rand tensors with a
#   .to(i64) that raises on this stride first)
t0 = zeros [0,3,4611686018427386904] i64
t1 = clone t0
