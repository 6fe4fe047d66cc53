#!/usr/bin/env bash
# Developer entry point: installs what is missing (Debian 12, as root), builds, and runs the demo
# or the tests.  Usage: ./dev.sh demo | test | build | bench | asan
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
BUILD=${CUZK_BUILD_DIR:-$ROOT/build}

# Debian packages the build and tests need; each is a well-kept package chosen for its job.
PACKAGES=(cmake ninja-build g++ pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev        # tests and benchmarks
  libfmt-dev libspdlog-dev                          # formatting and logging
  libboost-dev                                      # Boost.Interprocess (shared-memory rings)
  libzmq3-dev cppzmq-dev                            # control messages between the daemons
  libtbb-dev                                        # parallel loops (MSM, NTT, synthesis)
  libcli11-dev nlohmann-json3-dev libsimdjson-dev   # command lines, JSON (simdjson for C1 files)
  libtomlplusplus-dev                               # TOML config files
  libnuma-dev libsystemd-dev                        # NUMA pinning, sd_notify
  libssl-dev                                        # SHA256 for native hashing
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # the gRPC API Curio speaks
  libcpp-httplib-dev                                # /metrics and /status over HTTP
  python3-prometheus-client                         # tests: the metrics text parsed by Prometheus' own parser
  librsvg2-bin                                      # tests: the timeline SVG rendered to PNG
  clang libclang-rt-14-dev                          # tests: the libFuzzer targets (tests/fuzz): clang, its fuzzer runtime
  golang-go golang-google-grpc-dev golang-google-protobuf-dev protoc-gen-go protoc-gen-go-grpc  # tests: a Go client, as Curio's
  systemd)                                          # systemd-analyze verifies the unit files in the tests

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "dev.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  # The @noble/curves oracle needs node and npm; a node that came with its own npm is kept as it is.
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm
  fi
}

oracle_deps() {
  # Pinned by tests/oracle/package-lock.json; node_modules is not committed.
  if [ -f "$ROOT/tests/oracle/package-lock.json" ] && [ ! -d "$ROOT/tests/oracle/node_modules/@noble/curves" ]; then
    (cd "$ROOT/tests/oracle" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

build() {
  install_missing
  cmake -S "$ROOT" -B "$BUILD" -G Ninja ${CUZK_CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD" --parallel "$(nproc)"
}

case "${1:-test}" in
  build) build ;;
  test)
    build
    oracle_deps
    cd "$BUILD" && ctest --output-on-failure --timeout 900 -j "$(nproc)"
    ;;
  demo)
    build
    "$BUILD/cli/cuzk" demo
    ;;
  bench)
    build
    "$ROOT/bench/run_cpu_benchmarks.sh" "$BUILD"
    ;;
  asan)
    # The suite under AddressSanitizer and UndefinedBehaviorSanitizer (CPU backend), in its own build directory:
    # every undefined behaviour aborts its test; leak checking is off (daemons stopped by signals in the tests
    # leave what they hold). The libFuzzer targets (ASan already) and the device scripts' smoke tests are left out.
    install_missing
    oracle_deps
    SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    cmake -S "$ROOT" -B "$ROOT/build-asan" -G Ninja -DCUZK_ENABLE_CUDA=OFF -DCUZK_BUILD_BENCHMARKS=OFF \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 $SAN" \
      -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" >/dev/null
    cmake --build "$ROOT/build-asan" --parallel "$(nproc)"
    cd "$ROOT/build-asan" && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --output-on-failure --timeout 1800 -j "$(nproc)" -LE fuzz -E bench_script
    ;;
  *)
    echo "usage: ./dev.sh demo | test | build | bench | asan" >&2
    exit 2
    ;;
esac
