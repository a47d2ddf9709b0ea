#!/usr/bin/env bash
# AFL++ smoke run (issue 6): the libFuzzer entry points built for AFL++
# (afl-clang-fast++ with -fsanitize=fuzzer, which AFL++'s compiler wrapper
# turns into its libFuzzer-compatible driver, libAFLDriver), then afl-fuzz
# for a few seconds per target on a copy of its seed corpus with the
# storcheck dictionary. Passes when each target executed inputs
# (fuzzer_stats: execs_done > 0) and saved no crash.
#
#   ./scripts/afl-smoke.sh                       # program_parser_fuzzer, 20 s
#   ./scripts/afl-smoke.sh --seconds 60 --targets "program_parser_fuzzer views_fuzzer"
#
# Options:
#   --seconds N      afl-fuzz time per target (afl-fuzz -V N; default 20)
#   --targets "A B"  the targets (default program_parser_fuzzer: it links the
#                    program layer only and builds in seconds; the program
#                    targets link all of storcheck and LibTorch, a few
#                    minutes more to build)
#   --out DIR        afl-fuzz's output folders and logs (default build-afl/smoke)
#
# Environment: AFL_BUILD_DIR (default build-afl), STORCHECK_SKIP_SETUP=1,
# AFL_USE_ASAN=1 (build with ASan, as AFL++'s wrappers read it).
#
# The structure-aware mutator (LLVMFuzzerCustomMutator) is libFuzzer's hook:
# AFL++ mutates bytes with the dictionary. Exit 0 on success, 1 when a target
# ran nothing or crashed, 2 on a usage or build error.
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

ALL_TARGETS="views_fuzzer shrink_fuzzer cow_fuzzer fake_fuzzer program_parser_fuzzer"
seconds=20
targets=program_parser_fuzzer
out=""
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}
need_value() { [[ $# -ge 2 && -n "$2" ]] || { echo "afl-smoke.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) need_value "$@"; seconds=$2; shift 2 ;;
    --targets) need_value "$@"; targets=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "afl-smoke.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 && "$seconds" -le 86400 ]] ||
  { echo "afl-smoke.sh: --seconds: expected 1 to 86400, got '$seconds'" >&2; exit 2; }
for t in $targets; do
  [[ " $ALL_TARGETS " == *" $t "* ]] || { echo "afl-smoke.sh: unknown target '$t' (known: $ALL_TARGETS)" >&2; exit 2; }
done

if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then ./scripts/setup.sh >&2; fi
for tool in afl-clang-fast++ afl-fuzz; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "afl-smoke.sh: $tool is missing; install Debian's afl++ (./scripts/setup.sh does)" >&2; exit 2; }
done

BUILD=${AFL_BUILD_DIR:-build-afl}
out=${out:-$BUILD/smoke}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { echo "afl-smoke: $(date -u +%H:%M:%S) $*" >&2; }

# --- Build: the same entry points, AFL++'s compiler and driver ----------------
export CCACHE_DIR=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
log "building $targets with afl-clang-fast++ into $BUILD"
# shellcheck disable=SC2086
if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=afl-clang-fast++ "${launcher[@]}" -DSTORCHECK_FUZZING_ENGINE=-fsanitize=fuzzer \
  -DSTORCHECK_TESTS=OFF -DSTORCHECK_EMIT_TESTS=OFF &&
  cmake --build "$BUILD" --parallel "$(nproc)" --target $targets; } >"$out/build.log" 2>&1; then
  tail -20 "$out/build.log" >&2
  echo "afl-smoke.sh: build failed; see $out/build.log" >&2
  exit 2
fi

# --- Fuzz each target for --seconds and read its fuzzer_stats ------------------
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_NO_AFFINITY=1          # a shared machine: do not insist on a free core
# Seeds that a program target rejects (-1) still run: AFL++ keeps them.
passed=0
failed=0
for t in $targets; do
  seeds="$out/$t.seeds"
  findings="$out/$t.afl"
  rm -rf "$seeds" "$findings"
  mkdir -p "$seeds"
  cp -p "corpus/$t"/* "$seeds/"
  log "afl-fuzz $t for ${seconds}s"
  rc=0
  # -V: stop after N seconds; -x: the dictionary; -t: 10 s per input as libFuzzer's -timeout.
  timeout $((seconds + 120)) afl-fuzz -i "$seeds" -o "$findings" -V "$seconds" -t 10000 \
    -x harness/fuzz/storcheck.dict -- "$BUILD/$t" >"$out/$t.log" 2>&1 || rc=$?
  stats="$findings/default/fuzzer_stats"
  if [[ ! -f "$stats" ]]; then
    tail -30 "$out/$t.log" >&2
    echo "afl-smoke $t: FAILED: afl-fuzz exited $rc without fuzzer_stats (log: $out/$t.log)"
    failed=$((failed + 1))
    continue
  fi
  stat() { sed -n "s/^$1 *: *//p" "$stats" | head -1; }
  execs=$(stat execs_done)
  crashes=$(stat saved_crashes)
  crashes=${crashes:-$(stat unique_crashes)}
  eps=$(stat execs_per_sec)
  corpus=$(stat corpus_count)
  corpus=${corpus:-$(stat paths_total)}
  if [[ "${execs:-0}" -gt 0 && "${crashes:-1}" -eq 0 && $rc -eq 0 ]]; then
    echo "afl-smoke $t: ok, $execs execs ($eps exec/s), corpus $corpus, 0 crashes"
    passed=$((passed + 1))
  else
    echo "afl-smoke $t: FAILED: afl-fuzz exit $rc, execs_done ${execs:-?}, saved crashes ${crashes:-?} (in $findings/default/crashes/, log $out/$t.log)"
    failed=$((failed + 1))
  fi
done
echo "afl-smoke: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
