// The CPU side of field_bench.cu: random field elements and the reference chains, computed with the
// host field (common/ff). Kept out of the .cu file because nvcc compiles the host field's __host__
// __device__ arithmetic for the device too, where its constant tables are not defined.
#include "bench/gpu/experiments/field_bench_cpu.hpp"

#include <cstring>
#include <random>

#include "common/ff/bls12_381.hpp"

namespace cuzk::bench {

namespace {
template <class H>
void random_elements(size_t n, uint64_t seed, void* out) {
    std::mt19937_64 rng(seed);
    auto* p = static_cast<unsigned char*>(out);
    for (size_t i = 0; i < n; ++i) {
        const H h = H::random(rng);
        std::memcpy(p + i * sizeof(H), &h, sizeof(H));
    }
}
template <class H>
size_t first_mismatch(const void* xs, const void* ys, const void* out, size_t k, int iters) {
    for (size_t t = 0; t < k; ++t) {
        H x, y, got;
        std::memcpy(&x, static_cast<const unsigned char*>(xs) + t * sizeof(H), sizeof(H));
        std::memcpy(&y, static_cast<const unsigned char*>(ys) + t * sizeof(H), sizeof(H));
        std::memcpy(&got, static_cast<const unsigned char*>(out) + t * sizeof(H), sizeof(H));
        for (int i = 0; i < iters; ++i) x = x * y;
        if (!(x == got)) return t;
    }
    return k;
}
}  // namespace

void random_field_elements(field_kind f, size_t n, uint64_t seed, void* out) {
    if (f == field_kind::fp) random_elements<ff::fp_t>(n, seed, out);
    else random_elements<ff::fr_t>(n, seed, out);
}

size_t first_chain_mismatch(field_kind f, const void* xs, const void* ys, const void* out, size_t k, int iters) {
    return f == field_kind::fp ? first_mismatch<ff::fp_t>(xs, ys, out, k, iters)
                               : first_mismatch<ff::fr_t>(xs, ys, out, k, iters);
}

}  // namespace cuzk::bench
