#!/usr/bin/env bash
# Builds storcheck on a GPU machine that has CUDA, CMake, ninja, a C++
# compiler and Python's PyTorch, but no package manager and no network
# (issue 11). RapidCheck and GoogleTest come from --deps, a folder made by
# scripts/pack-device-deps.sh on a Debian machine; LibTorch is Python's
# (torch.utils.cmake_prefix_path).
#
#   scripts/build-device.sh --deps device-deps [--build build-device] [--python python3]
#
# If storcheck's LibTorch oracles do not build against that LibTorch, the
# build is redone without them (-DSTORCHECK_WITH_TORCH=OFF) so that the
# CUDA reference and its `gpu` tests still build; the last line says which.
# Exit 0 when a build succeeded, 1 when none did, 2 on bad arguments.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
deps="" build="$ROOT/build-device" python=python3
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --deps) [[ $# -ge 2 ]] || usage; deps=$2; shift 2 ;;
    --build) [[ $# -ge 2 ]] || usage; build=$2; shift 2 ;;
    --python) [[ $# -ge 2 ]] || usage; python=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "build-device.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$deps" && -d "$deps" ]] || { echo "build-device.sh: --deps: no folder '$deps'" >&2; exit 2; }
deps=$(cd "$deps" && pwd)
torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
  { echo "build-device.sh: $python cannot import torch" >&2; exit 2; }
jobs=$(nproc)
export CCACHE_BASEDIR=$ROOT  # where ccache exists (CMakeLists.txt uses it): hits across folders
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_PREFIX_PATH=$deps;$torch_prefix"
  -DSTORCHECK_WITH_PYTORCH=OFF -DSTORCHECK_EMIT_TESTS=OFF "-DSTORCHECK_PYTHON=$(command -v "$python")")
log="$build.log"
if cmake -S "$ROOT" -B "$build" "${common[@]}" -DSTORCHECK_WITH_TORCH=ON >"$log" 2>&1 &&
  cmake --build "$build" -j "$jobs" >>"$log" 2>&1; then
  echo "build-device.sh: built with LibTorch $("$python" -c 'import torch; print(torch.__version__)') in $build"
  exit 0
fi
echo "build-device.sh: the build with LibTorch failed (see $log); building the CUDA reference without it" >&2
grep -m5 -E 'error|Error' "$log" >&2 || true
rm -rf "$build"
if cmake -S "$ROOT" -B "$build" "${common[@]}" -DSTORCHECK_WITH_TORCH=OFF >>"$log" 2>&1 &&
  cmake --build "$build" -j "$jobs" >>"$log" 2>&1; then
  echo "build-device.sh: built WITHOUT LibTorch (STORCHECK_WITH_TORCH=OFF) in $build"
  exit 0
fi
echo "build-device.sh: both builds failed; see $log" >&2
tail -20 "$log" >&2
exit 1
