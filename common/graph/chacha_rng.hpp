// The ChaCha stream generator of Rust's rand_chacha (ChaCha8Rng for the DRG parents), reproduced
// word for word: the 32-byte seed is the key, the 64-bit block counter and the 64-bit stream id (0)
// fill state words 12..15, blocks are consumed in order as little-endian 32-bit words, and a u64 is
// two consecutive words, the first one low.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::graph {

class chacha_rng {
public:
    // |double_rounds|: 4 for ChaCha8, 10 for ChaCha20.
    chacha_rng(const std::array<uint8_t, 32>& seed, unsigned double_rounds);

    uint32_t next_u32();
    uint64_t next_u64();

    // The 16 output words of block |counter| (for tests against other ChaCha implementations).
    std::array<uint32_t, 16> block(uint64_t counter) const;

private:
    void refill();

    std::array<uint32_t, 8> key_{};
    unsigned double_rounds_;
    uint64_t counter_ = 0;
    std::array<uint32_t, 16> buffer_{};
    size_t index_ = 16;  // next unread word of buffer_
};

// rand_chacha's ChaCha8Rng::from_seed.
inline chacha_rng chacha8_rng(const std::array<uint8_t, 32>& seed) { return chacha_rng(seed, 4); }

}  // namespace cuzk::graph
