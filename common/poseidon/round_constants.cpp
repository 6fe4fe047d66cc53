#include "common/poseidon/round_constants.hpp"

#include <stdexcept>

#include "common/poseidon/grain_lfsr.hpp"

namespace cuzk::poseidon {

using ff::fr_t;

std::vector<fr_t> generate_round_constants(unsigned field, unsigned sbox, unsigned field_size, size_t t,
                                           size_t r_f, size_t r_p) {
    if (field != GRAIN_FIELD_PRIME) throw std::invalid_argument("round constants: only prime fields are supported");
    grain_lfsr grain(field, sbox, field_size, unsigned(t), unsigned(r_f), unsigned(r_p));
    std::vector<fr_t> out((r_f + r_p) * t);
    for (fr_t& c : out) c = grain.next_fr();
    return out;
}

std::vector<fr_t> compress_round_constants(size_t t, size_t r_f, size_t r_p, const std::vector<fr_t>& rc,
                                           const square_matrix& mds_inverse) {
    if (rc.size() < (r_f + r_p) * t) throw std::invalid_argument("round constants: too few constants");
    auto round_keys = [&](size_t r) { return std::vector<fr_t>(rc.begin() + r * t, rc.begin() + (r + 1) * t); };
    const size_t half = r_f / 2;

    std::vector<fr_t> out;
    out.reserve(t * r_f + r_p);
    auto extend = [&](const std::vector<fr_t>& v) { out.insert(out.end(), v.begin(), v.end()); };

    extend(round_keys(0));
    for (size_t i = 0; i + 1 < half; ++i) extend(apply(mds_inverse, round_keys(i + 1)));

    // Walk back from the first round after the partial rounds. At each partial round, the
    // constants still to be added after its S-box are M^-1 * acc: element 0 stays there (it is
    // that round's single constant), elements 1..t-1 pass through the S-box layer unchanged and
    // join the previous round's constants.
    const size_t first_final = half + r_p;
    std::vector<fr_t> acc = round_keys(first_final);
    std::vector<fr_t> partial_keys(r_p);
    for (size_t i = 0; i < r_p; ++i) {
        std::vector<fr_t> inverted = apply(mds_inverse, acc);
        partial_keys[r_p - 1 - i] = inverted[0];
        inverted[0] = fr_t::zero();
        std::vector<fr_t> previous = round_keys(first_final - i - 1);
        for (size_t j = 0; j < t; ++j) previous[j] += inverted[j];
        acc = std::move(previous);
    }
    extend(apply(mds_inverse, acc));
    extend(partial_keys);

    for (size_t i = 1; i < half; ++i) extend(apply(mds_inverse, round_keys(first_final + i)));
    return out;
}

}  // namespace cuzk::poseidon
