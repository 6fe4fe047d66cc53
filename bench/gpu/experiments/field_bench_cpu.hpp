// Host-field helpers of the GPU field benchmark (field_bench.cu); see field_bench_cpu.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk::bench {

enum class field_kind { fp, fr };

// n uniformly random elements of the field, in the Montgomery form both the host and the device use.
void random_field_elements(field_kind f, size_t n, uint64_t seed, void* out);

// For the first k chains x_t = x_t * y_t (iters times), the first t whose CPU result differs from out[t];
// k when none does.
size_t first_chain_mismatch(field_kind f, const void* xs, const void* ys, const void* out, size_t k, int iters);

}  // namespace cuzk::bench
