#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of storcheck's fuzz targets (issue 6;
# harness/fuzz/README.md, "ClusterFuzzLite"). Runs inside the image of
# .clusterfuzzlite/Dockerfile, or locally with the same environment (the
# ctest fuzz.cflite.build_sh does that). It uses only what the contract
# provides:
#   CXX, CXXFLAGS        the compiler and its flags (sanitizers, coverage
#                        instrumentation: -fsanitize=...,fuzzer-no-link)
#   LIB_FUZZING_ENGINE   the engine to link (-fsanitize=fuzzer for libFuzzer)
#   OUT                  where the targets and their files go
#   WORK                 scratch space (the CMake build folder)
#   SRC                  where the Dockerfile put the sources (and rapidcheck)
# and writes, for each target T into $OUT: T, T_seed_corpus.zip (corpus/T/),
# T.dict (harness/fuzz/storcheck.dict) and T.options.
#
# STORCHECK_CFLITE_TARGETS (not part of the contract) names a subset, e.g.
# "program_parser_fuzzer"; the default is every target.
#
# Note [ClusterFuzzLite without LibTorch]
# The targets are built with -DSTORCHECK_WITH_TORCH=OFF. The base image is
# Ubuntu with clang from LLVM's head and CXXFLAGS holding -stdlib=libc++;
# Ubuntu has no LibTorch package, and LibTorch's prebuilt libraries use
# libstdc++, so they cannot be linked into a libc++ build (nor would their
# shared libraries be in the runner image). So under ClusterFuzzLite:
# 1) program_parser_fuzzer is complete: it never needed LibTorch.
# 2) views_fuzzer, shrink_fuzzer, cow_fuzzer and fake_fuzzer judge every
#    program against the reference alone: every SEMANTICS invariant after
#    the run and the sanitizers over the reference, the language, the
#    runner and the comparators, but no comparison with LibTorch. The
#    differential check runs in scripts/nightly.sh and scripts/sanitize.sh,
#    which link Debian's LibTorch.
set -euo pipefail

# The checkout: ClusterFuzzLite runs a copy of this script as $SRC/build.sh
# from the Dockerfile's WORKDIR ($SRC/storcheck); run from elsewhere, it is
# the folder above .clusterfuzzlite/.
if [[ -f "$PWD/.clusterfuzzlite/build.sh" ]]; then
  ROOT=$PWD
else
  ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
fi
[[ -f "$ROOT/CMakeLists.txt" && -d "$ROOT/corpus" ]] ||
  { echo "build.sh: no storcheck checkout at '$ROOT' (run it from the checkout's root)" >&2; exit 2; }
: "${CXX:?build.sh: CXX is not set (the ClusterFuzzLite environment sets it)}"
: "${LIB_FUZZING_ENGINE:?build.sh: LIB_FUZZING_ENGINE is not set}"
: "${OUT:?build.sh: OUT is not set}"
: "${WORK:?build.sh: WORK is not set}"
SRC=${SRC:-$(dirname "$ROOT")}
ALL_TARGETS="views_fuzzer shrink_fuzzer cow_fuzzer fake_fuzzer program_parser_fuzzer"
targets=${STORCHECK_CFLITE_TARGETS:-$ALL_TARGETS}
for t in $targets; do
  [[ " $ALL_TARGETS " == *" $t "* ]] ||
    { echo "build.sh: unknown target '$t' in STORCHECK_CFLITE_TARGETS (known: $ALL_TARGETS)" >&2; exit 2; }
done
jobs=$(nproc)

# RapidCheck (the generators' dependency, which the program targets link):
# the image has its source in $SRC/rapidcheck (Ubuntu has no package), built
# here with the environment's compiler and flags so that the standard
# library matches (-stdlib=libc++). Elsewhere the installed one is used.
prefix_args=()
if [[ -f "$SRC/rapidcheck/CMakeLists.txt" ]]; then
  cmake -S "$SRC/rapidcheck" -B "$WORK/rapidcheck-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_INSTALL_PREFIX="$WORK/deps" -DRC_INSTALL_ALL_EXTRAS=OFF
  cmake --build "$WORK/rapidcheck-build" --parallel "$jobs"
  cmake --install "$WORK/rapidcheck-build"
  prefix_args=(-DCMAKE_PREFIX_PATH="$WORK/deps")
fi

# CMAKE_BUILD_TYPE=None: no flags of storcheck's own (no -O2 -g), only the
# environment's CXXFLAGS, as the contract asks. See Note [ClusterFuzzLite
# without LibTorch] for STORCHECK_WITH_TORCH=OFF.
cmake -S "$ROOT" -B "$WORK/storcheck-build" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_COMPILER="$CXX" "${prefix_args[@]}" \
  -DSTORCHECK_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" -DSTORCHECK_WITH_TORCH=OFF \
  -DSTORCHECK_TESTS=OFF -DSTORCHECK_EMIT_TESTS=OFF
# shellcheck disable=SC2086
cmake --build "$WORK/storcheck-build" --parallel "$jobs" --target $targets

for t in $targets; do
  cp "$WORK/storcheck-build/$t" "$OUT/$t"
  rm -f "$OUT/${t}_seed_corpus.zip"
  # -j: flat, as libFuzzer reads a corpus folder; names are content hashes.
  (cd "$ROOT/corpus/$t" && zip -q -j "$OUT/${t}_seed_corpus.zip" ./*)
  cp "$ROOT/harness/fuzz/storcheck.dict" "$OUT/$t.dict"
  # The flags scripts/nightly.sh and scripts/sanitize.sh use; the parser
  # target's inputs are plain bytes, so it keeps libFuzzer's max_len.
  {
    echo "[libfuzzer]"
    echo "dict = $t.dict"
    echo "timeout = 10"
    echo "rss_limit_mb = 4096"
    [[ $t == program_parser_fuzzer ]] || echo "max_len = 4096"
  } >"$OUT/$t.options"
done
echo "build.sh: built $targets into $OUT"
