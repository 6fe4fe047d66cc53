#include "common/gadgets/multipack.hpp"

#include <algorithm>

namespace cuzk::gadgets {

void pack_into_inputs(cs::constraint_system& cs, std::span<const boolean> bits) {
    for (size_t start = 0, chunk = 0; start < bits.size(); start += MULTIPACK_CHUNK_BITS, ++chunk) {
        size_t n = std::min(MULTIPACK_CHUNK_BITS, bits.size() - start);
        cs::namespace_scope ns(cs, "packing", chunk);
        cs::linear_combination num;
        ff::fr_t value;
        for (size_t i = 0; i < n; ++i) {
            const boolean& b = bits[start + i];
            b.add_to(num, cs::fr_pow2(unsigned(i)));
            if (b.value()) value += cs::fr_pow2(unsigned(i));
        }
        cs::variable input = cs.alloc_input(value);
        cs.enforce(num, cs::linear_combination(cs::variable::one()), cs::linear_combination(input));
    }
}

std::vector<ff::fr_t> compute_multipacking(const std::vector<bool>& bits) {
    std::vector<ff::fr_t> out;
    for (size_t start = 0; start < bits.size(); start += MULTIPACK_CHUNK_BITS) {
        size_t n = std::min(MULTIPACK_CHUNK_BITS, bits.size() - start);
        ff::fr_t acc;
        for (size_t i = 0; i < n; ++i)
            if (bits[start + i]) acc += cs::fr_pow2(unsigned(i));
        out.push_back(acc);
    }
    return out;
}

std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
    std::vector<bool> bits;
    bits.reserve(bytes.size() * 8);
    for (uint8_t v : bytes)
        for (int i = 7; i >= 0; --i) bits.push_back((v >> i) & 1);
    return bits;
}

std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes) {
    std::vector<bool> bits;
    bits.reserve(bytes.size() * 8);
    for (uint8_t v : bytes)
        for (int i = 0; i < 8; ++i) bits.push_back((v >> i) & 1);
    return bits;
}

}  // namespace cuzk::gadgets
