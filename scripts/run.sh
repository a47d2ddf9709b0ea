#!/usr/bin/env bash
# Sets up the machine, builds storcheck and runs `storcheck gate` on the
# built-in corpus. Extra arguments go to the gate; the exit code is the gate's
# (0 pass, 1 failure or divergence, 2 usage or input error).
#
#   ./scripts/run.sh
#   ./scripts/run.sh --budget 10 --seed 7 --junit out/gate.xml
#
# Set-up and build logs go to stderr, so stdout carries the gate's report only.
# STORCHECK_SKIP_SETUP=1 skips the package check (for machines without root).
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR

if [[ "${STORCHECK_SKIP_SETUP:-0}" != "1" ]]; then
  ./scripts/setup.sh >&2
fi
./scripts/build.sh >&2

exec "$BUILD_DIR/storcheck" gate "$@"
