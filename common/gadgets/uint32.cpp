#include "common/gadgets/uint32.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

uint32 uint32::constant(uint32_t value) {
    uint32 w;
    for (unsigned i = 0; i < 32; ++i) w.bits_[i] = boolean::constant((value >> i) & 1);
    w.value_ = value;
    return w;
}

uint32 uint32::alloc(cs::constraint_system& cs, uint32_t value) {
    uint32 w;
    for (unsigned i = 0; i < 32; ++i) w.bits_[i] = boolean::alloc(cs, (value >> i) & 1);
    w.value_ = value;
    return w;
}

uint32 uint32::from_bits_be(std::span<const boolean> bits) {
    if (bits.size() != 32) throw std::invalid_argument("uint32::from_bits_be needs 32 bits");
    uint32 w;
    for (unsigned i = 0; i < 32; ++i) {
        w.bits_[i] = bits[31 - i];
        w.value_ |= uint32_t(bits[31 - i].value()) << i;
    }
    return w;
}

uint32 uint32::from_bits_le(std::span<const boolean> bits) {
    if (bits.size() != 32) throw std::invalid_argument("uint32::from_bits_le needs 32 bits");
    uint32 w;
    for (unsigned i = 0; i < 32; ++i) {
        w.bits_[i] = bits[i];
        w.value_ |= uint32_t(bits[i].value()) << i;
    }
    return w;
}

void uint32::append_bits_be(std::vector<boolean>& out) const {
    for (unsigned i = 32; i-- > 0;) out.push_back(bits_[i]);
}

bool uint32::is_constant() const {
    for (const boolean& b : bits_)
        if (!b.is_constant()) return false;
    return true;
}

uint32 uint32::rotr(unsigned by) const {
    by %= 32;
    uint32 w;
    for (unsigned i = 0; i < 32; ++i) w.bits_[i] = bits_[(i + by) % 32];
    w.value_ = std::rotr(value_, int(by));
    return w;
}

uint32 uint32::shr(unsigned by) const {
    by %= 32;
    uint32 w;  // bits default to constant false
    for (unsigned i = 0; i + by < 32; ++i) w.bits_[i] = bits_[i + by];
    w.value_ = value_ >> by;
    return w;
}

namespace {
template <class Op>
uint32 bitwise(const uint32& a, const uint32& b, const uint32& c, Op op) {
    std::array<boolean, 32> out;
    for (unsigned i = 0; i < 32; ++i) out[i] = op(a.bits_le()[i], b.bits_le()[i], c.bits_le()[i]);
    return uint32::from_bits_le(out);
}
}  // namespace

uint32 xor_words(cs::constraint_system& cs, const uint32& a, const uint32& b) {
    return bitwise(a, b, b, [&](const boolean& x, const boolean& y, const boolean&) { return xor_bits(cs, x, y); });
}

uint32 sha256_ch(cs::constraint_system& cs, const uint32& a, const uint32& b, const uint32& c) {
    return bitwise(a, b, c, [&](const boolean& x, const boolean& y, const boolean& z) { return sha256_ch(cs, x, y, z); });
}

uint32 sha256_maj(cs::constraint_system& cs, const uint32& a, const uint32& b, const uint32& c) {
    return bitwise(a, b, c, [&](const boolean& x, const boolean& y, const boolean& z) { return sha256_maj(cs, x, y, z); });
}

uint32 addmany(multieq& meq, std::span<const uint32> operands) {
    // Bounds from bellperson: at least two operands, and at most ten so the sum stays far below
    // 64 bits (and below the MultiEq capacity).
    if (operands.size() < 2 || operands.size() > 10)
        throw std::invalid_argument("addmany takes 2 to 10 operands, got " + std::to_string(operands.size()));

    uint64_t sum = 0;
    bool all_constant = true;
    for (const uint32& op : operands) {
        sum += op.value();
        all_constant = all_constant && op.is_constant();
    }
    if (all_constant) return uint32::constant(uint32_t(sum));

    cs::constraint_system& cs = meq.cs();
    const uint64_t max_value = uint64_t(operands.size()) * 0xffffffffULL;
    const unsigned width = unsigned(std::bit_width(max_value));  // 33 for 2 operands .. 36 for 10

    // Result bits first (their booleanity constraints precede a possible MultiEq flush).
    std::array<boolean, 36> result;
    for (unsigned i = 0; i < width; ++i) result[i] = boolean::alloc(cs, (sum >> i) & 1);

    size_t shift = meq.begin_equality(width);
    for (const uint32& op : operands) {
        for (unsigned i = 0; i < 32; ++i) {
            const boolean& bit = op.bits_le()[i];
            const ff::fr_t& k = cs::fr_pow2(unsigned(shift + i));
            switch (bit.type()) {
                case boolean::kind::constant:
                    if (bit.value()) meq.add_lhs_constant(k);
                    break;
                case boolean::kind::is: meq.add_lhs(bit.var(), k); break;
                case boolean::kind::negated:
                    meq.add_lhs_constant(k);
                    meq.add_lhs(bit.var(), -k);
                    break;
            }
        }
    }
    for (unsigned i = 0; i < width; ++i) meq.add_rhs(result[i].var(), cs::fr_pow2(unsigned(shift + i)));

    return uint32::from_bits_le(std::span<const boolean>(result.data(), 32));
}

}  // namespace cuzk::gadgets
