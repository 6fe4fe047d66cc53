// The Grain LFSR in self-shrinking mode: the pseudo-random bit source from which Poseidon's round
// constants are drawn (Poseidon paper, appendix E; the reference script create_rcs_grain.sage).
//
// State: 80 bits b_0..b_79, initialised MSB-first with the instance parameters
//   field (2 bits) | S-box (4) | field size n (12) | t (12) | R_F (10) | R_P (10) | 30 one-bits,
// updated by b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i; the first 160
// outputs are discarded. Output bits come from pairs (x, y): y is emitted when x = 1, and the pair
// is dropped when x = 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ff/bls12_381.hpp"

namespace cuzk::poseidon {

class grain_lfsr {
public:
    grain_lfsr(unsigned field, unsigned sbox, unsigned field_size, unsigned t, unsigned r_f, unsigned r_p);

    // The next bit of the self-shrinking output.
    bool next_bit();

    // An Fr element from field_size bits read MSB-first (the integer the reference script builds
    // from its bit string), by rejection sampling: draws >= r are discarded and drawn again.
    // Requires field_size <= 256.
    ff::fr_t next_fr();

private:
    // One raw LFSR step: returns the new bit and shifts it in.
    bool step();

    // b_i lives at bit (head_ + i) mod 80 of a ring; |bits_| packs the 80 bits in two words.
    bool bit(unsigned i) const {
        unsigned p = (head_ + i) % 80;
        return (bits_[p / 64] >> (p % 64)) & 1;
    }
    void set(unsigned p, bool v) {
        uint64_t mask = uint64_t(1) << (p % 64);
        bits_[p / 64] = v ? (bits_[p / 64] | mask) : (bits_[p / 64] & ~mask);
    }

    uint64_t bits_[2] = {0, 0};
    unsigned head_ = 0;
    unsigned field_size_;
};

}  // namespace cuzk::poseidon
