#!/usr/bin/env bash
# ctest driver for `storcheck emit` (issue 9): runs one emitted reproducer and
# checks its verdict against `storcheck repro` on the same file.
#
#   emit_check.sh STORCHECK FILE RUNNER... [-- --plant-fault NAME]
#
# RUNNER is the command that runs the reproducer: `python3 SCRIPT.py` (the
# script is emitted here first) or the path of a compiled C++ reproducer
# (emitted and built by CMake). Without a planted fault, the reproducer must
# exit 0 and end with "ok: ...", "stopping before step ..." (a step its
# language cannot express) or "step N: known divergence ...". With one, it
# must exit non-zero and name the step where `storcheck repro` reports the
# divergence, e.g. "step 3 (t2 = transpose t0 0 1)".
set -uo pipefail

storcheck=$1 file=$2
shift 2
runner=()
fault=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == -- ]]; then shift; fault=("$@"); break; fi
  runner+=("$1")
  shift
done

# A Python runner names the script to emit: `python3 OUT.py`.
if [[ ${runner[-1]} == *.py ]]; then
  "$storcheck" emit --python "$file" --out "${runner[-1]}" "${fault[@]}" || {
    echo "emit_check: storcheck emit failed"; exit 1; }
fi

# glibc fills fresh allocations with a non-zero byte, so a reproducer that
# reads bytes LibTorch leaves undefined (R6 defines them as zero) fails every
# time instead of when the allocator hands out dirty memory.
output=$(MALLOC_PERTURB_=165 "${runner[@]}" 2>&1)
rc=$?
printf '%s\n' "$output" | tail -n 20

if [[ ${#fault[@]} -eq 0 ]]; then
  if [[ $rc -ne 0 ]]; then echo "emit_check: the reproducer failed (exit $rc)"; exit 1; fi
  last=$(printf '%s\n' "$output" | tail -n 1)
  case $last in
    ok:*|"stopping before step "*|step*": known divergence "*) exit 0 ;;
    *) echo "emit_check: unexpected last line: $last"; exit 1 ;;
  esac
fi

# Planted: the step `storcheck repro` names.
at=$("$storcheck" repro "$file" "${fault[@]}" | sed -n 's/^DIVERGENCE at \(step [0-9]* ([^)]*)\).*/\1/p')
if [[ -z $at ]]; then echo "emit_check: storcheck repro found no divergence"; exit 1; fi
if [[ $rc -eq 0 ]]; then echo "emit_check: the reproducer passed, expected a failure at $at"; exit 1; fi
if ! printf '%s\n' "$output" | grep -qF "$at"; then
  echo "emit_check: the reproducer failed, but not at $at"; exit 1
fi
echo "emit_check: fails at $at, as storcheck repro reports"
