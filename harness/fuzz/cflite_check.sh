#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh as ClusterFuzzLite does (ctest
# fuzz.cflite.build_sh): a copy as $SRC/build.sh, run from the checkout's
# root, with CC/CXX clang 14, CFLAGS/CXXFLAGS with ASan and
# -fsanitize=fuzzer-no-link, LIB_FUZZING_ENGINE=-fsanitize=fuzzer, and OUT,
# SRC, WORK in a scratch folder. Then checks that $OUT holds, for each
# target, the binary, T_seed_corpus.zip (every file of corpus/T/), T.dict
# and T.options naming that dict, and that the binary runs its unzipped
# seeds and 10 mutated inputs (-runs=SEEDS+10) with exit 0.
#
# Only program_parser_fuzzer by default: it links the program layer alone,
# so the build is a few files and the check takes seconds. The program
# targets link all of storcheck (minutes under ASan on 2 cores);
# CFLITE_TARGETS="..." checks them too.
#
#   harness/fuzz/cflite_check.sh SCRATCH_DIR
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=${1:?usage: cflite_check.sh SCRATCH_DIR}
targets=${CFLITE_TARGETS:-program_parser_fuzzer}
fail() { echo "cflite_check: FAIL: $*" >&2; exit 1; }

rm -rf "$scratch/out" "$scratch/seeds"
mkdir -p "$scratch/out" "$scratch/work" "$scratch/src" "$scratch/seeds"
log="$scratch/build.log"
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
# As the Dockerfile lays it out: the script copied to $SRC/build.sh and run
# from the checkout's root (the image's WORKDIR).
cp "$ROOT/.clusterfuzzlite/build.sh" "$scratch/src/build.sh"
if ! (cd "$ROOT" && env CC=clang-14 CXX=clang++-14 CFLAGS="$flags" CXXFLAGS="$flags" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$scratch/out" WORK="$scratch/work" SRC="$scratch/src" \
  STORCHECK_CFLITE_TARGETS="$targets" bash -eu "$scratch/src/build.sh") >"$log" 2>&1; then
  tail -30 "$log" >&2
  fail "build.sh exited non-zero (log: $log)"
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
for t in $targets; do
  out="$scratch/out"
  [[ -x "$out/$t" ]] || fail "$out/$t is missing or not executable"
  [[ -s "$out/${t}_seed_corpus.zip" ]] || fail "$out/${t}_seed_corpus.zip is missing"
  cmp -s "$out/$t.dict" "$ROOT/harness/fuzz/storcheck.dict" || fail "$out/$t.dict differs from harness/fuzz/storcheck.dict"
  grep -qx '\[libfuzzer\]' "$out/$t.options" || fail "$out/$t.options has no [libfuzzer] section"
  grep -qx "dict = $t.dict" "$out/$t.options" || fail "$out/$t.options does not name $t.dict"
  # The zip holds exactly the seed files, flat.
  zipped=$(unzip -Z1 "$out/${t}_seed_corpus.zip" | sort)
  seeds=$(cd "$ROOT/corpus/$t" && find . -maxdepth 1 -type f -printf '%f\n' | sort)
  [[ "$zipped" == "$seeds" ]] || fail "${t}_seed_corpus.zip does not hold exactly corpus/$t/'s files"
  # Built by the engine, with ASan: libFuzzer's and ASan's symbols are in.
  # (nm into a file: grep -q would end the pipe early, and pipefail fail it.)
  nm "$out/$t" >"$scratch/$t.nm"
  grep -q ' T LLVMFuzzerRunDriver$' "$scratch/$t.nm" || fail "$t is not linked with libFuzzer"
  grep -q ' __asan_init$' "$scratch/$t.nm" || fail "$t is not built with ASan"
  mkdir -p "$scratch/seeds/$t"
  unzip -q -o "$out/${t}_seed_corpus.zip" -d "$scratch/seeds/$t"
  # libFuzzer's -runs counts the seeds' executions too: the seeds, then 10
  # mutated inputs.
  nseeds=$(wc -l <<<"$seeds")
  runs=$((nseeds + 10))
  runlog="$scratch/$t.run.log"
  if ! (cd "$out" && "./$t" -runs=$runs -seed=1 -dict="$t.dict" "$scratch/seeds/$t") >"$runlog" 2>&1; then
    tail -30 "$runlog" >&2
    fail "$t -runs=$runs over its seeds exited non-zero"
  fi
  grep -qE 'INITED cov: [1-9]' "$runlog" || fail "$t did not load its seeds with coverage (log: $runlog)"
  grep -q "^Done $runs runs" "$runlog" || fail "$t did not report 'Done $runs runs' (log: $runlog)"
  echo "cflite_check: $t ok: binary, seed zip ($nseeds files), dict, options; seeds and 10 mutated inputs run clean"
done
