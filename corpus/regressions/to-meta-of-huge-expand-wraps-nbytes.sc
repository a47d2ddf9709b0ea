# storcheck program v1
# target: fake_fuzzer
# what: to_meta of a scalar expanded to [2^63-1] (stride 0): the reference
#   computed the meta storage's bytes as numel * itemsize in int64, signed
#   overflow (UBSan in the fuzz build). LibTorch 1.13 computes them in
#   SymInt arithmetic, which wraps ((2^63-1) * 4 is -4, 2^62 * 4 is 0);
#   the reference now wraps the same way (meta_copy_nbytes, impl/fake.cpp).
# found: 2026-12-01, fake_fuzzer -seed=923 under UBSan (from a merged corpus)
t0 = full [] 1e+10 f32
t1 = expand t0 [9223372036854775807]
t2 = to_meta t1
t3 = expand t0 [4611686018427387904]
t4 = to_meta t3
t5 = add t2 1
