#include "common/poseidon/round_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuzk::poseidon {
namespace {

// n = 256: neptune rounds BLS12-381's 255-bit modulus up to a whole number of bytes; the bounds
// are insensitive to that one bit.
constexpr float PRIME_BITS = 256.0f;
// M: the security level in bits.
constexpr float SECURITY_BITS = 128.0f;

// ceil(x) as an unsigned count; negative bounds impose nothing.
size_t ceil_count(float x) {
    float c = std::ceil(x);
    return c <= 0.0f ? 0 : size_t(c);
}

bool secure(size_t t_count, size_t rf, size_t rp_count) {
    const float t = float(t_count);
    const float rp = float(rp_count);
    const float n = PRIME_BITS;
    const float m = SECURITY_BITS;
    const float rf_stat = m <= (n - 3.0f) * (t + 1.0f) ? 6.0f : 10.0f;
    const float rf_interp = 0.43f * m + std::log2(t) - rp;
    const float rf_grob_1 = 0.21f * n - rp;
    const float rf_grob_2 = (0.14f * n - 1.0f - rp) / (t - 1.0f);
    const size_t rf_max = std::max({ceil_count(rf_stat), ceil_count(rf_interp), ceil_count(rf_grob_1),
                                    ceil_count(rf_grob_2)});
    return rf >= rf_max;
}

}  // namespace

round_numbers calc_round_numbers(size_t t, bool security_margin) {
    size_t best_rf = 0;
    size_t best_rp = 0;
    size_t best_cost = std::numeric_limits<size_t>::max();
    for (size_t rf_test = 2; rf_test <= 1000; rf_test += 2) {
        for (size_t rp_test = 4; rp_test < 200; ++rp_test) {
            if (!secure(t, rf_test, rp_test)) continue;
            size_t rf = rf_test;
            size_t rp = rp_test;
            if (security_margin) {
                rf += 2;
                rp = size_t(std::ceil(1.075f * float(rp)));
            }
            const size_t cost = t * rf + rp;  // S-boxes: t per full round, one per partial round
            if (cost < best_cost || (cost == best_cost && rf < best_rf)) {
                best_rf = rf;
                best_rp = rp;
                best_cost = cost;
            }
        }
    }
    return {best_rf, best_rp};
}

round_numbers neptune_round_numbers(size_t arity, strength s) {
    round_numbers base = calc_round_numbers(arity + 1, true);
    if (s == strength::strengthened) {
        // "Increase the number of partial rounds by 25%", rounded up (computed in double, as neptune).
        base.partial = size_t(std::ceil(double(base.partial) * 1.25));
    }
    return base;
}

}  // namespace cuzk::poseidon
