#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run (issue 7, first part):
# builds storcheck with clang and -fsanitize=address,undefined into
# build-asan/ (all of storcheck's code, the LibTorch backend included, is
# instrumented; Debian's LibTorch library itself is not), runs every test
# through ctest, then every property on a few thousand programs. Any
# sanitizer report aborts the run (-fno-sanitize-recover=all).
#
# The same build links the libFuzzer targets (-DSTORCHECK_LIBFUZZER=ON;
# harness/fuzz/README.md): ctest replays every corpus file of every target
# (fuzz.replay.*), and a smoke step fuzzes each target for
# FUZZ_SMOKE_SECONDS (default 20; FUZZ_SMOKE_RUNS=N stops after N inputs
# instead, 30 times that for the parser target) from a copy of its corpus. A target that
# fails on its seeds fails the run. A finding on a new input is left in
# build-asan/fuzz-smoke/ and, by default, fails the run too;
# FUZZ_SMOKE_FINDINGS=report (what .ci/run sets) prints it and goes on,
# because that exploration is not reproducible from run to run (below).
# SANITIZE_JOBS=N runs the properties, then the fuzz targets, N at a time
# (default: the cores). A bad setting exits 2 before anything is built.
#
#   ./scripts/sanitize.sh
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# The settings are checked before anything is built (exit 2).
findings_mode=${FUZZ_SMOKE_FINDINGS:-fail}
[[ $findings_mode == fail || $findings_mode == report ]] || {
  echo "sanitize.sh: FUZZ_SMOKE_FINDINGS must be 'fail' or 'report', got '$findings_mode'" >&2
  exit 2
}
# The properties and then the fuzz targets run SANITIZE_JOBS at a time
# (default: the machine's cores; each is one single-threaded process), each
# into its own log; the logs are printed and judged in order afterwards.
jobs=${SANITIZE_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || {
  echo "sanitize.sh: SANITIZE_JOBS must be a positive integer, got '$jobs'" >&2
  exit 2
}

if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then
  ./scripts/setup.sh
fi
BUILD=${ASAN_BUILD_DIR:-build-asan}
# Without the PyTorch backend (oracles/python_backend.h): CPython and Debian's
# LibTorch are not instrumented, and LeakSanitizer reports the interpreter's
# own allocations at exit. Its tests run in ./scripts/test.sh; here they, and
# the pytorch.* properties, report skipped with that reason.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Each GoogleTest binary runs as one test (STORCHECK_TEST_PER_BINARY): a
# process start under ASan with LibTorch loaded costs about 3 s, which per
# test was most of this script's time. Left out under the sanitizers: the
# tests that crash or time the CLI on purpose.
GTEST_EXCLUDE='-*BadInput*:*PlantedFault*:*CrashSafety*:*EagerUnsafe*:*Reliability*'
CXX=clang++ BUILD_DIR="$BUILD" \
  STORCHECK_CMAKE_ARGS="-DSTORCHECK_FAULT_INJECTION=ON -DSTORCHECK_SANITIZE=address,undefined -DSTORCHECK_LIBFUZZER=ON -DSTORCHECK_EMIT_TESTS=OFF -DSTORCHECK_WITH_PYTORCH=OFF -DSTORCHECK_TEST_PER_BINARY=ON -DSTORCHECK_GTEST_FILTER=$GTEST_EXCLUDE" \
  ./scripts/build.sh

# The emitted reproducers (one LibTorch program per regression file) are
# built and run by the plain build (test.sh); here harness_test's Emit.*
# cases drive the emitter itself under the sanitizers.
# The end-to-end tests that start the binary per case (the bad-input
# catalogue, planted faults, SIGKILL, the Reliability cases that crash,
# hang or throw on purpose, --eager-unsafe whose crashing child ASan would
# catch itself) are left to the plain build: each start loads
# LibTorch under ASan, and the properties below drive the same code.
ctest --test-dir "$BUILD" --output-on-failure -j2

# A finding written by an earlier sanitized run must not be overwritten.
mkdir -p "$BUILD/findings"

props_out="$BUILD/sanitized-properties"
rm -rf "$props_out" && mkdir -p "$props_out"
props=$("$BUILD/storcheck" list | awk '{print $1}')
# Runs `$1 ITEM` for each ITEM of the rest, $jobs at a time; each call
# writes its own log and exit status.
each_in_parallel() {
  local fn=$1 running=0
  shift
  for item in "$@"; do
    if ((running >= jobs)); then
      wait -n || true
      running=$((running - 1))
    fi
    "$fn" "$item" &
    running=$((running + 1))
  done
  wait
}
check_one() {
  local p=$1 rc=0
  "$BUILD/storcheck" check "$p" --programs 2000 --seed 1 --findings-dir "$BUILD/findings" \
    >"$props_out/$p.log" 2>&1 || rc=$?
  echo "$rc" >"$props_out/$p.rc"
}
# shellcheck disable=SC2086
each_in_parallel check_one $props
passed=0
failed=0
skipped=0
for p in $props; do
  out=$(cat "$props_out/$p.log")
  if [[ $(cat "$props_out/$p.rc" 2>/dev/null) == 0 ]]; then
    # A property this build cannot run (the device ones without a GPU) says why.
    if grep -q "^$p: skipped: " <<<"$out"; then skipped=$((skipped + 1)); else passed=$((passed + 1)); fi
  else
    failed=$((failed + 1))
  fi
  printf '%s\n' "$out"
done
echo "sanitized properties: $passed passed, $failed failed, $skipped skipped"

# Fuzz smoke: each target from its seeds (a copy: the source tree's corpus
# is not grown here; scripts/nightly.sh does that) for 20 s (issue 6), with
# a fixed -seed (-runs=-1: no limit on inputs). The
# seeds' replay is deterministic: a target that fails on them (a crash
# before libFuzzer's INITED line) always fails the run. What the mutations
# explore after that is not: two runs of the same build with the same
# -seed part after a thousand inputs or so, with -reload=0 and without
# ASLR too (measured 2026-12-01; LibTorch's own state and allocation
# counts vary). So a finding there is a bug that was already in the code,
# found by chance: FUZZ_SMOKE_FINDINGS=fail (the default) fails the run on
# it, =report prints it, keeps it in $BUILD/findings/ and goes on; the
# nightly job (scripts/nightly.sh) and ctest's fuzz.replay.* turn findings
# into regressions that do gate.
smoke="$BUILD/fuzz-smoke"
rm -rf "$smoke" && mkdir -p "$smoke"
fuzz_passed=0
fuzz_failed=0
fuzz_findings=0
targets=(views_fuzzer shrink_fuzzer cow_fuzzer fake_fuzzer program_parser_fuzzer)
smoke_one() {
  local t=$1 runs=-1
  mkdir -p "$smoke/$t"
  cp -p "corpus/$t"/* "$smoke/$t/"
  if [[ -n ${FUZZ_SMOKE_RUNS:-} ]]; then
    runs=$FUZZ_SMOKE_RUNS
    [[ $t == program_parser_fuzzer ]] && runs=$((runs * 30))
  fi
  # FUZZ_SMOKE_ARGS: more flags for every target (e.g. --plant-fault=NAME).
  local rc=0
  # shellcheck disable=SC2086
  "$BUILD/$t" ${FUZZ_SMOKE_ARGS:-} -seed=1 -runs="$runs" -max_total_time="${FUZZ_SMOKE_SECONDS:-20}" -timeout=10 \
    -rss_limit_mb=4096 \
    -max_len=4096 -dict=harness/fuzz/storcheck.dict -print_final_stats=1 \
    -artifact_prefix="$smoke/$t-" "$smoke/$t" >"$smoke/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$smoke/$t.rc"
}
each_in_parallel smoke_one "${targets[@]}"
for t in "${targets[@]}"; do
  if [[ $(cat "$smoke/$t.rc" 2>/dev/null) == 0 ]]; then
    fuzz_passed=$((fuzz_passed + 1))
    echo "fuzz smoke $t: ok, $(sed -n 's/^stat::average_exec_per_sec: *//p' "$smoke/$t.log") exec/s"
  elif [[ $findings_mode == report ]] && grep -aq 'INITED' "$smoke/$t.log"; then
    fuzz_findings=$((fuzz_findings + 1))
    for a in "$smoke/$t"-*; do
      [[ -f $a ]] && cp -p "$a" "$BUILD/findings/smoke-$(basename "$a")"
    done
    echo "fuzz smoke $t: FINDING on a mutated input (reported, not gating: FUZZ_SMOKE_FINDINGS=report;" \
      "input kept in $BUILD/findings/smoke-$t-*; replay it with \`storcheck repro\`)"
    grep -a -A30 '^==storcheck==\|ERROR:' "$smoke/$t.log" | head -60 || true
  else
    fuzz_failed=$((fuzz_failed + 1))
    echo "fuzz smoke $t: FAILED (crash file and log in $smoke/)"
    grep -a -A30 '^==storcheck==\|ERROR:' "$smoke/$t.log" | head -60 || true
  fi
done
echo "fuzz-smoke: $fuzz_passed passed, $fuzz_failed failed, $fuzz_findings findings reported"
[[ $failed -eq 0 && $fuzz_failed -eq 0 ]]
