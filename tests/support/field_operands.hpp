// Operands for field arithmetic checks: random elements and the edges of the Montgomery representation.
#pragma once

#include <random>
#include <vector>

namespace cuzk::test {

// 0, 1, -1, 2, then 2^k and p - 2^k for every 37th k below 400, then |random_count| random elements.
template <class H>
std::vector<H> field_operands(std::mt19937_64& rng, int random_count) {
    std::vector<H> v{H::zero(), H::one(), -H::one(), H::one() + H::one()};
    H two_k = H::one();
    for (int k = 0; k < 400; ++k) {
        if (k % 37 == 0) {
            v.push_back(two_k);
            v.push_back(-two_k);
        }
        two_k = two_k + two_k;
    }
    for (int i = 0; i < random_count; ++i) v.push_back(H::random(rng));
    return v;
}

}  // namespace cuzk::test
