#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run (issue 7, first part):
# builds storcheck with clang and -fsanitize=address,undefined into
# build-asan/ (all of storcheck's code, the LibTorch backend included, is
# instrumented; Debian's LibTorch library itself is not), runs every test
# through ctest, then every property on a few thousand programs. Any
# sanitizer report aborts the run (-fno-sanitize-recover=all).
#
#   ./scripts/sanitize.sh
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then
  ./scripts/setup.sh
fi
BUILD=${ASAN_BUILD_DIR:-build-asan}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
CXX=clang++ BUILD_DIR="$BUILD" \
  STORCHECK_CMAKE_ARGS="-DSTORCHECK_FAULT_INJECTION=ON -DSTORCHECK_SANITIZE=address,undefined -DSTORCHECK_EMIT_TESTS=OFF" \
  ./scripts/build.sh

# The emitted reproducers (one LibTorch program per regression file) are
# built and run by the plain build (test.sh); here harness_test's Emit.*
# cases drive the emitter itself under the sanitizers.
# The end-to-end tests that start the binary per case (the bad-input
# catalogue, planted faults, SIGKILL, the Reliability cases that crash,
# hang or throw on purpose, --eager-unsafe whose crashing child ASan would
# catch itself) are left to the plain build: each start loads
# LibTorch under ASan, and the properties below drive the same code.
ctest --test-dir "$BUILD" --output-on-failure -j2 -E 'BadInput|PlantedFault|CrashSafety|EagerUnsafe|Reliability'

# A finding written by an earlier sanitized run must not be overwritten.
mkdir -p "$BUILD/findings"

passed=0
failed=0
for p in $("$BUILD/storcheck" list | awk '{print $1}'); do
  if "$BUILD/storcheck" check "$p" --programs 2000 --seed 1 --findings-dir "$BUILD/findings"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "sanitized properties: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
