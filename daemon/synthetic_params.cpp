#include "daemon/synthetic_params.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/util/errors.hpp"
#include "common/util/huge_pages.hpp"

namespace cuzk::daemon {

namespace {

// A 64-bit generator (splitmix64) that any value seeds well: each chunk of points gets its own stream.
struct splitmix64 {
    std::uint64_t state;
    std::uint64_t operator()() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

ff::fr_t nonzero_scalar(splitmix64& rng) {
    for (;;) {
        const auto k = ff::fr_t::random(rng);
        if (!k.is_zero()) return k;
    }
}

// |dst|[i] = |src|[i] + |t| for i < |n|, in affine coordinates with one inversion for all (Montgomery's trick): 6
// field multiplications a point. |inverses| holds |n| elements. A point equal to +-t, or the identity, takes the
// Jacobian way (no inverse to share; never met with pseudo-random points, but the result stays right).
template <class F>
void add_to_all(const ec::affine_t<F>* src, ec::affine_t<F>* dst, std::size_t n, const ec::affine_t<F>& t,
                F* inverses) {
    auto denominator = [&](std::size_t i) {
        const F d = t.x - src[i].x;
        return src[i].infinity || d.is_zero() ? F::one() : d;
    };
    F acc = F::one();
    for (std::size_t i = 0; i < n; ++i) {
        inverses[i] = acc;
        acc *= denominator(i);
    }
    F inv = acc.inverse();
    for (std::size_t i = n; i-- > 0;) {
        const F d = t.x - src[i].x;
        if (src[i].infinity || d.is_zero()) {
            dst[i] = ec::jacobian_t<F>::from_affine(src[i]).add_mixed(t).to_affine();
            continue;
        }
        const F d_inv = inv * inverses[i];
        inv *= d;
        const F lambda = (t.y - src[i].y) * d_inv;
        const F x = lambda.sqr() - src[i].x - t.x;
        dst[i] = ec::affine_t<F>::from_xy(x, lambda * (src[i].x - x) - src[i].y);
    }
}

// Points per chunk, each chunk started by one scalar multiplication (~4,300 field multiplications with its
// conversion: 0.1 a point); and the most points sharing one inversion (~450 multiplications: 0.4 a point), whose
// source block (106 KB of G1 points) stays in the core's cache.
constexpr std::size_t chunk_points = 32768;
constexpr std::size_t block_points = 1024;  // a power of two: the doubling blocks reach it

// |out|[i] = k_c G + i S within chunk c: k_c and S pseudo-random from (|seed|, |stream|, c). The chunk's first point
// is k_c G, then each block is the one before plus b S, b the block's length, doubling from 1 to |block_points|.
// Chunks are numbered, not taken from TBB's ranges, so the points do not depend on how the work was split.
template <class F>
void fill_points(std::vector<ec::affine_t<F>>& out, const ec::affine_t<F>& generator, std::uint64_t seed,
                 std::uint64_t stream, const std::stop_token& stop = {}) {
    using point = ec::jacobian_t<F>;
    splitmix64 step_rng{seed ^ (stream * 0xd1b54a32d192ed03ull)};
    const auto step = point::from_affine(generator).mul(nonzero_scalar(step_rng));
    const std::size_t chunks = (out.size() + chunk_points - 1) / chunk_points;
    tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
        if (stop.stop_requested()) return;  // the caller throws; the points left unset are never read
        ec::affine_t<F>* chunk = out.data() + c * chunk_points;
        const std::size_t n = std::min(chunk_points, out.size() - c * chunk_points);
        splitmix64 rng{step_rng.state ^ ((c + 1) * 0x9fb21c651e98df25ull)};
        chunk[0] = point::from_affine(generator).mul(nonzero_scalar(rng)).to_affine();
        thread_local std::vector<F> inverses;
        inverses.resize(block_points);
        point stride = step;  // b S
        auto t = stride.to_affine();
        for (std::size_t filled = 1, b = 1; filled < n;) {
            const std::size_t len = std::min(b, n - filled);
            add_to_all(chunk + filled - b, chunk + filled, len, t, inverses.data());
            filled += len;
            if (b < block_points) {
                b *= 2;
                stride = stride.dbl();
                t = stride.to_affine();
            }
        }
    });
}

// |v| sized to |n| elements. std::vector constructs them on one thread, and there the first touch of each page
// dominated (a fault, the kernel zeroing it: 250 MB/s on a 2-core VM), so the pages of the reserved storage are
// asked for as huge pages and faulted in on every core first (MADV_POPULATE_WRITE, Linux 5.14; without it, or where
// refused, the construction faults them in). Neither advice changes the memory's contents.
template <class T>
void size_prefaulted(std::vector<T>& v, std::size_t n) {
    v.reserve(n);
    constexpr std::uintptr_t page = 4096, piece = std::uintptr_t(1) << 26;
    const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(v.data() + n)) & ~(page - 1);
    if (end > begin + piece) {
        util::advise_huge_pages(reinterpret_cast<void*>(begin), end - begin);
#ifdef MADV_POPULATE_WRITE
        tbb::parallel_for(begin, end, piece, [end, piece](std::uintptr_t at) {
            (void)::madvise(reinterpret_cast<void*>(at), std::min(piece, end - at), MADV_POPULATE_WRITE);
        });
#endif
    }
    v.resize(n);
}

template <class F>
ec::affine_t<F> one_point(const ec::affine_t<F>& generator, std::uint64_t seed, std::uint64_t stream) {
    std::vector<ec::affine_t<F>> p(1);
    fill_points(p, generator, seed, stream);
    return p[0];
}

}  // namespace

parameter_counts parameter_counts_of(const r1cs::r1cs_matrices& m) {
    auto bits_set = [](const std::vector<std::uint64_t>& words) {
        std::uint64_t n = 0;
        for (auto w : words) n += static_cast<std::uint64_t>(std::popcount(w));
        return n;
    };
    const unsigned log_m = m.prover_domain_log();
    if (log_m > 32)
        throw std::length_error("a domain of 2^" + std::to_string(log_m) + " points: beyond the NTT's 2^32");
    parameter_counts n;
    n.ic = m.num_inputs;
    n.h = (std::uint64_t(1) << log_m) - 1;
    n.l = m.num_aux;
    n.a = m.num_inputs + bits_set(m.a_aux_density);
    n.b = bits_set(m.b_input_density) + bits_set(m.b_aux_density);
    return n;
}

groth16::parameters synthetic_parameters(const parameter_counts& counts, std::uint64_t seed,
                                         const std::stop_token& stop) {
    groth16::parameters p;
    // A vector's construction writes every element on one thread (41.6 GB of G1 points at 32 GiB): they run at
    // once, so the wall time is the largest one's (h, 14 GB).
    tbb::parallel_invoke([&] { size_prefaulted(p.vk.ic, counts.ic); }, [&] { size_prefaulted(p.h, counts.h); },
                         [&] { size_prefaulted(p.l, counts.l); }, [&] { size_prefaulted(p.a, counts.a); },
                         [&] { size_prefaulted(p.b_g1, counts.b); }, [&] { size_prefaulted(p.b_g2, counts.b); });
    const auto g1 = ec::g1_generator();
    const auto g2 = ec::g2_generator();
    std::uint64_t stream = 0;
    p.vk.alpha_g1 = one_point(g1, seed, ++stream);
    p.vk.beta_g1 = one_point(g1, seed, ++stream);
    p.vk.delta_g1 = one_point(g1, seed, ++stream);
    p.vk.beta_g2 = one_point(g2, seed, ++stream);
    p.vk.gamma_g2 = one_point(g2, seed, ++stream);
    p.vk.delta_g2 = one_point(g2, seed, ++stream);
    fill_points(p.vk.ic, g1, seed, ++stream, stop);
    fill_points(p.h, g1, seed, ++stream, stop);
    fill_points(p.l, g1, seed, ++stream, stop);
    fill_points(p.a, g1, seed, ++stream, stop);
    fill_points(p.b_g1, g1, seed, ++stream, stop);
    fill_points(p.b_g2, g2, seed, ++stream, stop);
    if (stop.stop_requested()) throw abandoned_error("building synthetic parameters abandoned (asked to stop)");
    return p;
}

}  // namespace cuzk::daemon
