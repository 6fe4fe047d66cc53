#include "common/graph/chacha_rng.hpp"

#include <bit>

namespace cuzk::graph {

namespace {

inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
    a += b, d ^= a, d = std::rotl(d, 16);
    c += d, b ^= c, b = std::rotl(b, 12);
    a += b, d ^= a, d = std::rotl(d, 8);
    c += d, b ^= c, b = std::rotl(b, 7);
}

inline uint32_t load_le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

chacha_rng::chacha_rng(const std::array<uint8_t, 32>& seed, unsigned double_rounds) : double_rounds_(double_rounds) {
    for (size_t i = 0; i < 8; ++i) key_[i] = load_le32(seed.data() + 4 * i);
}

std::array<uint32_t, 16> chacha_rng::block(uint64_t counter) const {
    // "expand 32-byte k", the key, then counter (64-bit) and stream id (64-bit, zero).
    std::array<uint32_t, 16> in = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574,
                                   key_[0], key_[1], key_[2], key_[3], key_[4], key_[5], key_[6], key_[7],
                                   uint32_t(counter), uint32_t(counter >> 32), 0, 0};
    std::array<uint32_t, 16> x = in;
    for (unsigned r = 0; r < double_rounds_; ++r) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (size_t i = 0; i < 16; ++i) x[i] += in[i];
    return x;
}

void chacha_rng::refill() {
    buffer_ = block(counter_++);
    index_ = 0;
}

uint32_t chacha_rng::next_u32() {
    if (index_ == buffer_.size()) refill();
    return buffer_[index_++];
}

// rand_core's block RNG reads a u64 as two consecutive words, low first, also across a refill.
uint64_t chacha_rng::next_u64() {
    uint64_t lo = next_u32();
    uint64_t hi = next_u32();
    return hi << 32 | lo;
}

}  // namespace cuzk::graph
