# storcheck program v1
# target: views_fuzzer
# what: S8 - view(dtype) to a smaller item multiplies every stride but the
#   last, the last size and the offset by the size ratio in int64 without a
#   check (LibTorch 1.13 and 2.x, view_dtype in TensorShape.cpp): a [1, 1]
#   view with stride 2^62 (it addresses one element, so as_strided allows
#   it) viewed as u8 overflows (signed overflow: undefined behaviour), and
#   so does a 0-element [0, 2^62] one. Every backend refuses those steps as
#   undefined_behavior (view_dtype_arithmetic_overflows in impl/ops.h; the
#   PyTorch backend's case 7) and the emitted reproducers do not run them;
#   the [0, 2^62] tensor viewed as i64 (the same item size) scales nothing.
# found: 2026-12-02, LibTorch's source read when view_dtype joined the
#   language
t0 = arange [1] i64
t1 = as_strided t0 [1,1] [4611686018427387904,1] 0
t2 = view_dtype t1 u8
t3 = as_strided t0 [0,4611686018427387904] [1,1] 0
t4 = view_dtype t3 i32
t5 = view_dtype t3 i64
t6 = view_dtype t1 i32
