# storcheck program v1
# what: Note [out=] (impl/ops.cpp): LibTorch's TensorIterator checks out's
#   memory overlap on its old geometry, before it resizes: an expanded out
#   raises internal_overlap even when it would be resized (t2), an out
#   partially overlapping the input raises partial_overlap (t5), a view of
#   the input's very elements and the input itself are fine (t6, t3). An
#   out whose old geometry misses the input but whose resized one covers
#   part of it (t8 at offset 0, t7 at 2..5) is not checked by LibTorch: the
#   result would depend on iteration order, so storcheck refuses it (S8).
#   A non-resizable out that must grow raises non_resizable after LibTorch
#   set its sizes (known divergence resize-nonresizable-not-atomic-1.13).
# found: 2026-12-02 by probing add_out when it joined the language
# known: resize-nonresizable-not-atomic-1.13
t0 = zeros [1] f32
t1 = arange [4] f32
t2 = expand t0 [3]
add_out t2 t1 1
t3 = arange [8] f32
t4 = narrow t3 0 0 4
t5 = narrow t3 0 2 4
add_out t5 t4 1
t6 = alias t4
add_out t6 t4 1
add_out t3 t3 1
t7 = narrow t3 0 2 4
t8 = narrow t3 0 0 1
add_out t8 t7 1
t9 = from_blob [2] f32
add_out t9 t1 1
