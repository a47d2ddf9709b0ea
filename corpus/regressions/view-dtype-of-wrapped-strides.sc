# storcheck program v1
# target: views_fuzzer
# what: S8 - view(dtype) hands its result's strides to
#   TensorImpl::set_sizes_and_strides, which recomputes a negative stride as
#   the next dim's size * stride (a signed multiply that overflows). Only a
#   wrapped stride is negative: zeros [0,2,3,3,5,2^62] i32 has the contiguous
#   strides [-2^63, 2^62, -2^62, 2^62, 2^62, 1], and PyTorch 1.13 viewed it
#   as i64 with strides [2^62, 2^61, 3 * 2^61, 2^61, 2^61, 1] where the
#   reference divides to [-2^62, 2^61, -2^61, ...]. The LibTorch backend
#   refuses view_dtype of an input with a negative stride as it refuses
#   meta, fake and lazy_clone of one (refuse_wrapped_strides), the PyTorch
#   backend too (case 8), and the emitted reproducers stop there. Below,
#   zeros [0,3,2^62] i32 (strides [-2^62, 2^62, 1]: no SymInt pointer, so
#   PyTorch 1.13's Python reads it; 1.13 gives [3 * 2^61, 2^61, 1] as i64).
# found: views_fuzzer -seed=979, 2026-12-02, after 339,385 inputs
#   (a divergence in strides; minimized 22 -> 2 steps by hand, then the
#   input replaced by one PyTorch's Python can read)
t0 = zeros [0,3,4611686018427387904] i32
t1 = view_dtype t0 i64
t2 = zeros [0,2,3,3,5,4611686018427387904] i32
t3 = view_dtype t2 i64
