# storcheck program v1
# target: cow_fuzzer
# what: view, reshape and unflatten of a one-element tensor to
#   [2^63-1, 2^63-1], whose size product wraps to 1 (modulo 2^64) and so
#   matches numel. LibTorch runs computeStride next, which finds no strides,
#   and raises view_incompatible (reshape after cloning: _unsafe_view of the
#   contiguous clone fails the same way); the reference checked the new
#   sizes' numel (S9) inside infer_size, before the strides, and raised
#   storage_size_overflow. The S9 check now follows a compute_stride that
#   succeeded (view_numel_ok in impl/ops.cpp), as LibTorch's set_sizes does:
#   a numel-0 input still gets it (t8, [4, 2^63-1, 0]).
# found: cow_fuzzer -seed=947, 2026-12-01, after 159,113 inputs (minimized
#   14 -> 5 steps by storcheck minimize; the other cases added by hand)
t0 = arange [3,3,1] bool
t1 = slice t0 1 1 8 1
t2 = unbind t1 0 0
t3 = unbind t2 0 1
t4 = reshape t3 [9223372036854775807,9223372036854775807]
t5 = view t3 [9223372036854775807,9223372036854775807]
t6 = unflatten t3 0 [9223372036854775807,9223372036854775807]
t7 = zeros [0] f32
t8 = view t7 [4,9223372036854775807,0]
