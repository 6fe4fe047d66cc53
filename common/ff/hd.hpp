// Host/device qualifiers: field and curve templates are written once and compile under g++ and nvcc.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_HD_INLINE __host__ __device__ __forceinline__
#else
#define CUZK_HD
#define CUZK_HD_INLINE inline __attribute__((always_inline))
#endif
