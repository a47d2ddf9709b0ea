#!/usr/bin/env bash
# ctest pytorch.check_fake_matches_reference: `storcheck check
# pytorch.fake_matches_reference` on Debian's PyTorch 1.13 (seed 1, 10 s
# budget) runs and passes, counting the known divergences it meets; among
# them the upstream bug it found (pytorch-meta-set-resizes-storage-1.13:
# the MetaConverter's set_ gives an emptied tensor a non-empty fake
# storage, F2), and no reproducer is written. Its regression file replays
# on the PyTorch backend to that divergence (storage_nbytes 0 vs more), which
# `storcheck repro` reports as that known divergence (exit 0).
#   harness/pytorch_check.sh path/to/storcheck path/to/corpus/regressions
set -uo pipefail
bin=$1
regressions=$2
dir=$(mktemp -d /tmp/storcheck-pytorch-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$bin" check pytorch.fake_matches_reference --budget 10s --programs 400 --seed 1 \
  --findings-dir "$dir" >"$dir/out.txt" 2>&1
rc=$?
cat "$dir/out.txt"
if grep -q '^pytorch.fake_matches_reference: skipped:' "$dir/out.txt"; then exit 77; fi
[ "$rc" -eq 0 ] || { echo "expected exit 0 (no finding beyond the known divergences), got $rc"; exit 1; }
grep -Eq 'known divergences .* pytorch-meta-set-resizes-storage-1.13 x[1-9]' "$dir/out.txt" ||
  { echo "expected the upstream F2 bug among the known divergences"; exit 1; }
ls "$dir"/*.sc >/dev/null 2>&1 && { echo "a reproducer was written, but nothing failed"; exit 1; }
# The regression file replays the bug on the PyTorch backend, as expected.
"$bin" repro "$regressions/pytorch-meta-set-resizes-storage.sc" >"$dir/repro.txt" 2>&1
rrc=$?
cat "$dir/repro.txt"
[ "$rrc" -eq 0 ] || { echo "storcheck repro exited $rrc, expected 0"; exit 1; }
grep -Eq '^DIVERGENCE at step 3 .*storage_nbytes of t1: reference 0 vs pytorch [1-9]' "$dir/repro.txt" ||
  { echo "repro does not show the divergence"; exit 1; }
grep -q '^expected: known divergence pytorch-meta-set-resizes-storage-1.13 ' "$dir/repro.txt" ||
  { echo "repro does not report it as the known divergence"; exit 1; }
exit 0
