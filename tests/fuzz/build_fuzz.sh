#!/usr/bin/env bash
# Configures and builds the fuzz targets (CUZK_FUZZ=ON: clang, -fsanitize=fuzzer,address; only fuzz_all and the
# library sources it links) in BUILD_DIR: the fixture of the suite's fuzz tests (tests/fuzz/fuzz_tests.cmake) and
# the first step of bench/run_fuzz.sh. A machine without clang or its libFuzzer runtime fails here, naming the
# Debian packages: it cannot tell whether the decoders hold, so the fuzz tests must not pass there.
# Usage: build_fuzz.sh SOURCE_DIR BUILD_DIR
set -euo pipefail

source_dir=${1:?usage: build_fuzz.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: build_fuzz.sh SOURCE_DIR BUILD_DIR}
packages="clang libclang-rt-14-dev"

if ! command -v clang++ >/dev/null; then
    echo "FAIL: clang++ not found; the fuzz targets need clang with libFuzzer (Debian 12: apt-get install $packages;" \
        "./dev.sh installs them)"
    exit 1
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n' \
    >"$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address "$probe/probe.cpp" -o "$probe/probe" 2>"$probe/error"; then
    cat "$probe/error"
    echo "FAIL: clang++ cannot link -fsanitize=fuzzer,address: the libFuzzer and AddressSanitizer runtimes are" \
        "missing (Debian 12: apt-get install $packages; ./dev.sh installs them)"
    exit 1
fi

if ! cmake -S "$source_dir" -B "$build" -G Ninja -DCUZK_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
    -DCUZK_ENABLE_CUDA=OFF >"$probe/configure" 2>&1; then
    cat "$probe/configure"
    echo "FAIL: configuring the fuzz build in $build"
    exit 1
fi
cmake --build "$build" --target fuzz_all --parallel "$(nproc)"
