#!/usr/bin/env bash
# Installs the Debian packages graphopt needs (only those missing), then builds it
# in Release into build/.
#   scripts/setup.sh            install + build
#   scripts/setup.sh --test     install + build + run the test suite, then build with
#                               AddressSanitizer + UndefinedBehaviorSanitizer into
#                               build-asan/ and run the test suite again, then run
#                               every fuzz target for 5 s (scripts/fuzz.sh --brief)
#   scripts/setup.sh --sanitize install + build the sanitizer build only
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-build}"
JOBS="$(nproc)"

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libmetis-dev libscotch-dev zlib1g-dev
  # The learned optimizer: LibTorch (CPU), the OpenMP build of OpenBLAS (the
  # reference BLAS is ~10x slower), the BLAS link library, tcmalloc.
  libtorch-dev libopenblas0-openmp libblas-dev libtcmalloc-minimal4
  # Fuzzing (scripts/fuzz.sh): clang and its libFuzzer and sanitizer runtimes.
  clang libclang-rt-14-dev
  # Runs on several processes or machines: mpirun -np N graphopt bench (dist/world.h).
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build() {  # build DIR EXTRA_CMAKE_ARGS...
  local dir="$1"; shift
  mkdir -p "$dir"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$dir/cmake.log" 2>&1 || {
    cat "$dir/cmake.log"; exit 1; }
  ninja -C "$dir" -j "$JOBS"
}

run_tests() {  # run_tests DIR
  # Passive OpenMP waiting: spinning threads starve the other test processes.
  (cd "$1" && OMP_WAIT_POLICY=passive ctest --output-on-failure -j "$JOBS" --timeout 600)
}

case "$MODE" in
  build)
    build build
    ;;
  --test)
    build build
    run_tests build
    build build-asan -DGRAPHOPT_SANITIZE=ON -DGRAPHOPT_BUILD_BENCH=OFF
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_tests build-asan
    FUZZ_JOBS="$JOBS" bash scripts/fuzz.sh --brief
    ;;
  --sanitize)
    build build-asan -DGRAPHOPT_SANITIZE=ON -DGRAPHOPT_BUILD_BENCH=OFF
    ;;
  *)
    echo "usage: scripts/setup.sh [--test|--sanitize]" >&2
    exit 2
    ;;
esac
