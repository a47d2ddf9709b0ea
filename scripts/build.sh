#!/usr/bin/env bash
# Configures and builds storcheck with CMake and Ninja (RelWithDebInfo).
#
# Environment:
#   BUILD_DIR              build folder, relative to the repository root or
#                          absolute (default: build)
#   STORCHECK_CMAKE_ARGS   extra CMake arguments, split on blanks
#                          (e.g. "-DSTORCHECK_FAULT_INJECTION=ON")
#   CCACHE_DIR             compiler cache (default: $HOME/.cache/ccache)
#
#   ./scripts/build.sh
#   BUILD_DIR=build-asan STORCHECK_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug" ./scripts/build.sh
set -euo pipefail

ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

BUILD_DIR=${BUILD_DIR:-build}
read -r -a EXTRA_ARGS <<<"${STORCHECK_CMAKE_ARGS:-}"

# ccache: one cache shared by every clone of the repository (paths are made
# relative to the clone's root, and its folder is no part of the key: Note
# [Compiler cache across clones] in CMakeLists.txt), and precompiled headers
# allowed.
export CCACHE_DIR=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
CONFIG_ARGS=()
if command -v ccache >/dev/null 2>&1; then
  mkdir -p "$CCACHE_DIR"
  CONFIG_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  echo "build.sh: warning: ccache not found; building without a compiler cache" >&2
fi

# Ninja on the first configure; an existing build folder keeps its generator.
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  CONFIG_ARGS+=(-G Ninja)
fi

cmake -S "$ROOT" -B "$BUILD_DIR" "${CONFIG_ARGS[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "${EXTRA_ARGS[@]}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
