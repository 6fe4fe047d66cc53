// The kernels of the XYZZ accumulation experiment (msm_accumulate_variants.cu), behind plain pointers so that
// its host side (msm_accumulate_variants.cpp), which checks them with the CPU curve code, compiles as C++.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk::experiments {

// One accumulation's device buffers, in the layouts of gpud/cuda/msm_accumulate.cuh: the resident points,
// the sorted pairs, and the chunk results (buckets, heads and their states, tails and their buckets).
struct accumulation_args {
    const void* points;
    const uint32_t* keys;
    const uint32_t* vals;
    size_t total;
    unsigned chunk, c;
    size_t chunks;
    void* buckets;
    void* head;
    uint8_t* head_state;
    void* tail;
    uint32_t* tail_bucket;
};

// The kernels compared for G1 (the first is production's accumulate_xyzz_kernel) or G2: how many, each one's
// name, and a launch of one on the default stream (throws cuda::cuda_error where the launch fails).
unsigned accumulate_variants(bool g2);
const char* accumulate_variant_name(bool g2, unsigned v);
void launch_accumulate_variant(bool g2, unsigned v, const accumulation_args& a);

}  // namespace cuzk::experiments
