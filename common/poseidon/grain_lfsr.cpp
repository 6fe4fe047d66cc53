#include "common/poseidon/grain_lfsr.hpp"

#include <stdexcept>

namespace cuzk::poseidon {

grain_lfsr::grain_lfsr(unsigned field, unsigned sbox, unsigned field_size, unsigned t, unsigned r_f,
                       unsigned r_p)
    : field_size_(field_size) {
    if (field_size == 0 || field_size > 256) throw std::invalid_argument("grain_lfsr: field size must be 1..256 bits");
    unsigned pos = 0;
    auto append = [&](uint64_t value, unsigned width) {
        for (unsigned i = width; i-- > 0;) set(pos++, (value >> i) & 1);
    };
    append(field, 2);
    append(sbox, 4);
    append(field_size, 12);
    append(t, 12);
    append(r_f, 10);
    append(r_p, 10);
    append((uint64_t(1) << 30) - 1, 30);
    for (int i = 0; i < 160; ++i) step();
}

bool grain_lfsr::step() {
    bool b = bit(62) ^ bit(51) ^ bit(38) ^ bit(23) ^ bit(13) ^ bit(0);
    // b_0 leaves, b joins as b_79: it takes the slot b_0 occupied and the ring turns by one.
    set(head_, b);
    head_ = (head_ + 1) % 80;
    return b;
}

bool grain_lfsr::next_bit() {
    for (;;) {
        bool x = step();
        bool y = step();
        if (x) return y;
    }
}

ff::fr_t grain_lfsr::next_fr() {
    for (;;) {
        ff::fr_t::repr_t v{};
        for (unsigned i = field_size_; i-- > 0;) {
            if (next_bit()) v[i / 64] |= uint64_t(1) << (i % 64);
        }
        ff::fr_t out;
        if (ff::fr_t::from_repr_checked(v, out)) return out;
    }
}

}  // namespace cuzk::poseidon
