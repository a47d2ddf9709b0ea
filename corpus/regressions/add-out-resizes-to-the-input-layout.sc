# storcheck program v1
# what: Note [out=] (impl/ops.cpp): add_out o x s is torch.add(x, s,
#   out=o). An out of other sizes than the input is resized (resize_, its
#   offset kept), then restrided to TensorIterator's strides for the input:
#   t2 ([5]) takes t1's transposed layout [1, 3], t5 (f64, [1]) takes
#   [1, 3] too (the kernel's element size is the result type's, f32); an
#   out of the input's sizes keeps its own strides (t4, [1, 2]); no version
#   bump for the resize, one for the write. LibTorch C++'s at::add_out(out,
#   x, Scalar) runs add.Scalar_out instead (add, then a contiguous resize
#   and a copy: strides [2, 1]), so every backend passes the scalar as
#   Python does, a wrapped-number tensor (checked in PyTorch 1.13).
# found: 2026-12-02 by probing add_out when it joined the language
t0 = arange [2,3] f32
t1 = transpose t0 0 1
t2 = zeros [5] f32
add_out t2 t1 1
t3 = zeros [2,3] f32
t4 = t t3
add_out t4 t1 2.5
t5 = zeros [1] f64
add_out t5 t1 1
t6 = zeros [2] i32
t7 = arange [2,2] i64
add_out t6 t7 3
