# storcheck program v1
# target: views_fuzzer
# what: arange [255, 2^62, 0]: 0 elements, which the parser now accepts
#   (see zero-element-tensors-with-huge-sizes.sc). The LibTorch backend
#   multiplied the sizes in order to get the element count (signed
#   overflow at 255 * 2^62, which UBSan stopped); a size-0 dim now makes it
#   0 first.
# found: 2026-12-01 by views_fuzzer (7-minute run, -seed=53, at input
#   207,697), minimized by hand.
t0 = arange [255,4611686018427387904,0] f64
t1 = clone t0
