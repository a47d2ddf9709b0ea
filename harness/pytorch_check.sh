#!/usr/bin/env bash
# ctest pytorch.check_fake_matches_reference: `storcheck check
# pytorch.fake_matches_reference` on Debian's PyTorch 1.13 (seed 1, 10 s
# budget) runs, counts the known divergences it meets, and reports the F2
# finding it meets first through the normal finding path: exit 1, a shrunk
# program whose last step converts an emptied tensor (R2) and gets a fake
# storage of more than 0 bytes, and a reproducer file that `storcheck repro`
# replays on the PyTorch backend to the same divergence.
#   harness/pytorch_check.sh path/to/storcheck
set -uo pipefail
bin=$1
dir=$(mktemp -d /tmp/storcheck-pytorch-XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$bin" check pytorch.fake_matches_reference --budget 10s --programs 400 --seed 1 \
  --findings-dir "$dir" >"$dir/out.txt" 2>&1
rc=$?
cat "$dir/out.txt"
if grep -q '^pytorch.fake_matches_reference: skipped:' "$dir/out.txt"; then exit 77; fi
[ "$rc" -eq 1 ] || { echo "expected exit 1 (a finding), got $rc"; exit 1; }
grep -Eq '^divergence: step [0-9]+ \(t[0-9]+ = (fake|meta) t[0-9]+\): storage_nbytes of t[0-9]+: reference 0 vs pytorch [1-9]' \
  "$dir/out.txt" || { echo "expected the emptied-storage finding (F2)"; exit 1; }
grep -q '^shrink t' "$dir/out.txt" || { echo "expected a shrink in the shrunk program"; exit 1; }
ls "$dir"/pytorch.fake_matches_reference-*.sc >/dev/null 2>&1 || { echo "no reproducer written"; exit 1; }
grep -q '^reproduce: storcheck repro ' "$dir/out.txt" || { echo "no repro line"; exit 1; }
# The reproducer replays the finding on the PyTorch backend (exit 1, the same field).
repro=$(ls "$dir"/pytorch.fake_matches_reference-*.sc | head -1)
"$bin" repro "$repro" >"$dir/repro.txt" 2>&1
rrc=$?
cat "$dir/repro.txt"
[ "$rrc" -eq 1 ] || { echo "storcheck repro exited $rrc, expected 1"; exit 1; }
grep -Eq '^DIVERGENCE at step [0-9]+ .*storage_nbytes of t[0-9]+: reference 0 vs pytorch [1-9]' \
  "$dir/repro.txt" || { echo "repro does not show the finding"; exit 1; }
exit 0
