#!/usr/bin/env bash
# Packs the CUDA test and benchmark executables of a build directory with the shared libraries they
# load, for a GPU machine that lacks the project's build dependencies:
#
#   bench/gpu/pack_prebuilt.sh BUILD_DIR DEST      then on the GPU machine: bench/gpu/run_h200.sh DEST
#
# DEST/lib holds the libraries (libcuda, the driver's, is left to the machine); DEST/glibc the C
# library and its loader, used by run_h200.sh only when the machine's own C library is older.
set -euo pipefail
BUILD=$1
DEST=$2
mkdir -p "$DEST/lib" "$DEST/glibc"
cp "$BUILD/tests/test_cuda_msm" "$BUILD/tests/test_cuda_ntt" "$BUILD/tests/test_cuda_backend" "$BUILD/gpud/cuzk_bench_gpu" "$DEST/"
for exe in "$DEST"/test_cuda_msm "$DEST"/test_cuda_ntt "$DEST"/test_cuda_backend "$DEST"/cuzk_bench_gpu; do
  ldd "$exe" | awk '/=> \// {print $3} $1 ~ /ld-linux/ {print $1}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libcuda.so*) ;;
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*) cp -L "$lib" "$DEST/glibc/" ;;
    *) cp -L "$lib" "$DEST/lib/" ;;
  esac
done
strip --strip-unneeded "$DEST"/lib/*.so* 2>/dev/null || true
du -sh "$DEST"
