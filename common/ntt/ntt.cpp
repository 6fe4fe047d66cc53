// Radix-2 NTT over Fr (see ntt.hpp for orderings and costs).
#include "common/ntt/ntt.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace cuzk::ntt {

namespace {

void check_size(const domain& d, size_t got) {
    if (got != d.size()) {
        throw std::invalid_argument("NTT input has " + std::to_string(got) + " elements, the domain has " +
                                    std::to_string(d.size()));
    }
}

uint64_t reverse_bits(uint64_t v, unsigned bits) {
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    v = __builtin_bswap64(v);
    return bits == 0 ? 0 : v >> (64 - bits);
}

size_t task_target() { return 4 * size_t(std::max(1, tbb::this_task_arena::max_concurrency())); }

// Butterflies of half-width m within one block of 2m elements, with twiddles tw[j] = w_{2m}^j.
// DIF (Gentleman-Sande): (u, v) -> (u + v, (u - v) w).
inline void dif_span(fr_t* x, size_t m, const fr_t* tw) {
    fr_t u = x[0], v = x[m];
    x[0] = u + v;
    x[m] = u - v;  // tw[0] = 1
    for (size_t j = 1; j < m; ++j) {
        u = x[j];
        v = x[j + m];
        x[j] = u + v;
        x[j + m] = (u - v) * tw[j];
    }
}
// DIT (Cooley-Tukey): (u, v) -> (u + v w, u - v w).
inline void dit_span(fr_t* x, size_t m, const fr_t* tw) {
    fr_t u = x[0], v = x[m];
    x[0] = u + v;
    x[m] = u - v;
    for (size_t j = 1; j < m; ++j) {
        u = x[j];
        v = x[j + m] * tw[j];
        x[j] = u + v;
        x[j + m] = u - v;
    }
}

// One stage of half-width m >= block over the whole array: tasks take a range of j and a range of
// the n/(2m) sub-transforms, compute their twiddles w_{2m}^j = omega^(j n/(2m)) incrementally once
// and reuse them across the sub-transforms.
template <bool Dif>
void wide_stage(const domain& d, fr_t* x, size_t m, bool inverse) {
    const size_t n = d.size();
    const size_t stride = n / (2 * m);
    const size_t sub = n / (2 * m);  // sub-transforms
    const size_t J = std::min<size_t>(m, 256);
    const size_t jchunks = m / J;
    const size_t groups = std::clamp<size_t>(task_target() / jchunks, 1, sub);
    const root_powers& pw = d.powers(inverse);
    tbb::parallel_for(size_t(0), jchunks * groups, [&](size_t t) {
        size_t jc = t % jchunks, g = t / jchunks;
        size_t j0 = jc * J;
        fr_t tw[256];
        tw[0] = pw.pow(j0 * stride);
        fr_t step = pw.pow(stride);
        for (size_t j = 1; j < J; ++j) tw[j] = tw[j - 1] * step;
        size_t s_lo = sub * g / groups, s_hi = sub * (g + 1) / groups;
        for (size_t s = s_lo; s < s_hi; ++s) {
            fr_t* base = x + s * 2 * m + j0;
            for (size_t j = 0; j < J; ++j) {
                fr_t u = base[j], v = base[j + m];
                if constexpr (Dif) {
                    base[j] = u + v;
                    base[j + m] = (u - v) * tw[j];
                } else {
                    v *= tw[j];
                    base[j] = u + v;
                    base[j + m] = u - v;
                }
            }
        }
    }, tbb::simple_partitioner());
}

// All stages of half-width < block, each block of |block| elements on its own.
template <bool Dif>
void blocked_stages(const domain& d, fr_t* x, bool inverse) {
    const size_t n = d.size();
    const size_t block = std::min(n, domain::BLOCK);
    const fr_t* small = d.small_twiddles(inverse);
    tbb::parallel_for(size_t(0), n / block, [&](size_t b) {
        fr_t* blk = x + b * block;
        if constexpr (Dif) {
            for (size_t m = block / 2; m >= 1; m >>= 1) {
                for (size_t s = 0; s < block; s += 2 * m) dif_span(blk + s, m, small + m);
            }
        } else {
            for (size_t m = 1; m < block; m <<= 1) {
                for (size_t s = 0; s < block; s += 2 * m) dit_span(blk + s, m, small + m);
            }
        }
    });
}

// x[i] *= base * step^i, in parallel chunks that start from step^lo.
void scale_by_powers(std::span<fr_t> x, const fr_t& base, const fr_t& step) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, x.size(), 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        fr_t f = base * step.pow(uint64_t(r.begin()));
        for (size_t i = r.begin(); i < r.end(); ++i) {
            x[i] *= f;
            f *= step;
        }
    });
}

void scale(std::span<fr_t> x, const fr_t& f) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, x.size(), 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) x[i] *= f;
    });
}

}  // namespace

void dif(const domain& d, std::span<fr_t> x, bool inverse) {
    check_size(d, x.size());
    if (d.size() == 1) return;
    for (size_t m = d.size() / 2; m >= domain::BLOCK; m >>= 1) wide_stage<true>(d, x.data(), m, inverse);
    blocked_stages<true>(d, x.data(), inverse);
}

void dit(const domain& d, std::span<fr_t> x, bool inverse) {
    check_size(d, x.size());
    if (d.size() == 1) return;
    blocked_stages<false>(d, x.data(), inverse);
    for (size_t m = domain::BLOCK; m < d.size(); m <<= 1) wide_stage<false>(d, x.data(), m, inverse);
}

void bit_reverse(std::span<fr_t> x) {
    const size_t n = x.size();
    const unsigned bits = unsigned(std::countr_zero(n));
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) {
            size_t j = reverse_bits(i, bits);
            if (i < j) std::swap(x[i], x[j]);
        }
    });
}

void forward(const domain& d, std::span<fr_t> x) {
    dif(d, x, false);
    bit_reverse(x);
}

void inverse(const domain& d, std::span<fr_t> x) {
    dif(d, x, true);
    bit_reverse(x);
    scale(x, d.size_inv());
}

void coset_forward(const domain& d, std::span<fr_t> x) {
    check_size(d, x.size());
    scale_by_powers(x, fr_t::one(), d.coset_gen());
    forward(d, x);
}

void coset_inverse(const domain& d, std::span<fr_t> x) {
    dif(d, x, true);
    bit_reverse(x);
    scale_by_powers(x, d.size_inv(), d.coset_gen_inv());
}

void compute_h(const domain& d, std::vector<fr_t>& a, std::vector<fr_t>& b, std::vector<fr_t>& c) {
    check_size(d, a.size());
    check_size(d, b.size());
    check_size(d, c.size());
    const size_t n = d.size();
    const unsigned L = d.log_size();
    // Coefficients, bit-reversed and scaled by n: position p holds n * coef[rev(p)].
    dif(d, a, true);
    dif(d, b, true);
    dif(d, c, true);
    // Coset shift and 1/n of A and B (C needs no coset evaluations; see below): position p (coefficient
    // k = rev(p)) is multiplied by g^k / n. Split p = hi 2^s + lo: rev(p) = rev_s(lo) 2^(L-s) + rev_(L-s)(hi),
    // so g^rev(p) = lo_tab[lo] * hi_tab[hi] with two tables of about sqrt(n) entries; the factor is shared
    // by a and b, so it costs 1M per position plus 2M to apply.
    const unsigned s = L / 2;
    const size_t lo_n = size_t(1) << s, hi_n = size_t(1) << (L - s);
    std::vector<fr_t> lo_tab(lo_n), hi_tab(hi_n);
    {
        fr_t g_big = d.coset_gen().pow(uint64_t(1) << (L - s));  // g^(2^(L-s))
        for (size_t lo = 0; lo < lo_n; ++lo) lo_tab[lo] = g_big.pow(uint64_t(reverse_bits(lo, s)));
        for (size_t hi = 0; hi < hi_n; ++hi) {
            hi_tab[hi] = d.coset_gen().pow(uint64_t(reverse_bits(hi, L - s))) * d.size_inv();
        }
    }
    tbb::parallel_for(size_t(0), hi_n, [&](size_t hi) {
        const fr_t h = hi_tab[hi];
        size_t base = hi * lo_n;
        for (size_t lo = 0; lo < lo_n; ++lo) {
            fr_t f = lo_tab[lo] * h;
            a[base + lo] *= f;
            b[base + lo] *= f;
        }
    });
    // Evaluations of A and B on the coset g <omega>, natural order, and their product.
    dit(d, a, false);
    dit(d, b, false);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) a[i] *= b[i];
    });
    // The coset inverse transform is linear and gives back C from C's coset evaluations, so
    //   H = coset_inverse((A B - C)(g omega^i) / (g^n - 1)) = (Q - C) / (g^n - 1),
    // Q = coset_inverse of the product (A B mod X^n - g^n): one transform fewer than evaluating C on the
    // coset (6, not 7), exact for any a, b, c. q_k = coef_k g^-k / n, c_k from its bit-reversed n c_k.
    const fr_t scale_out = d.size_inv() * d.vanishing_on_coset_inv();
    dif(d, a, true);
    bit_reverse(a);
    bit_reverse(c);
    scale_by_powers(a, fr_t::one(), d.coset_gen_inv());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) a[i] = (a[i] - c[i]) * scale_out;
    });
}

}  // namespace cuzk::ntt
