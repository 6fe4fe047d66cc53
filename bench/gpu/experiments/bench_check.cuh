// BENCH_CHECK(call): a CUDA runtime call of a standalone experiment, which on failure prints the file, line, call
// and CUDA error and exits with status 2 (the experiments have no error handling of their own to unwind).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define BENCH_CHECK(call)                                                                                  \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) {                                                                           \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(2);                                                                                  \
        }                                                                                                  \
    } while (0)
