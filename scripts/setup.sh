#!/usr/bin/env bash
# Installs the Debian packages graphopt needs (only those missing), then builds it
# in Release into build/.
#   scripts/setup.sh            install + build
#   scripts/setup.sh --test     install + build + run the test suite, then build with
#                               AddressSanitizer + UndefinedBehaviorSanitizer into
#                               build-asan/ and run the test suite again, then run
#                               every fuzz target for 5 s (scripts/fuzz.sh --brief)
#   scripts/setup.sh --sanitize install + build the sanitizer build only
# The tests read the models and profiles of GRAPHOPT_DATA_DIR (default ../shared/data,
# beside this checkout); --test stops at once if that folder is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-build}"
JOBS="$(nproc)"
DATA_DIR="${GRAPHOPT_DATA_DIR:-$PWD/../shared/data}"

if [[ "$MODE" == --test ]] && [[ ! -d "$DATA_DIR/onnx" || ! -d "$DATA_DIR/pipedream" ]]; then
  echo "setup: the test data is not in $DATA_DIR (it needs onnx/ and pipedream/):" \
    "clone graphopt beside shared/, or set GRAPHOPT_DATA_DIR to the shared/data folder" >&2
  exit 1
fi
DATA_DIR="$(cd "$DATA_DIR" 2>/dev/null && pwd || echo "$DATA_DIR")"
export GRAPHOPT_DATA_DIR="$DATA_DIR"

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libmetis-dev libscotch-dev zlib1g-dev
  # m-SCT's favourite-child LP (baselines/baechi_lp.cc): COIN-OR CLP.
  coinor-libclp-dev
  # The exact program of placement and order (baselines/milp_model.cc): COIN-OR CBC.
  coinor-libcbc-dev
  # The learned optimizer: LibTorch (CPU), the OpenMP build of OpenBLAS (the
  # reference BLAS is ~10x slower), the BLAS link library, tcmalloc.
  libtorch-dev libopenblas0-openmp libblas-dev libtcmalloc-minimal4
  # Fuzzing (scripts/fuzz.sh): clang and its libFuzzer and sanitizer runtimes.
  clang libclang-rt-14-dev
  # Runs on several processes or machines: mpirun -np N graphopt bench (dist/world.h).
  libopenmpi-dev openmpi-bin
  # The Python module (python/) and its tests: pybind11, Python's headers, numpy, pytest.
  pybind11-dev python3-dev python3-numpy python3-pytest
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
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRAPHOPT_DATA_DIR="$DATA_DIR" "$@" > "$dir/cmake.log" 2>&1 || {
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
