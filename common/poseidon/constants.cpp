#include "common/poseidon/constants.hpp"

#include <array>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "common/poseidon/round_constants.hpp"

namespace cuzk::poseidon {

poseidon_constants make_constants(size_t arity, strength s) {
    if (arity < 1 || arity > MAX_ARITY)
        throw std::invalid_argument("poseidon: arity " + std::to_string(arity) + " outside 1.." +
                                    std::to_string(MAX_ARITY));
    poseidon_constants c;
    c.arity = arity;
    c.width = arity + 1;
    c.level = s;
    const round_numbers rn = neptune_round_numbers(arity, s);
    c.full_rounds = rn.full;
    c.half_full_rounds = rn.full / 2;
    c.partial_rounds = rn.partial;
    c.domain_tag = ff::fr_t::from_u64((uint64_t(1) << arity) - 1);

    c.round_constants = generate_round_constants(GRAIN_FIELD_PRIME, GRAIN_SBOX_NEPTUNE, FR_FIELD_BITS, c.width,
                                                 c.full_rounds, c.partial_rounds);
    c.mds = cauchy_mds(c.width);
    c.mds_inverse = invert(c.mds);
    c.compressed_round_constants =
        compress_round_constants(c.width, c.full_rounds, c.partial_rounds, c.round_constants, c.mds_inverse);
    sparse_factorization f = factor_to_sparse(c.mds, c.partial_rounds);
    c.pre_sparse = std::move(f.pre_sparse);
    c.sparse = std::move(f.sparse);
    return c;
}

const poseidon_constants& constants_for(size_t arity, strength s) {
    if (arity < 1 || arity > MAX_ARITY)
        throw std::invalid_argument("poseidon: arity " + std::to_string(arity) + " outside 1.." +
                                    std::to_string(MAX_ARITY));
    constexpr size_t SLOTS = 2 * (MAX_ARITY + 1);
    static std::array<std::once_flag, SLOTS> once;
    static std::array<std::unique_ptr<const poseidon_constants>, SLOTS> sets;
    const size_t slot = (s == strength::standard ? 0 : MAX_ARITY + 1) + arity;
    // call_once publishes the set to every thread that later passes this point.
    std::call_once(once[slot], [&] { sets[slot] = std::make_unique<const poseidon_constants>(make_constants(arity, s)); });
    return *sets[slot];
}

}  // namespace cuzk::poseidon
