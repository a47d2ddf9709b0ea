# storcheck program v1
# target: cow_fuzzer
# what: 0-element tensors whose other sizes multiply past int64, which the
#   parser now accepts (a size-0 dim makes them 0 bytes): the reference's
#   TensorImpl::numel multiplied [2^63-1, 2, 0, 0] in order (signed
#   overflow, UBSan: found by cow_fuzzer, -seed=47, 46,810 inputs);
#   to_sparse_csr of a [2^40, 1, 0] tensor built a per-batch table of 2^40
#   entries before its allocation limit (std::bad_alloc, found by reading
#   the code after it); to_sparse_coo of [0, 2^63-1, 2] multiplied the dense
#   sizes. numel now checks for a size-0 dim first, the compressed
#   conversion builds no table for a 0-element input and reports an
#   overflowing batch count as a storage size overflow, and the sparse
#   products wrap instead of overflowing.
# found: 2026-12-01 (see above), minimized by hand.
t0 = full [9223372036854775807,2,0,0] 2.5 i64
t1 = clone t0
t2 = zeros [1099511627776,1,0] f32
t3 = to_sparse_csr t2
t4 = zeros [0,9223372036854775807,2] f32
t5 = to_sparse_coo t4 1
t6 = to_dense t5
