# storcheck program v1
# target: fake_fuzzer
# what: S3 - sparse_coo_tensor aliases its inputs' storages, but LibTorch's
#   sparse tensor keeps parts of its own: transpose_ of the indices tensor
#   afterwards leaves the sparse tensor's indices [1, 5]. The reference used
#   the input's very object, saw indices [5, 1] and observed no values.
# found: 2026-11-30 by the CI fuzz smoke run (fake_fuzzer, scripts/sanitize.sh)
t0 = rand [1,5] i64 7
t1 = rand [5,2] f32 8
t2 = sparse_coo_tensor t0 t1 [10,2]
transpose_ t0 0 1
t3 = to_dense t2
