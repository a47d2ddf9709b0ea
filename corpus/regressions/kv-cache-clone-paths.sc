# storcheck program v1
# what: R3 - the ExecuTorch/Inductor low-memory pattern: a [1,8,128,64] f32
#   KV cache and a view of it at offset 1 are emptied with
#   untyped_storage().resize_(0); every clone path (clone, contiguous,
#   clone_preserve_strides, to) of either must give zeros of the same sizes
#   and strides instead of "required storage N bytes, actual storage 0
#   bytes" or a read of freed memory; the inputs stay emptied.
# found: 2026-11-30, the original bug restored only in one caller
t0 = rand [1,8,128,64] f32 7
t1 = slice t0 3 1 64 1
shrink t1
t2 = clone t1
t3 = contiguous t1
t4 = clone_preserve_strides t1
t5 = to t1 f64
t6 = clone t0
t7 = clone_preserve_strides t0
t8 = to t0 i32
t9 = contiguous t0
t10 = select t1 2 0
add_ t0 1
