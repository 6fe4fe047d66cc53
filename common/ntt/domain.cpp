// Domain constants and twiddle tables (see domain.hpp).
#include "common/ntt/domain.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::ntt {

fr_t root_of_unity(unsigned log_n) {
    if (log_n > ff::FR_TWO_ADICITY) {
        throw std::invalid_argument("NTT domain 2^" + std::to_string(log_n) + " exceeds the 2-adicity 2^" +
                                    std::to_string(ff::FR_TWO_ADICITY) + " of Fr");
    }
    auto t = fr_t::minus_one_repr();
    for (unsigned i = 0; i < ff::FR_TWO_ADICITY; ++i) t = ff::shr1(t);
    static const fr_t w32 = fr_t::from_u64(ff::FR_GENERATOR).pow(t);
    fr_t w = w32;
    for (unsigned i = log_n; i < ff::FR_TWO_ADICITY; ++i) w = w.sqr();
    return w;
}

root_powers::root_powers(const fr_t& w, unsigned log_n) {
    fine_bits_ = (log_n + 1) / 2;
    fine_mask_ = (size_t(1) << fine_bits_) - 1;
    fine_.resize(size_t(1) << fine_bits_);
    coarse_.resize(size_t(1) << (log_n - fine_bits_));
    fr_t acc = fr_t::one();
    for (auto& f : fine_) {
        f = acc;
        acc *= w;
    }
    // acc = w^(2^fine_bits) now.
    fr_t step = acc;
    acc = fr_t::one();
    for (auto& c : coarse_) {
        c = acc;
        acc *= step;
    }
}

domain::domain(unsigned log_n) : log_n_(log_n), n_(0) {
    omega_ = root_of_unity(log_n);  // validates log_n
    n_ = size_t(1) << log_n;
    omega_inv_ = omega_.inverse();
    size_inv_ = fr_t::from_u64(n_).inverse();  // n <= 2^32 fits one limb
    g_ = fr_t::from_u64(ff::FR_GENERATOR);
    g_inv_ = g_.inverse();
    fr_t gn = g_;
    for (unsigned i = 0; i < log_n; ++i) gn = gn.sqr();
    z_coset_inv_ = (gn - fr_t::one()).inverse();

    // Per-stage tables for half-widths m = 1, 2, ..., min(n, BLOCK) / 2, at offset m.
    size_t small = std::min(n_, BLOCK);
    small_fwd_.assign(std::max<size_t>(small, 2), fr_t::zero());
    small_inv_.assign(std::max<size_t>(small, 2), fr_t::zero());
    for (size_t m = 1; m < small; m <<= 1) {
        unsigned log_2m = 0;
        while ((size_t(1) << log_2m) < 2 * m) ++log_2m;
        fr_t w = root_of_unity(log_2m), wi = w.inverse();
        fr_t a = fr_t::one(), b = fr_t::one();
        for (size_t j = 0; j < m; ++j) {
            small_fwd_[m + j] = a;
            small_inv_[m + j] = b;
            a *= w;
            b *= wi;
        }
    }
    pow_fwd_ = root_powers(omega_, log_n);
    pow_inv_ = root_powers(omega_inv_, log_n);
}

}  // namespace cuzk::ntt
