# storcheck program v1
# target: fake_fuzzer
# what: add 1 to a meta (then fake) bool tensor [0,3,2^62] whose
#   contiguous strides wrapped to [-2^62,2^62,1]: the int64 result had
#   strides [-2^62,2^62,1] in the reference and [1,0,0] in LibTorch 1.13.
#   TensorIterator converts an input to the common dtype (.to(), and then
#   orders the dims by the converted strides in bytes) only when the common
#   device is the CPU; on meta it orders them by the input's own bytes (the
#   bool's: dim 0's negative stride comes first), which the reference now
#   does off the CPU. t5 is the CPU twin: the conversion keeps the strides,
#   whose int64 bytes wrap to [0,0,8], and the result is contiguous.
# found: 2026-12-01 by fake_fuzzer (10-minute run from the seeds,
#   -seed=404, at input 202,818), minimized 42 -> 5 steps by
#   `storcheck minimize`.
t0 = full [0,3,4611686018427387904] 1e+10 bool
t1 = to_meta t0
t2 = contiguous t1
t3 = fake_from_meta t2
t4 = add t3 1
t5 = add t0 1
t6 = add t1 1.5
