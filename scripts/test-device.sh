#!/usr/bin/env bash
# The one device check (issue 11), for a GPU machine with CUDA, CMake, ninja,
# a compiler and Python's PyTorch but no package manager or network: builds
# (scripts/build-device.sh), runs the `gpu` ctest label, then a short gate
# when the LibTorch oracles built, and writes a result file. Meant to finish
# in under 8 minutes on 16 cores.
#
#   scripts/test-device.sh --deps device-deps [--result device-result.txt]
#                          [--build build-device] [--python python3] [--gate-seconds 60]
#
# Exit 0 when no gpu test failed and the gate (if run) passed, 1 otherwise,
# 2 on bad arguments or no build.
set -uo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
deps="" result="$ROOT/device-result.txt" build="$ROOT/build-device" python=python3 gate_seconds=60
usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --deps) [[ $# -ge 2 ]] || usage; deps=$2; shift 2 ;;
    --result) [[ $# -ge 2 ]] || usage; result=$2; shift 2 ;;
    --build) [[ $# -ge 2 ]] || usage; build=$2; shift 2 ;;
    --python) [[ $# -ge 2 ]] || usage; python=$2; shift 2 ;;
    --gate-seconds) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage; gate_seconds=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "test-device.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$deps" ]] || usage
t0=$(date +%s)
tmp="$result.tmp"
: >"$tmp"
say() { echo "$*" | tee -a "$tmp"; }
say "storcheck device check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo 'nvidia-smi: not found')"
say "nvcc: $(nvcc --version 2>/dev/null | tail -1 || echo 'not on PATH')"
say "torch: $("$python" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -1)"
if ! bout=$("$ROOT/scripts/build-device.sh" --deps "$deps" --build "$build" --python "$python" 2>&1); then
  say "build: FAILED"
  printf '%s\n' "$bout" | tail -20 | tee -a "$tmp"
  mv "$tmp" "$result"
  exit 2
fi
say "build: $(printf '%s\n' "$bout" | tail -1) ($(($(date +%s) - t0)) s)"
ctest_out=$(ctest --test-dir "$build" -L gpu -V --timeout 300 2>&1)
crc=$?
printf '%s\n' "$ctest_out" | grep -E 'Failure|FAILED|Skipped|SKIPPED|tests passed' | tail -40
say "gpu tests: $(printf '%s\n' "$ctest_out" | grep -E '^[0-9]+% tests passed' || echo 'no summary')"
# The device properties' program counts (harness/gpu/device_test.cpp).
printf '%s\n' "$ctest_out" | grep -E '^[0-9]+: [a-z_.]+: [0-9]+ programs, ' | sed -E 's/^[0-9]+: /  /' | tee -a "$tmp"
printf '%s\n' "$ctest_out" | grep -E 'Test +#[0-9]+: ' | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /  /; s/ \.+/ /' | tee -a "$tmp"
if printf '%s\n' "$ctest_out" | grep -q 'Skipped'; then
  say "skipped because: $("$build/cuda_test" 2>&1 | grep -m1 'no usable CUDA device' || echo 'see the ctest log')"
fi
rc=0
((crc == 0)) || rc=1
if printf '%s\n' "$bout" | tail -1 | grep -q 'built with LibTorch' && ((gate_seconds > 0)); then
  gate_out=$(timeout $((gate_seconds + 120)) "$build/storcheck" gate --budget "${gate_seconds}s" --jobs "$(nproc)" 2>&1)
  grc=$?
  say "gate: exit $grc, $(printf '%s\n' "$gate_out" | grep -E '^gate: ' | tail -1)"
  printf '%s\n' "$gate_out" | grep -E 'FAIL|XPASS|CRASH' | head -20 | tee -a "$tmp"
  ((grc == 0)) || rc=1
else
  say "gate: not run (no LibTorch build, or --gate-seconds 0)"
fi
say "total: $(($(date +%s) - t0)) s, exit $rc"
mv "$tmp" "$result"
exit $rc
