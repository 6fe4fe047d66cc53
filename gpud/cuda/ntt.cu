// GPU NTT over Fr and the H pipeline (ntt.hpp).
#include "gpud/cuda/ntt.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/field.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

namespace {

constexpr unsigned LOG_TILE = 10;  // 1024 elements (32 KiB) of shared memory per block
constexpr unsigned DEFAULT_PASS_COLUMNS_LOG = 1;  // see pass_kernel; 2 columns: the fastest on an H200
constexpr unsigned DEFAULT_REGISTER_STAGES = 3;   // see pass_kernel
constexpr unsigned POW_RUN = 64;   // consecutive powers per thread when filling tables

// Twiddles and elements are loaded whole into registers before they are multiplied (words.cuh): read where
// they lie, 2^27 forward took 56.1 ms on an H200 against 50.7, H at 2^27 388.9 against 336.3
// (docs/benchmarks-history.md).
// load_twiddle reads tables no kernel writes (through the read-only cache);
// load_element reads data a kernel may also write.
__device__ __forceinline__ fr_t load_twiddle(const fr_t* p) { return load_resident(p); }
__device__ __forceinline__ fr_t load_element(const fr_t* p) { return load_streamed(p); }

__device__ __forceinline__ fr_t pow_u64(fr_t base, uint64_t e) {
    fr_t r = fr_t::one();
    while (e) {
        if (e & 1) r = r * base;
        base = base.sqr();
        e >>= 1;
    }
    return r;
}

// out[i] = w^i for i < n: POW_RUN powers per thread, the first by square-and-multiply.
__global__ void powers_kernel(fr_t w, size_t n, fr_t* out) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t lo = t * POW_RUN;
    if (lo >= n) return;
    fr_t p = pow_u64(w, lo);
    size_t hi = min(n, lo + POW_RUN);
    for (size_t i = lo; i < hi; ++i) {
        out[i] = p;
        p = p * w;
    }
}

// x[i] *= s w^i (coset shifts, with the 1/n of an inverse folded into s when wanted).
__global__ void scale_powers_kernel(fr_t* x, size_t n, fr_t w, fr_t s) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t lo = t * POW_RUN;
    if (lo >= n) return;
    fr_t p = pow_u64(w, lo) * s;
    size_t hi = min(n, lo + POW_RUN);
    for (size_t i = lo; i < hi; ++i) {
        x[i] = load_element(x + i) * p;
        p = p * w;
    }
}

// Scaled powers c g^p for p < 2^L as two small tables: c g^p = lo[p mod 2^split] hi[p >> split] (lo[j] = c g^j,
// hi[j] = g^(j 2^split)); ~2^(L/2) entries each, read through the cache.
struct coset_powers {
    const fr_t* lo = nullptr;
    const fr_t* hi = nullptr;
    unsigned split = 0;
    __device__ __forceinline__ fr_t at(size_t p) const {
        return load_twiddle(lo + (p & ((size_t(1) << split) - 1))) * load_twiddle(hi + (p >> split));
    }
};

// s y[p] for the elements' own positions p when |y| (an operand read beside them; null: none).
struct scaled_operand {
    const fr_t* y = nullptr;
    fr_t s;
    __device__ __forceinline__ fr_t at(size_t p) const { return load_element(y + p) * s; }
};

// In-place bit reversal of 2^L elements; each is multiplied by |s| when |scale|, or, when |coset.lo|, the
// element landing at position p by c g^p instead (the scaling and coset shift after an inverse transform,
// fused: one pass over memory instead of two). |minus|: then the element landing at p less s y[bitrev(p)]
// (compute_h: the coefficients of C, left bit-reversed by their inverse transform, taken from those of H's
// numerator as it is reversed into natural order).
__global__ void bit_reverse_kernel(fr_t* x, unsigned L, bool scale, fr_t s, coset_powers coset,
                                   scaled_operand minus) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >> L) return;
    size_t r = size_t(__brevll(uint64_t(i)) >> (64 - L));
    if (i > r) return;
    auto factor = [&](size_t p) { return coset.lo ? coset.at(p) : s; };
    const bool any = scale || coset.lo;
    if (i < r) {
        fr_t a = load_element(x + i), b = load_element(x + r);
        if (any) {
            a = a * factor(r);
            b = b * factor(i);
        }
        if (minus.y) {
            a = a - minus.at(i);
            b = b - minus.at(r);
        }
        x[i] = b;
        x[r] = a;
    } else if (any || minus.y) {
        fr_t a = load_element(x + i);
        if (any) a = a * factor(i);
        if (minus.y) a = a - minus.at(i);
        x[i] = a;
    }
}

// The same permutation and scalings as bit_reverse_kernel, by tiles: an index of L >= 2 RT bits read as (a, m, c),
// a its top RT bits, c its low RT bits, reverses to (rev c, rev m, rev a). The tile of m, the 2^(2 RT) elements
// (a, m, c), is 2^RT rows of 2^RT consecutive elements, and lands whole in the tile of rev m, transposed (row
// rev c, column rev a). Block m (m <= rev m) reads both tiles, then writes each into the other: every global
// read and write a run of 2^RT consecutive elements (512 bytes), where swapping element by element reads and
// writes one 32-byte sector at a time at the reversed end (2^27: 7.6 ms on an H100, Nsight Compute 2026-12-06).
// A tile row is padded by one element so that a column's elements spread over the shared-memory banks.
constexpr unsigned REVERSE_TILE_LOG = 4;  // RT
constexpr unsigned REVERSE_ROW = 1u << REVERSE_TILE_LOG;
constexpr unsigned REVERSE_TILE = REVERSE_ROW * REVERSE_ROW;  // elements per tile, and threads per block

__global__ void __launch_bounds__(REVERSE_TILE) bit_reverse_tiles_kernel(fr_t* x, unsigned L, bool scale, fr_t s,
                                                                         coset_powers coset, scaled_operand minus) {
    __shared__ fr_t tile[2][REVERSE_ROW][REVERSE_ROW + 1];
    const unsigned ML = L - 2 * REVERSE_TILE_LOG;  // bits of m
    const size_t m = blockIdx.x;
    const size_t mr = ML ? size_t(__brevll(uint64_t(m)) >> (64 - ML)) : 0;
    if (m > mr) return;  // block mr swaps the pair
    const bool pair = m != mr;
    auto index = [&](size_t mid, unsigned a, unsigned c) {
        return (size_t(a) << (L - REVERSE_TILE_LOG)) | (mid << REVERSE_TILE_LOG) | c;
    };
    auto rev_row = [](unsigned v) { return __brev(v) >> (32 - REVERSE_TILE_LOG); };
    const bool any = scale || coset.lo;
    // The element read at q lands at p = rev(q): times c g^p (or s), less s y[q].
    auto landed = [&](fr_t v, size_t q) {
        if (any) {
            const size_t p = size_t(__brevll(uint64_t(q)) >> (64 - L));
            v = v * (coset.lo ? coset.at(p) : s);
        }
        if (minus.y) v = v - minus.at(q);
        return v;
    };
    {
        const unsigned a = threadIdx.x >> REVERSE_TILE_LOG, c = threadIdx.x & (REVERSE_ROW - 1);
        const size_t q0 = index(m, a, c);
        tile[0][a][c] = landed(load_element(x + q0), q0);
        if (pair) {
            const size_t q1 = index(mr, a, c);
            tile[1][a][c] = landed(load_element(x + q1), q1);
        }
    }
    __syncthreads();
    // Row a2, column c2 of a destination tile takes the source's row rev c2, column rev a2.
    const unsigned a2 = threadIdx.x >> REVERSE_TILE_LOG, c2 = threadIdx.x & (REVERSE_ROW - 1);
    x[index(mr, a2, c2)] = tile[0][rev_row(c2)][rev_row(a2)];
    if (pair) x[index(m, a2, c2)] = tile[1][rev_row(c2)][rev_row(a2)];
}

// A pass's tile in shared memory as two planes of 16-byte words: element l's words 0-3 at lo[slot(l)], its
// words 4-7 at hi[slot(l)]. A warp's 16-byte accesses to one plane take the minimum of 4 wavefronts when the 32
// slots are spread evenly over the 8 residues mod 8; slot(l) folds l's higher bits into its low three so that
// every access pattern of the passes is so spread (a bijection: the bits from 3 up stay as they are). Whole
// 32-byte elements stored at l instead met 8- to 32-fold bank conflicts (Nsight Compute on an H100, 2026-12-06:
// 671M wavefronts per pass at 2^27 where 268M suffice).
struct shared_tile {
    word* lo;
    word* hi;
    __device__ __forceinline__ static unsigned slot(unsigned l) { return l ^ (((l >> 3) ^ (l >> 6) ^ (l >> 9)) & 7u); }
    __device__ __forceinline__ word* plane(unsigned half) const { return half ? hi : lo; }
    __device__ __forceinline__ fr_t load(unsigned l) const {
        const unsigned s = slot(l);
        const word d[2] = {lo[s], hi[s]};
        return from_words<fr_t>(d);
    }
    __device__ __forceinline__ void store(unsigned l, const fr_t& v) const {
        word d[2];
        memcpy(static_cast<void*>(d), &v, sizeof v);
        const unsigned s = slot(l);
        lo[s] = d[0];
        hi[s] = d[1];
    }
};

// Stages with butterfly bits s = h-1 down to h-k of a DIF transform of 2^L elements (L >= LT), on
// tiles of T = 2^LT elements: 2^k values of the bits [h-k, h) times G = 2^(LT-k) values of the other
// bits. When h >= LT the G values are consecutive low indices (coalesced rows of G elements); when
// h < LT then h == k and the tile is T contiguous elements. Butterfly (u, v) -> (u + v, (u - v) w^j),
// j = index mod 2^s, w the root of order 2^(s+1) = table[j << (log_table - 1 - s)].
// A strided pass with G = 1 reads each element from a different 32-byte sector 2^(h-k) elements apart (4 MiB
// at 2^27); G = 2^c consecutive columns (ntt_context::set_pass_columns) make runs of 32 G contiguous bytes
// at the price of c fewer stages per pass. (Building each stage's twiddles in shared memory rather than
// reading table[j] per butterfly was tried and measured 4% slower at 2^27 on an H200: the reads hit cache.)
//
// Inside the tile, the stages go in groups of up to RADIX_LOG (ntt_context::set_register_stages): a thread
// takes the 2^R elements that differ in the group's R bits into registers and runs the R stages there, so
// shared memory is read, written and synchronised once per group rather than once per stage; a group's
// butterflies also share twiddles (2^R - 1 distinct ones for R 2^(R-1) butterflies).
//
// DIT (decimation in time: bit-reversed in, natural out) runs the same passes in the reverse order, the stages
// of a pass from its low bit up, with butterflies (u, v) -> (u + w^j v, u - w^j v). |pre|: the elements are
// first multiplied by c g^bitrev(p) for their position p among the 2^log_n (the scaling and coset shift of
// coefficients held in bit-reversed order, fused into the first DIT pass); in a DIF pass, by c g^p (a coset
// forward transform's shift, fused into its first pass). |times| (DIF): the elements are
// first multiplied by times.s times.y[p] (compute_h: the pointwise product of the coset evaluations, and the
// division by Z, fused into the first pass of the last inverse transform).
//
// 126 registers at radix 8 (4 blocks of 128 threads per SM); capping them for 5 or 6 blocks spills and was
// slower on an H200 (2^27 forward 53.7 and 56.1 ms against 50.5; docs/benchmarks-history.md).
template <int RADIX_LOG, bool DIT>
__global__ void __launch_bounds__(512) pass_kernel(fr_t* x, unsigned LT, unsigned h, unsigned k,
                                                 const fr_t* __restrict__ table, unsigned log_table,
                                                 coset_powers pre, unsigned log_n, scaled_operand times) {
    extern __shared__ word tile_words[];
    const unsigned T = 1u << LT;
    const shared_tile tile{tile_words, tile_words + T};
    // G = 2^LG columns. Every split of an index below is by a power of two, written as shifts and masks: as
    // divisions by the run-time G they cost ~1e9 more instructions per strided pass at 2^27 (Nsight Compute,
    // H100, 2026-12-06).
    const unsigned LG = LT - k;
    const unsigned gmask = (1u << LG) - 1;
    const bool strided = h >= LT;
    const size_t b = blockIdx.x;
    size_t hi = 0, lobase = 0;
    if (strided) {
        const unsigned log_blocks_per_hi = h - k - LG;
        hi = b >> log_blocks_per_hi;
        lobase = (b & ((size_t(1) << log_blocks_per_hi) - 1)) << LG;
    }
    // Local layout: strided: l = m G + g; contiguous: l = g 2^k + m.
    auto global_index = [&](unsigned m, unsigned g) -> size_t {
        if (strided) return (hi << h) | (size_t(m) << (h - k)) | (lobase + g);
        return b * T + (size_t(g) << k) + m;
    };
    auto local_index = [&](unsigned m, unsigned g) -> unsigned { return strided ? (m << LG) | g : (g << k) + m; };
    word* const xw = reinterpret_cast<word*>(x);
    if (pre.lo || (!DIT && times.y)) {
        for (unsigned l = threadIdx.x; l < T; l += blockDim.x) {
            unsigned m = strided ? l >> LG : l & ((1u << k) - 1);
            unsigned g = strided ? l & gmask : l >> k;
            const size_t p = global_index(m, g);
            if (pre.lo) {
                // DIT: c g^bitrev(p) for coefficients held in bit-reversed order; DIF: c g^p (a coset
                // transform's shift, fused into its first pass).
                tile.store(l, load_element(x + p) * pre.at(DIT ? size_t(__brevll(uint64_t(p)) >> (64 - log_n)) : p));
            } else {
                tile.store(l, load_element(x + p) * times.at(p));
            }
        }
    } else {
        // A word per thread: a warp reads 512 contiguous bytes (runs of G elements), where an element per thread
        // read each 32-byte sector in two requests.
        for (unsigned w = threadIdx.x; w < 2 * T; w += blockDim.x) {
            const unsigned l = w >> 1, half = w & 1;
            unsigned m = strided ? l >> LG : l & ((1u << k) - 1);
            unsigned g = strided ? l & gmask : l >> k;
            tile.plane(half)[shared_tile::slot(l)] = load_cg(xw + 2 * global_index(m, g) + half);
        }
    }
    __syncthreads();
    // One group: local bits [low, low + R) of m, top first (DIF); element e of a thread's 2^R has
    // m = mbase | (e << low).
    auto group = [&](auto radix_log, unsigned low) {
        constexpr int R = decltype(radix_log)::value;
        constexpr int E = 1 << R;
        for (unsigned q = threadIdx.x; q < (T >> R); q += blockDim.x) {
            unsigned g = q & gmask, bq = q >> LG;
            unsigned mbase = ((bq >> low) << (low + R)) | (bq & ((1u << low) - 1));
            // Twiddle indices in 32 bits: j < 2^s and j 2^(log_table - 1 - s) < 2^(log_table - 1) <= 2^27.
            const unsigned lo = strided ? unsigned(lobase) + g : 0;
            fr_t v[E];
#pragma unroll
            for (int e = 0; e < E; ++e) v[e] = tile.load(local_index(mbase | (unsigned(e) << low), g));
#pragma unroll
            for (int step = 0; step < R; ++step) {
                const int t = DIT ? step : R - 1 - step;
                const unsigned rb = low + unsigned(t);  // the stage's local bit
                const unsigned s = h - k + rb;          // its global butterfly bit
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    if (e & (1 << t)) continue;
                    const unsigned m0 = mbase | (unsigned(e) << low);
                    const unsigned j = ((m0 & ((1u << rb) - 1)) << (h - k)) | lo;
                    fr_t u = v[e], w = v[e | (1 << t)];
                    if constexpr (DIT) {
                        if (j != 0) w = w * load_twiddle(table + (j << (log_table - 1 - s)));
                        v[e] = u + w;
                        v[e | (1 << t)] = u - w;
                    } else {
                        v[e] = u + w;
                        fr_t d = u - w;
                        v[e | (1 << t)] = j == 0 ? d : d * load_twiddle(table + (j << (log_table - 1 - s)));
                    }
                }
            }
#pragma unroll
            for (int e = 0; e < E; ++e) tile.store(local_index(mbase | (unsigned(e) << low), g), v[e]);
        }
        __syncthreads();
    };
    auto run_group = [&](int r, unsigned low) {
        if (r >= 3) group(std::integral_constant<int, 3>{}, low);
        else if (r == 2) group(std::integral_constant<int, 2>{}, low);
        else group(std::integral_constant<int, 1>{}, low);
    };
    if constexpr (DIT) {
        for (int low = 0; low < int(k);) {
            const int r = int(k) - low < RADIX_LOG ? int(k) - low : RADIX_LOG;
            run_group(r, unsigned(low));
            low += r;
        }
    } else {
        for (int top = int(k) - 1; top >= 0;) {
            const int r = top + 1 < RADIX_LOG ? top + 1 : RADIX_LOG;
            run_group(r, unsigned(top + 1 - r));
            top -= r;
        }
    }
    for (unsigned w = threadIdx.x; w < 2 * T; w += blockDim.x) {
        const unsigned l = w >> 1, half = w & 1;
        unsigned m = strided ? l >> LG : l & ((1u << k) - 1);
        unsigned g = strided ? l & gmask : l >> k;
        xw[2 * global_index(m, g) + half] = tile.plane(half)[shared_tile::slot(l)];
    }
}

// The transforms of one element (dif_natural at L = 0): x[0] = x[0] times.y[0] times.s s - minus.
__global__ void single_element_kernel(fr_t* x, fr_t s, scaled_operand times, scaled_operand minus) {
    fr_t a = x[0] * s;
    if (times.y) a = a * times.at(0);
    if (minus.y) a = a - minus.at(0);
    x[0] = a;
}

// Pseudo-random elements below 2^254 < r (splitmix64 per limb), in Montgomery form as stored.
__global__ void fill_random_kernel(fr_t* x, size_t n, uint64_t seed) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t z = seed + i * 0x9e3779b97f4a7c15ULL;
    fr_t r;
    for (int w = 0; w < 4; ++w) {
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t v = z;
        v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
        v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
        v ^= v >> 31;
        r.v[2 * w] = uint32_t(v);
        r.v[2 * w + 1] = uint32_t(v >> 32);
    }
    r.v[7] &= 0x3fffffffu;
    x[i] = r;
}

unsigned log2_exact(size_t n) {
    if (n == 0 || (n & (n - 1)) != 0) {
        throw std::invalid_argument("GPU NTT: size " + std::to_string(n) + " is not a power of two");
    }
    unsigned l = 0;
    while ((size_t(1) << l) < n) ++l;
    if (l > ntt_context::MAX_LOG) {
        throw std::invalid_argument("GPU NTT: size 2^" + std::to_string(l) + " exceeds 2^" +
                                    std::to_string(ntt_context::MAX_LOG));
    }
    return l;
}

}  // namespace

struct ntt_context::impl {
    int device;
    stream_priority priority;
    cudaStream_t stream = nullptr;
    device_buffer<fr_t> slot[SLOTS];
    // load_padded_async: copies into the slots on their own stream, beside the kernels; |loaded[s]| marks
    // the end of the last one into slot s, waited for (device or host) by the slot's next user while
    // |pending[s]|. |kernels_done| orders a copy after the kernels issued before it.
    cudaStream_t copy_stream = nullptr;
    // reserve_spare .. adopt_spare: the spare slot and the stream fill_spare copies on (made with the spare).
    device_buffer<fr_t> spare;
    cudaStream_t spare_stream = nullptr;
    cudaEvent_t loaded[SLOTS] = {};
    cudaEvent_t kernels_done = nullptr;
    bool pending[SLOTS] = {};
    unsigned log_table = 0;  // tables hold omega_max^i for i < 2^(log_table - 1)
    unsigned pass_columns_log = DEFAULT_PASS_COLUMNS_LOG;
    unsigned register_stages = DEFAULT_REGISTER_STAGES;
    bool force_pairwise_reversal = false;  // set_tiled_reversal(false)
    device_buffer<fr_t> tw_fwd, tw_inv;
    // Per size, computed once: building a host domain costs milliseconds at 2^27.
    std::optional<detail::ntt_constants> consts[MAX_LOG + 1];

    const detail::ntt_constants& constants(unsigned L) {
        if (!consts[L]) consts[L] = detail::make_ntt_constants(L);
        return *consts[L];
    }

    impl(int dev, stream_priority p) : device(dev), priority(p) {
        CUDA_OK(cudaSetDevice(device));
        stream = detail::new_stream(priority);
        copy_stream = detail::new_stream(priority);
        for (auto& e : loaded) CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CUDA_OK(cudaEventCreateWithFlags(&kernels_done, cudaEventDisableTiming));
    }
    ~impl() {
        // No copy may outlive the context (nor land in freed slots); errors cannot be reported from here.
        if (copy_stream) cudaStreamSynchronize(copy_stream);
        if (stream) cudaStreamSynchronize(stream);
        for (auto& e : loaded)
            if (e) cudaEventDestroy(e);
        if (kernels_done) cudaEventDestroy(kernels_done);
        if (spare_stream) {
            cudaStreamSynchronize(spare_stream);
            cudaStreamDestroy(spare_stream);
        }
        if (copy_stream) cudaStreamDestroy(copy_stream);
        if (stream) cudaStreamDestroy(stream);
    }

    // The kernels about to be issued on |stream| read or write slot s: after its pending copy.
    void kernels_after_load(int s) {
        if (!pending[s]) return;
        CUDA_OK(cudaStreamWaitEvent(stream, loaded[s], 0));
        pending[s] = false;
    }
    // The host about to read slot s (or hand its address to another stream): its pending copy done.
    void host_after_load(int s) {
        if (!pending[s]) return;
        CUDA_OK(cudaEventSynchronize(loaded[s]));
        pending[s] = false;
    }
    void synchronize_all() {
        CUDA_OK(cudaSetDevice(device));
        CUDA_OK(cudaStreamSynchronize(copy_stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        for (bool& p : pending) p = false;
    }

    void load_padded_async(int s, std::span<const ff::fr_t> x, size_t n) {
        CUDA_OK(cudaSetDevice(device));
        if (slot[s].capacity() < n) {
            synchronize_all();  // nothing in flight may touch the old buffer
            slot[s].reserve(n);
        }
        // After every kernel issued so far (they may still read this slot) and any earlier copy into it.
        CUDA_OK(cudaEventRecord(kernels_done, stream));
        CUDA_OK(cudaStreamWaitEvent(copy_stream, kernels_done, 0));
        if (!x.empty())
            CUDA_OK(cudaMemcpyAsync(slot[s].get(), x.data(), x.size_bytes(), cudaMemcpyHostToDevice, copy_stream));
        if (x.size() < n)  // zero bytes are the field's zero (Montgomery form of 0)
            CUDA_OK(cudaMemsetAsync(slot[s].get() + x.size(), 0, (n - x.size()) * sizeof(ff::fr_t), copy_stream));
        CUDA_OK(cudaEventRecord(loaded[s], copy_stream));
        pending[s] = true;
    }

    void check_slot(int s) const {
        if (s < 0 || s >= SLOTS) throw std::invalid_argument("GPU NTT: no slot " + std::to_string(s));
    }

    void prepare(unsigned L) {
        CUDA_OK(cudaSetDevice(device));
        if (L <= log_table || L == 0) return;
        if (L > MAX_LOG) throw std::invalid_argument("GPU NTT: 2^" + std::to_string(L) + " is too large");
        const detail::ntt_constants& k = constants(L);
        size_t half = size_t(1) << (L - 1);
        tw_fwd.reserve(half);
        tw_inv.reserve(half);
        unsigned grid = grid_for((half + POW_RUN - 1) / POW_RUN, 128);
        powers_kernel<<<grid, 128, 0, stream>>>(fr_t(k.omega), half, tw_fwd.get());
        CUDA_LAUNCH_OK("powers_kernel");
        powers_kernel<<<grid, 128, 0, stream>>>(fr_t(k.omega_inv), half, tw_inv.get());
        CUDA_LAUNCH_OK("powers_kernel");
        CUDA_OK(cudaStreamSynchronize(stream));
        log_table = L;
    }

    // The passes of a transform of 2^L elements, as (h, k): stages with butterfly bits [h - k, h), in DIF order.
    struct pass_plan {
        unsigned LT;
        unsigned n_passes = 0;
        unsigned h[MAX_LOG + 1], k[MAX_LOG + 1];
    };
    pass_plan plan(unsigned L) const {
        pass_plan p;
        p.LT = L < LOG_TILE ? L : LOG_TILE;
        const unsigned cols = std::min(pass_columns_log, p.LT - 1);
        for (unsigned rem = L; rem > 0;) {
            unsigned k = rem < p.LT ? rem : p.LT - cols;
            p.h[p.n_passes] = rem;
            p.k[p.n_passes++] = k;
            rem -= k;
        }
        return p;
    }
    template <bool DIT>
    void launch_pass(fr_t* x, unsigned L, const pass_plan& p, unsigned i, const fr_t* table, coset_powers pre,
                     scaled_operand times) {
        const unsigned blocks = unsigned((size_t(1) << L) >> p.LT);
        // One thread per group of 2^R elements (at least a warp; at most 512 threads, as before groups).
        const unsigned threads = std::min(512u, std::max(32u, (1u << p.LT) >> register_stages));
        const size_t smem = (size_t(1) << p.LT) * sizeof(fr_t);
        const unsigned h = p.h[i], k = p.k[i];
        switch (register_stages) {
            case 1:
                pass_kernel<1, DIT><<<blocks, threads, smem, stream>>>(x, p.LT, h, k, table, log_table, pre, L, times);
                break;
            case 2:
                pass_kernel<2, DIT><<<blocks, threads, smem, stream>>>(x, p.LT, h, k, table, log_table, pre, L, times);
                break;
            default:
                pass_kernel<3, DIT><<<blocks, threads, smem, stream>>>(x, p.LT, h, k, table, log_table, pre, L, times);
                break;
        }
        CUDA_LAUNCH_OK("pass_kernel");
    }
    // DIF passes: natural in, bit-reversed out; the elements first multiplied by |times| (pass_kernel).
    // |pre|: element p first multiplied by c g^p (a coset forward transform's shift).
    void dif_passes(fr_t* x, unsigned L, bool inverse, scaled_operand times = {}, coset_powers pre = {}) {
        prepare(L);
        const pass_plan p = plan(L);
        for (unsigned i = 0; i < p.n_passes; ++i) {
            launch_pass<false>(x, L, p, i, inverse ? tw_inv.get() : tw_fwd.get(), i == 0 ? pre : coset_powers{},
                               i == 0 ? times : scaled_operand{});
        }
    }
    // DIT passes (forward): bit-reversed in, natural out; element p first multiplied by c g^bitrev(p) (pre).
    void dit_passes(fr_t* x, unsigned L, coset_powers pre) {
        prepare(L);
        const pass_plan p = plan(L);
        for (unsigned i = p.n_passes; i-- > 0;) {
            launch_pass<true>(x, L, p, i, tw_fwd.get(), i + 1 == p.n_passes ? pre : coset_powers{}, {});
        }
    }

    // DIF passes then bit reversal: natural in, natural out; scaled by |s| in the reversal if |scale|, or
    // element p by c g^p for the coset powers |coset| (coset_tables) when given; |times| and |minus| as in
    // pass_kernel and bit_reverse_kernel.
    void dif_natural(fr_t* x, unsigned L, bool inverse, bool scale, fr_t s, coset_powers coset = {},
                     scaled_operand times = {}, scaled_operand minus = {}, coset_powers pre = {}) {
        if (L == 0) {  // one element; g^0 = 1
            if (scale || times.y || minus.y) {
                single_element_kernel<<<1, 1, 0, stream>>>(x, scale ? s : fr_one(), times, minus);
                CUDA_LAUNCH_OK("single_element_kernel");
            }
            return;
        }
        dif_passes(x, L, inverse, times, pre);
        bit_reverse(x, L, scale, s, coset, minus);
    }

    static fr_t fr_one() { return fr_t(ff::fr_t::one()); }

    // bit_reverse_kernel's permutation and fused scalings, by pairs of tiles from 2^(2 RT) elements up.
    void bit_reverse(fr_t* x, unsigned L, bool scale, fr_t s, coset_powers coset, scaled_operand minus) {
        const size_t n = size_t(1) << L;
        if (L >= 2 * REVERSE_TILE_LOG && !force_pairwise_reversal) {
            const unsigned blocks = unsigned(n >> (2 * REVERSE_TILE_LOG));
            bit_reverse_tiles_kernel<<<blocks, REVERSE_TILE, 0, stream>>>(x, L, scale, s, coset, minus);
            CUDA_LAUNCH_OK("bit_reverse_tiles_kernel");
        } else {
            bit_reverse_kernel<<<grid_for(n, 256), 256, 0, stream>>>(x, L, scale, s, coset, minus);
            CUDA_LAUNCH_OK("bit_reverse_kernel");
        }
    }

    // Tables of the coset powers for 2^L elements (coset_powers), built on first use for each size: g^p / n
    // (compute_h: the coset shift of coefficients left by an inverse transform, with its 1/n), g^-p / n (after
    // a coset inverse transform) and g^p (a coset forward transform's shift of its input).
    enum coset_table { forward_scaled = 0, inverse_scaled = 1, forward_plain = 2 };
    static constexpr int COSET_TABLES = 3;
    unsigned coset_log = 0;
    device_buffer<fr_t> coset_lo[COSET_TABLES], coset_hi[COSET_TABLES];
    coset_powers coset_tables(unsigned L, coset_table which) {
        if (coset_log != L) {
            const detail::ntt_constants& k = constants(L);
            const unsigned split = detail::coset_split(L);
            for (int t = 0; t < COSET_TABLES; ++t) {
                const bool inverse = t == inverse_scaled;
                const ff::fr_t& g = inverse ? k.g_inv : k.g;
                const ff::fr_t& step = inverse ? k.g_inv_step : k.g_step;
                const size_t nlo = size_t(1) << split, nhi = size_t(1) << (L - split);
                coset_lo[t].reserve(nlo);
                coset_hi[t].reserve(nhi);
                powers_kernel<<<grid_for((nlo + POW_RUN - 1) / POW_RUN, 128), 128, 0, stream>>>(fr_t(g), nlo,
                                                                                               coset_lo[t].get());
                CUDA_LAUNCH_OK("powers_kernel");
                if (t != forward_plain) {
                    scale_powers_kernel<<<grid_for((nlo + POW_RUN - 1) / POW_RUN, 128), 128, 0, stream>>>(
                        coset_lo[t].get(), nlo, fr_one(), fr_t(k.size_inv));  // times 1/n
                    CUDA_LAUNCH_OK("scale_powers_kernel");
                }
                powers_kernel<<<grid_for((nhi + POW_RUN - 1) / POW_RUN, 128), 128, 0, stream>>>(fr_t(step), nhi,
                                                                                               coset_hi[t].get());
                CUDA_LAUNCH_OK("powers_kernel");
            }
            coset_log = L;
        }
        return {coset_lo[which].get(), coset_hi[which].get(), detail::coset_split(L)};
    }

    void run(fr_t* x, unsigned L, ntt_kind kind) {
        CUDA_OK(cudaSetDevice(device));
        const detail::ntt_constants& k = constants(L);
        switch (kind) {
            case ntt_kind::forward:
                dif_natural(x, L, false, false, fr_one());
                break;
            case ntt_kind::inverse:
                dif_natural(x, L, true, true, fr_t(k.size_inv));
                break;
            case ntt_kind::coset_forward:
                if (L == 0) break;  // g^0 = 1
                // The shift by g^p taken as the first pass loads its tiles, not in a pass of its own.
                dif_natural(x, L, false, false, fr_one(), {}, {}, {}, coset_tables(L, forward_plain));
                break;
            case ntt_kind::coset_inverse:
                dif_natural(x, L, true, true, fr_t(k.size_inv), coset_tables(L, inverse_scaled));
                break;
        }
    }

    // 6 transforms, not the textbook 7: with Q(X) = A(X) B(X) mod (X^n - g^n), the polynomial of degree < n
    // the coset inverse transform makes of the coset evaluations of A B, and C of degree < n,
    //   H = coset_inverse((A_c B_c - C_c) / Z_c) = (Q - C) / (g^n - 1),
    // the coset inverse being linear and coset_inverse(C_c) = C. So C needs only its inverse transform (its
    // coefficients, left bit-reversed) and is subtracted as H is reversed into natural order; exact for any
    // a, b, c, divisible or not (the CPU's compute_h computes the same).
    void compute_h(unsigned L) {
        CUDA_OK(cudaSetDevice(device));
        const detail::ntt_constants& k = constants(L);
        if (L > 0) {
            prepare(L);  // before the first input's passes, so they start as soon as its copy lands
            const coset_powers forward = coset_tables(L, forward_scaled);
            for (int i = 0; i < 3; ++i) {
                kernels_after_load(i);
                dif_passes(slot[i].get(), L, true);  // n coef[bitrev(p)] at p
                // A and B on the coset: the coefficients in bit-reversed order (no reversal pass), times 1/n
                // and the coset powers g^j in the first pass of the forward DIT transform, which reads them in
                // that order and writes the evaluations on the coset g <omega> in natural order. Each right
                // after its input's inverse transform, before the next input's: while the rows are still
                // being copied (gpud copies them beside these kernels) every transform whose input has landed
                // is queued ahead of any that waits for a copy. Queued after C's inverse instead, A's and B's
                // waited for C's copy, the last to land, and the GPU idled (measured on an H200,
                // docs/benchmarks-history.md).
                if (i < 2) dit_passes(slot[i].get(), L, forward);
            }
        }
        // Q / Z_c: the pointwise product and the division by Z (a constant on the coset) in the first pass of
        // the coset inverse transform, whose reversal (with g^-p / n) then takes C / Z_c away.
        for (int i = 0; i < 3; ++i) kernels_after_load(i);  // L = 0: no passes waited for them above
        dif_natural(slot[0].get(), L, true, true, fr_t(k.size_inv), L > 0 ? coset_tables(L, inverse_scaled) : coset_powers{},
                    {slot[1].get(), fr_t(k.z_coset_inv)}, {slot[2].get(), fr_t(k.z_coset_inv_size_inv)});
    }
};

ntt_context::ntt_context(int device, stream_priority priority) : impl_(std::make_unique<impl>(device, priority)) {}
ntt_context::~ntt_context() = default;

void ntt_context::load(int s, std::span<const ff::fr_t> x) {
    impl_->check_slot(s);
    log2_exact(x.size());
    impl_->synchronize_all();  // no copy or kernel in flight on the slot being replaced
    impl_->slot[s].reserve(x.size());
    // On the NTT stream, waited for: a plain cudaMemcpy from pageable memory may return before its DMA
    // lands, and the transforms run on a non-blocking stream that does not wait for it.
    CUDA_OK(cudaMemcpyAsync(impl_->slot[s].get(), x.data(), x.size() * sizeof(ff::fr_t), cudaMemcpyHostToDevice,
                            impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
}

void ntt_context::load_padded_async(int s, std::span<const ff::fr_t> x, unsigned log_n) {
    impl_->check_slot(s);
    const size_t n = size_t(1) << log2_exact(size_t(1) << log_n);
    if (x.size() > n)
        throw std::invalid_argument("GPU NTT: " + std::to_string(x.size()) + " elements for a slot of 2^" +
                                    std::to_string(log_n));
    impl_->load_padded_async(s, x, n);
}

void ntt_context::load_padded(int s, std::span<const ff::fr_t> x, unsigned log_n) {
    // The asynchronous copy, waited for (the source may be pageable and is the caller's again on return).
    load_padded_async(s, x, log_n);
    impl_->synchronize_all();
}

void ntt_context::store(int s, std::span<ff::fr_t> x) {
    impl_->check_slot(s);
    if (impl_->slot[s].capacity() < x.size()) throw std::invalid_argument("GPU NTT: slot smaller than output");
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->host_after_load(s);
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    CUDA_OK(cudaMemcpy(x.data(), impl_->slot[s].get(), x.size() * sizeof(ff::fr_t), cudaMemcpyDeviceToHost));
}

ff::fr_t* ntt_context::slot_for_writing(int s, unsigned log_n) {
    impl_->check_slot(s);
    const size_t n = size_t(1) << log2_exact(size_t(1) << log_n);
    impl_->synchronize_all();  // nothing of this context in flight may read or write the slot meanwhile
    impl_->slot[s].reserve(n);
    return reinterpret_cast<ff::fr_t*>(impl_->slot[s].get());
}

void ntt_context::fill_random(int s, unsigned log_n, uint64_t seed) {
    impl_->check_slot(s);
    CUDA_OK(cudaSetDevice(impl_->device));
    size_t n = size_t(1) << log_n;
    if (impl_->slot[s].capacity() < n) impl_->synchronize_all();
    impl_->slot[s].reserve(n);
    impl_->kernels_after_load(s);
    fill_random_kernel<<<grid_for(n, 256), 256, 0, impl_->stream>>>(impl_->slot[s].get(), n, seed);
    CUDA_LAUNCH_OK("fill_random_kernel");
}

void ntt_context::transform_resident(int s, unsigned log_n, ntt_kind kind) {
    impl_->check_slot(s);
    if (impl_->slot[s].capacity() < (size_t(1) << log_n)) throw std::invalid_argument("GPU NTT: slot too small");
    impl_->kernels_after_load(s);
    impl_->run(impl_->slot[s].get(), log_n, kind);
}

void ntt_context::compute_h_resident(unsigned log_n) {
    for (int s = 0; s < 3; ++s) {
        if (impl_->slot[s].capacity() < (size_t(1) << log_n)) throw std::invalid_argument("GPU H: slots too small");
    }
    impl_->compute_h(log_n);
}

void ntt_context::transform(std::span<ff::fr_t> x, ntt_kind kind) {
    unsigned L = log2_exact(x.size());
    load(0, x);
    transform_resident(0, L, kind);
    store(0, x);
}

void ntt_context::compute_h(std::vector<ff::fr_t>& a, const std::vector<ff::fr_t>& b,
                            const std::vector<ff::fr_t>& c) {
    if (a.size() != b.size() || a.size() != c.size()) throw std::invalid_argument("GPU H: a, b, c differ in size");
    unsigned L = log2_exact(a.size());
    load(0, a);
    load(1, b);
    load(2, c);
    compute_h_resident(L);
    store(0, a);
}

void ntt_context::prepare(unsigned log_n) { impl_->prepare(log_n); }

void ntt_context::set_pass_columns(unsigned log_columns) {
    if (log_columns > 8) throw std::invalid_argument("GPU NTT: at most 2^8 columns per pass");
    impl_->pass_columns_log = log_columns;
}

void ntt_context::set_tiled_reversal(bool tiled) { impl_->force_pairwise_reversal = !tiled; }

void ntt_context::set_register_stages(unsigned stages) {
    if (stages < 1 || stages > 3) throw std::invalid_argument("GPU NTT: 1 to 3 stages per register group");
    impl_->register_stages = stages;
}

void ntt_context::reserve_spare(unsigned log_n) {
    const size_t n = size_t(1) << log2_exact(size_t(1) << log_n);
    CUDA_OK(cudaSetDevice(impl_->device));
    if (!impl_->spare_stream) impl_->spare_stream = detail::new_stream(impl_->priority);
    impl_->spare.reserve(n);
}

void ntt_context::release_spare() {
    CUDA_OK(cudaSetDevice(impl_->device));
    if (impl_->spare_stream) CUDA_OK(cudaStreamSynchronize(impl_->spare_stream));
    device_buffer<fr_t>().swap(impl_->spare);
}

size_t ntt_context::spare_capacity() const { return impl_->spare.capacity(); }

void ntt_context::fill_spare(std::span<const ff::fr_t> x, unsigned log_n) {
    const size_t n = size_t(1) << log2_exact(size_t(1) << log_n);
    if (impl_->spare.capacity() < n || !impl_->spare_stream)
        throw std::logic_error("GPU NTT: no spare slot of 2^" + std::to_string(log_n) + " (reserve_spare)");
    if (x.size() > n)
        throw std::invalid_argument("GPU NTT: " + std::to_string(x.size()) + " elements for a slot of 2^" +
                                    std::to_string(log_n));
    CUDA_OK(cudaSetDevice(impl_->device));
    if (!x.empty())
        CUDA_OK(cudaMemcpyAsync(impl_->spare.get(), x.data(), x.size_bytes(), cudaMemcpyHostToDevice,
                                impl_->spare_stream));
    if (x.size() < n)  // zero bytes are the field's zero (Montgomery form of 0)
        CUDA_OK(cudaMemsetAsync(impl_->spare.get() + x.size(), 0, (n - x.size()) * sizeof(ff::fr_t),
                                impl_->spare_stream));
    CUDA_OK(cudaStreamSynchronize(impl_->spare_stream));
}

void ntt_context::adopt_spare(int s) {
    impl_->check_slot(s);
    if (impl_->spare.capacity() == 0) throw std::logic_error("GPU NTT: no spare slot to adopt");
    CUDA_OK(cudaSetDevice(impl_->device));
    // The slot's pending copy (none where the caller kept its promise) lands before its buffer becomes the spare.
    impl_->host_after_load(s);
    impl_->slot[s].swap(impl_->spare);
}

size_t ntt_context::device_bytes() const {
    const impl& m = *impl_;
    size_t n = m.tw_fwd.capacity() + m.tw_inv.capacity();
    for (const auto& s : m.slot) n += s.capacity();
    for (int w = 0; w < impl::COSET_TABLES; ++w) n += m.coset_lo[w].capacity() + m.coset_hi[w].capacity();
    return n * sizeof(fr_t);
}

size_t ntt_context::device_bytes_for(unsigned log_n) {
    if (log_n == 0) return 0;
    const size_t n = size_t(1) << log_n, split = size_t(1) << detail::coset_split(log_n);
    // The slots, the two twiddle tables of n / 2, the coset tables (g / n, 1 / (g n) and g; low and high powers).
    return (SLOTS * n + n + impl::COSET_TABLES * (split + n / split)) * sizeof(fr_t);
}

const ff::fr_t* ntt_context::device_data(int s) const {
    impl_->check_slot(s);
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->host_after_load(s);
    return reinterpret_cast<const ff::fr_t*>(impl_->slot[s].get());
}

void ntt_context::synchronize() { impl_->synchronize_all(); }

}  // namespace cuzk::cuda
