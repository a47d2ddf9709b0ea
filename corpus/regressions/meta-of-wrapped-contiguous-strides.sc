# storcheck program v1
# target: fake_fuzzer
# what: meta of a 0-element rand [4,2,64,0,INT64_MAX,0]. LibTorch 1.13
#   computes its contiguous strides with a wrapping multiply (the reference
#   mirrors it, contiguous_strides), so dim 1's stride is 64 * (2^63 - 1)
#   wrapped: -64. The LibTorch backend's meta conversion handed the strides
#   to TensorImpl::set_sizes_and_strides, whose inline code recomputes a
#   negative stride as size * stride of the next dim: the same signed
#   overflow, in our translation unit, which UBSan stopped. The backend now
#   refuses meta, fake and lazy_clone of a tensor with a negative stride
#   before LibTorch runs (S8; the run is compared up to that step).
# found: 2026-12-01 by fake_fuzzer (40,000-run measurement from the seeds,
#   -seed=1, at input 26,446), minimized 26 -> 2 steps by hand.
t0 = rand [4,2,64,0,9223372036854775807,0] f32 7
t1 = meta t0
