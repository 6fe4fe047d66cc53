// The GPU MSM's XYZZ bucket accumulation (gpud/cuda/msm_accumulate.cuh) and the alternatives it was chosen
// from, as kernels for msm_accumulate_variants.cpp: without the next pair's point loaded ahead (PREFETCH),
// with the registers capped so that 3 or 4 blocks of 128 threads fit an SM (MIN_BLOCKS: more warps to hide the
// carry chains' and the gathers' latency, against spills), with the field multiplications called instead of
// inlined; and G2's XYZZ accumulation, which the batch-affine rounds replaced.
#include "bench/gpu/experiments/msm_accumulate_variants.hpp"

#include <iterator>

#include "gpud/cuda/check.cuh"
#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/msm_accumulate.cuh"

namespace cuzk::experiments {

using namespace cuzk::cuda;

namespace {

// accumulate_xyzz_kernel with its alternatives as parameters: MIN_BLOCKS blocks of ACC_THREADS per SM
// (1: no register cap), PREFETCH the next pair before the current addition, AF the field type computed with.
template <class F, int MIN_BLOCKS, bool PREFETCH, class AF = F>
__global__ void __launch_bounds__(ACC_THREADS, MIN_BLOCKS)
    accumulate_variant_kernel(const dev_affine<F>* __restrict__ stored_points, const uint32_t* __restrict__ keys,
                              const uint32_t* __restrict__ vals, size_t total, unsigned chunk, unsigned c,
                              dev_xyzz<F>* stored_buckets, dev_xyzz<F>* stored_head, uint8_t* head_state,
                              dev_xyzz<F>* stored_tail, uint32_t* tail_bucket) {
    static_assert(sizeof(AF) == sizeof(F) && alignof(AF) == alignof(F));
    const auto* points = reinterpret_cast<const dev_affine<AF>*>(stored_points);
    using P = dev_xyzz<AF>;
    const chunk_results<P> out{reinterpret_cast<P*>(stored_buckets), reinterpret_cast<P*>(stored_head), head_state,
                               reinterpret_cast<P*>(stored_tail), tail_bucket};
    size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t s = k * chunk;
    if (s >= total) return;
    size_t e = min(total, s + chunk);
    const pair_keys pk(c);

    out.clear(k);
    uint32_t cur = keys[s];
    bool starts_here = s == 0 || keys[s - 1] != cur;
    P acc = P::identity();
    uint32_t next_key = 0, next_val = 0;
    dev_affine<AF> next_point;
    if constexpr (PREFETCH) {
        next_key = keys[s];
        next_val = vals[s];
        next_point = load_affine(points + (next_val & ~NEG_FLAG));
    }
    for (size_t i = s; i < e; ++i) {
        uint32_t key, v;
        dev_affine<AF> p;
        if constexpr (PREFETCH) {
            key = next_key;
            v = next_val;
            p = next_point;
            if (i + 1 < e) {
                next_key = keys[i + 1];
                next_val = vals[i + 1];
                next_point = load_affine(points + (next_val & ~NEG_FLAG));
            }
        } else {
            key = keys[i];
        }
        if (key != cur) {
            out.write(k, pk, cur, starts_here, true, acc);
            acc = P::identity();
            cur = key;
            starts_here = true;
        }
        if (pk.zero_digit(key)) continue;
        if constexpr (!PREFETCH) {
            v = vals[i];
            p = load_affine(points + (v & ~NEG_FLAG));
        }
        if (p.is_identity()) continue;
        if (v & NEG_FLAG) p.y = -p.y;
        acc.accumulate(p);
    }
    out.write(k, pk, cur, starts_here, e == total || keys[e] != cur, acc);
}

template <class DF, int MIN_BLOCKS, bool PREFETCH, class AF>
void launch(const accumulation_args& a) {
    accumulate_variant_kernel<DF, MIN_BLOCKS, PREFETCH, AF><<<grid_for(a.chunks, ACC_THREADS), ACC_THREADS>>>(
        static_cast<const dev_affine<DF>*>(a.points), a.keys, a.vals, a.total, a.chunk, a.c,
        static_cast<dev_xyzz<DF>*>(a.buckets), static_cast<dev_xyzz<DF>*>(a.head), a.head_state,
        static_cast<dev_xyzz<DF>*>(a.tail), a.tail_bucket);
    CUDA_LAUNCH_OK("accumulate_variant_kernel");
}

void production(const accumulation_args& a) {
    accumulate_xyzz_kernel<fp_t, fp_inlined_t><<<grid_for(a.chunks, ACC_THREADS), ACC_THREADS>>>(
        static_cast<const dev_affine<fp_t>*>(a.points), a.keys, a.vals, a.total, a.chunk, a.c,
        static_cast<dev_xyzz<fp_t>*>(a.buckets), static_cast<dev_xyzz<fp_t>*>(a.head), a.head_state,
        static_cast<dev_xyzz<fp_t>*>(a.tail), a.tail_bucket);
    CUDA_LAUNCH_OK("accumulate_xyzz_kernel");
}

struct variant {
    const char* name;
    void (*run)(const accumulation_args&);
};

const variant g1_variants[] = {
    {"production: prefetch, inlined (accumulate_xyzz_kernel)", production},
    {"plain, called", launch<fp_t, 1, false, fp_t>},
    {"prefetch, called", launch<fp_t, 1, true, fp_t>},
    {"prefetch, called, 3 blocks per SM", launch<fp_t, 3, true, fp_t>},
    {"prefetch, called, 4 blocks per SM", launch<fp_t, 4, true, fp_t>},
    {"plain, called, 4 blocks per SM", launch<fp_t, 4, false, fp_t>},
    {"plain, inlined", launch<fp_t, 1, false, fp_inlined_t>},
    {"prefetch, inlined, 3 blocks per SM", launch<fp_t, 3, true, fp_inlined_t>},
};
const variant g2_variants[] = {
    {"G2 plain XYZZ (replaced by the batch-affine rounds)", launch<fp2_t, 1, false, fp2_t>},
};

}  // namespace

unsigned accumulate_variants(bool g2) { return g2 ? std::size(g2_variants) : std::size(g1_variants); }
const char* accumulate_variant_name(bool g2, unsigned v) { return (g2 ? g2_variants : g1_variants)[v].name; }
void launch_accumulate_variant(bool g2, unsigned v, const accumulation_args& a) {
    (g2 ? g2_variants : g1_variants)[v].run(a);
}

}  // namespace cuzk::experiments
