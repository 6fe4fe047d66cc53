#include "common/gadgets/sha256.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

namespace {

// A working variable whose value is either a word already in the circuit or a sum whose
// addition is deferred until the word is read (bellperson's Maybe). Deferring lets e = d + temp1
// and a = temp1 + temp2 each become one addmany instead of two.
struct pending_word {
    bool concrete = true;
    uint32 word;
    std::array<uint32, 9> operands;
    size_t count = 0;

    static pending_word of(const uint32& w) {
        pending_word p;
        p.word = w;
        return p;
    }
    static pending_word sum(std::span<const uint32> a, std::span<const uint32> b) {
        pending_word p;
        p.concrete = false;
        for (const uint32& w : a) p.operands[p.count++] = w;
        for (const uint32& w : b) p.operands[p.count++] = w;
        return p;
    }
    // A concrete word is returned as is (|extra| is then ignored, as in bellperson; the
    // final additions only ever meet deferred words).
    uint32 compute(multieq& meq, std::span<const uint32> extra) const {
        if (concrete) return word;
        std::array<uint32, 10> ops;
        size_t n = 0;
        for (size_t i = 0; i < count; ++i) ops[n++] = operands[i];
        for (const uint32& w : extra) ops[n++] = w;
        return addmany(meq, std::span<const uint32>(ops.data(), n));
    }
};

// x.rotr(r0) ^ x.rotr(r1) ^ (shift ? x.shr(r2) : x.rotr(r2)): the sigma functions.
uint32 sigma(cs::constraint_system& cs, const uint32& x, unsigned r0, unsigned r1, unsigned r2, bool shift) {
    uint32 s = xor_words(cs, x.rotr(r0), x.rotr(r1));
    return xor_words(cs, s, shift ? x.shr(r2) : x.rotr(r2));
}

}  // namespace

sha256_state sha256_iv() {
    sha256_state s;
    for (size_t i = 0; i < 8; ++i) s[i] = uint32::constant(SHA256_IV[i]);
    return s;
}

sha256_state sha256_compression(cs::constraint_system& cs, std::span<const boolean> block_bits,
                                const sha256_state& state) {
    if (block_bits.size() != 512)
        throw std::invalid_argument("sha256_compression needs 512 block bits, got " +
                                    std::to_string(block_bits.size()));
    std::array<uint32, 64> w;
    for (size_t i = 0; i < 16; ++i) w[i] = uint32::from_bits_be(block_bits.subspan(32 * i, 32));

    multieq meq(cs);
    for (size_t i = 16; i < 64; ++i) {
        cs::namespace_scope ns(cs, "w extension", i);
        uint32 s0 = sigma(cs, w[i - 15], 7, 18, 3, true);
        uint32 s1 = sigma(cs, w[i - 2], 17, 19, 10, true);
        const uint32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
        w[i] = addmany(meq, ops);
    }

    pending_word a = pending_word::of(state[0]);
    uint32 b = state[1], c = state[2], d = state[3];
    pending_word e = pending_word::of(state[4]);
    uint32 f = state[5], g = state[6], h = state[7];

    for (size_t i = 0; i < 64; ++i) {
        cs::namespace_scope ns(cs, "compression round", i);
        uint32 new_e = e.compute(meq, {});
        uint32 s1 = sigma(cs, new_e, 6, 11, 25, false);
        uint32 ch = sha256_ch(cs, new_e, f, g);
        const uint32 temp1[5] = {h, s1, ch, uint32::constant(SHA256_ROUND_CONSTANTS[i]), w[i]};

        uint32 new_a = a.compute(meq, {});
        uint32 s0 = sigma(cs, new_a, 2, 13, 22, false);
        uint32 maj = sha256_maj(cs, new_a, b, c);
        const uint32 temp2[2] = {s0, maj};

        h = g;
        g = f;
        f = new_e;
        e = pending_word::sum(temp1, std::span<const uint32>(&d, 1));
        d = c;
        c = b;
        b = new_a;
        a = pending_word::sum(temp1, temp2);
    }

    cs::namespace_scope ns(cs, "final additions");
    sha256_state out;
    out[0] = a.compute(meq, std::span<const uint32>(&state[0], 1));
    const uint32 add1[2] = {state[1], b}, add2[2] = {state[2], c}, add3[2] = {state[3], d};
    out[1] = addmany(meq, add1);
    out[2] = addmany(meq, add2);
    out[3] = addmany(meq, add3);
    out[4] = e.compute(meq, std::span<const uint32>(&state[4], 1));
    const uint32 add5[2] = {state[5], f}, add6[2] = {state[6], g}, add7[2] = {state[7], h};
    out[5] = addmany(meq, add5);
    out[6] = addmany(meq, add6);
    out[7] = addmany(meq, add7);
    meq.finish();
    return out;
}

std::vector<boolean> sha256_state_bits(const sha256_state& state) {
    std::vector<boolean> bits;
    bits.reserve(256);
    for (const uint32& w : state) w.append_bits_be(bits);
    return bits;
}

std::vector<boolean> sha256_block_no_padding(cs::constraint_system& cs, std::span<const boolean> block_bits) {
    return sha256_state_bits(sha256_compression(cs, block_bits, sha256_iv()));
}

std::vector<boolean> sha256(cs::constraint_system& cs, std::span<const boolean> message_bits) {
    if (message_bits.size() % 8 != 0)
        throw std::invalid_argument("sha256 gadget hashes whole bytes; got " +
                                    std::to_string(message_bits.size()) + " bits");
    std::vector<boolean> padded(message_bits.begin(), message_bits.end());
    const uint64_t length = message_bits.size();
    padded.push_back(boolean::constant(true));
    while ((padded.size() + 64) % 512 != 0) padded.push_back(boolean::constant(false));
    for (unsigned i = 64; i-- > 0;) padded.push_back(boolean::constant((length >> i) & 1));

    sha256_state state = sha256_iv();
    for (size_t blk = 0; blk * 512 < padded.size(); ++blk) {
        cs::namespace_scope ns(cs, "block", blk);
        state = sha256_compression(cs, std::span<const boolean>(padded).subspan(512 * blk, 512), state);
    }
    return sha256_state_bits(state);
}

void sha256_compress_native(std::array<uint32_t, 8>& state, const uint8_t block[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 | uint32_t(block[4 * i + 2]) << 8 |
               uint32_t(block[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; ++i) {
        uint32_t S1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + S1 + ch + SHA256_ROUND_CONSTANTS[i] + w[i];
        uint32_t S0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

std::array<uint8_t, 32> sha256_state_bytes(const std::array<uint32_t, 8>& state) {
    std::array<uint8_t, 32> out;
    for (size_t i = 0; i < 8; ++i)
        for (size_t j = 0; j < 4; ++j) out[4 * i + j] = uint8_t(state[i] >> (24 - 8 * j));
    return out;
}

}  // namespace cuzk::gadgets
