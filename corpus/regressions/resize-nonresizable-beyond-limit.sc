# storcheck program v1
# known: resize-nonresizable-not-atomic-1.13
# what: S10 - resize_ of a non-resizable storage to a size beyond the
#   allocation limit raises non_resizable (LibTorch checks resizability
#   before it allocates), not resource_limit; LibTorch 1.13 has changed the
#   sizes by then (the known S10 divergence)
# found: 2026-11-30 by shrink_fuzzer in the CI smoke run
t0 = arange [] u8
set_nonresizable t0
resize_ t0 [2147483648,1,3]
