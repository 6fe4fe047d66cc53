#!/usr/bin/env bash
# Packs the CUDA test and benchmark executables of a build directory, and the pipeline's executables
# (cuzk, cuzk-assemblerd, cuzk-synthd, cuzk-gpud), with the shared libraries they load, for a GPU machine
# that lacks the project's build dependencies:
#
#   bench/gpu/pack_prebuilt.sh BUILD_DIR DEST      then on the GPU machine: bench/gpu/run_h200.sh DEST
#                                                  and/or bench/gpu/run_pipeline_h200.sh DEST
#
# Each executable is packed when the build has it (build only the targets you need: test_cuda_msm
# test_cuda_ntt test_cuda_backend cuzk_bench_gpu for run_h200.sh, and bench_prepare for its "prepare" mode
# in a build with CUZK_BUILD_BENCHMARKS=ON; cuzk cuzk-assemblerd cuzk-synthd cuzk-gpud for
# run_pipeline_h200.sh); the ones missing are listed, and no executable at all is an error.
# DEST/lib holds the libraries (libcuda, the driver's, is left to the machine); DEST/glibc the C
# library and its loader, used by the run scripts only when the machine's own C library is older.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR DEST" >&2
  exit 2
fi
BUILD=$1
DEST=$2
mkdir -p "$DEST/lib" "$DEST/glibc"
# name -> path inside the build directory
wanted=(tests/test_cuda_msm tests/test_cuda_ntt tests/test_cuda_backend tests/test_gpud_backend_status
        tests/test_cuda_backend_compact tests/test_cuda_r1cs tests/test_cuda_pinned_pool tests/test_device_copy_plan gpud/cuzk_bench_gpu bench/gpu/experiments/cuzk_field_bench bench/gpu/experiments/cuzk_msm_sparse_stream bench/bench_prepare
        cli/cuzk assemblerd/cuzk-assemblerd synthd/cuzk-synthd gpud/cuzk-gpud)
packed=()
missing=()
for rel in "${wanted[@]}"; do
  if [ -x "$BUILD/$rel" ] && [ -f "$BUILD/$rel" ]; then
    cp "$BUILD/$rel" "$DEST/"
    packed+=("$DEST/$(basename "$rel")")
  else
    missing+=("$(basename "$rel")")
  fi
done
if [ ${#packed[@]} -eq 0 ]; then
  echo "$0: none of ${wanted[*]} in $BUILD (build them first)" >&2
  exit 2
fi
for exe in "${packed[@]}"; do
  ldd "$exe" | awk '/=> \// {print $3} $1 ~ /ld-linux/ {print $1}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libcuda.so*) ;;
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*) cp -L "$lib" "$DEST/glibc/" ;;
    *) cp -L "$lib" "$DEST/lib/" ;;
  esac
done
strip --strip-unneeded "$DEST"/lib/*.so* "${packed[@]}" 2>/dev/null || true
echo "packed: ${packed[*]##*/}"
[ ${#missing[@]} -eq 0 ] || echo "not in $BUILD (not packed): ${missing[*]}"
du -sh "$DEST"
# A device call carries at most 64 MiB and the full set is ~120 MB, most of it the CUDA fat binaries in each
# executable: ARCHIVE=1 also writes DEST.tar.xz (~50 MB), unpacked there with
#   mkdir -p DEST && tar xJf DEST.tar.xz -C DEST
if [ "${ARCHIVE:-0}" = 1 ]; then
  tar cJf "$DEST.tar.xz" -C "$DEST" . && ls -la "$DEST.tar.xz"
fi
