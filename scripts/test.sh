#!/usr/bin/env bash
# Sets up the machine, builds storcheck with the fault-injection switches into
# build-test/ (the normal build in build/ has them off), and runs every test
# through ctest. Extra arguments go to ctest; the exit code is ctest's.
#
#   ./scripts/test.sh
#   ./scripts/test.sh -R program_test
#
# TEST_BUILD_DIR overrides build-test; STORCHECK_SKIP_SETUP=1 skips the
# package check (for machines without root).
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

TEST_BUILD_DIR=${TEST_BUILD_DIR:-build-test}

if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then
  ./scripts/setup.sh
fi
BUILD_DIR="$TEST_BUILD_DIR" \
  STORCHECK_CMAKE_ARGS="-DSTORCHECK_FAULT_INJECTION=ON ${STORCHECK_CMAKE_ARGS:-}" \
  ./scripts/build.sh

exec ctest --test-dir "$TEST_BUILD_DIR" --output-on-failure -j2 "$@"
