#!/usr/bin/env bash
# Installs everything storcheck's build and tests need on Debian 12 (bookworm).
#
# Idempotent: when every package is already installed it returns at once,
# without touching the network; otherwise it runs `apt-get update` and
# installs the missing ones. Runs as root, or through sudo when not root.
#
#   ./scripts/setup.sh
set -euo pipefail

# Every Debian package the build, the tests, the benchmarks and the reports use.
PACKAGES=(
  build-essential      # g++, make, libc headers
  cmake                # >= 3.20 (Debian 12: 3.25)
  ninja-build
  ccache
  clang                # libFuzzer targets (-fsanitize=fuzzer)
  libclang-rt-14-dev   # libFuzzer and sanitizer runtimes for clang 14
  afl++                # AFL++ (afl-clang-fast++, afl-fuzz): scripts/afl-smoke.sh
  zip                  # seed corpora zipped for ClusterFuzzLite (.clusterfuzzlite/build.sh)
  unzip
  librapidcheck-dev    # property-based testing
  libtorch-dev         # LibTorch 1.13 (CPU) for the oracles
  libgtest-dev         # GoogleTest
  libgmock-dev
  googletest           # GoogleTest sources
  libbenchmark-dev     # Google Benchmark
  libcli11-dev
  nlohmann-json3-dev
  python3-torch        # PyTorch, for the emitted Python reproducers and FakeTensor
  python3-dev          # embedded CPython
  gnuplot-nox          # plots in the fuzzing report
  libxml2-utils        # xmllint: the JUnit report is validated against its schema
  git
)

die() {
  echo "setup.sh: error: $*" >&2
  exit 1
}

# --- Debian-like? ------------------------------------------------------------
if [[ ! -r /etc/os-release ]] || ! command -v apt-get >/dev/null 2>&1 ||
  ! command -v dpkg-query >/dev/null 2>&1; then
  die "this script supports Debian 12 (bookworm) and needs apt-get and dpkg-query;" \
    "on another system install the equivalents of: ${PACKAGES[*]}"
fi
# shellcheck source=/dev/null
. /etc/os-release
if [[ "${ID:-}" != "debian" && " ${ID_LIKE:-} " != *" debian "* ]]; then
  die "this is '${PRETTY_NAME:-${ID:-unknown}}', not a Debian-like system;" \
    "install the equivalents of: ${PACKAGES[*]}"
fi
if [[ "${ID:-}" != "debian" || "${VERSION_ID:-}" != "12" ]]; then
  echo "setup.sh: warning: tested on Debian 12 only; this is '${PRETTY_NAME:-unknown}'," \
    "some package names may differ" >&2
fi

# --- Fast path: everything already installed ---------------------------------
missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "setup.sh: all ${#PACKAGES[@]} packages are installed" >&2
  exit 0
fi

# --- Install what is missing ------------------------------------------------
SUDO=()
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    die "missing packages (${missing[*]}), and this is not root and sudo is not" \
      "installed; run this script as root"
  fi
fi

echo "setup.sh: installing: ${missing[*]}" >&2
APT_OPTS=(-o DPkg::Lock::Timeout=300)
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${missing[@]}"
echo "setup.sh: done" >&2
