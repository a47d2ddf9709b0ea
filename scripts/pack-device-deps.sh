#!/usr/bin/env bash
# Copies what a GPU machine without a package manager or network needs to
# build storcheck's tests, from this Debian machine: RapidCheck and
# GoogleTest (headers, static libraries and their relocatable CMake
# configs), laid out as a prefix for CMAKE_PREFIX_PATH. The device machine
# brings CUDA, CMake, ninja, a compiler and Python's PyTorch itself.
#
#   ./scripts/pack-device-deps.sh [OUT]     # default device-deps/ (git-ignored)
#   scripts/test-device.sh --deps device-deps   # on the GPU machine
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$ROOT/device-deps}
pkgs=(librapidcheck-dev libgtest-dev libgmock-dev)
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 ||
    { echo "pack-device-deps.sh: Debian package $p is not installed (./scripts/setup.sh installs it)" >&2; exit 2; }
done
tmp=$(mktemp -d "${out%/}.tmp-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for p in "${pkgs[@]}"; do
  dpkg -L "$p" | while read -r f; do
    [[ -f "$f" && "$f" == /usr/* && "$f" != /usr/share/* ]] || continue
    rel=${f#/usr/}
    mkdir -p "$tmp/$(dirname "$rel")"
    cp -p "$f" "$tmp/$rel"
  done
done
rm -rf "$out" && mv "$tmp" "$out"  # whole, or not at all
trap - EXIT
echo "pack-device-deps.sh: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1) in $out"
