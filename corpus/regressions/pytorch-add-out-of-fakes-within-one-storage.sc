# storcheck program v1
# property: pytorch.fake_matches_reference
# what: S8 - add_out and mul_out whose input shares elements with out in a
#   way LibTorch's overlap check does not see (here out is a strided select
#   of the input, overlap status "too hard") are refused as undefined by the
#   reference and the LibTorch backend on fake and meta tensors too (Note
#   [out=] rule 2), so the fake cross-ref agrees with eager. The PyTorch
#   backend refused add_out or mul_out within one storage on real tensors
#   only and ran this one on fakes (PyTorch raises nothing), a harness
#   divergence; it now refuses it on every device (case 4).
# found: 2026-12-02 by pytorch.fake_matches_reference (seed 1902, program
#   994, shrunk to 5 steps), after the generator began to draw add_out and
#   mul_out inputs over out's own storage
t0 = full [3,3] true i64
t1 = fake t0
t2 = contiguous t1
t3 = select t2 -1 2
add_out t3 t1 0
