#include "common/graph/feistel.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace cuzk::graph {

namespace {

constexpr unsigned rounds = 3;

uint64_t round_function(uint64_t right, uint64_t key, uint64_t right_mask) {
    uint8_t data[16];
    for (int i = 0; i < 8; ++i) {
        data[i] = uint8_t(right >> (56 - 8 * i));
        data[8 + i] = uint8_t(key >> (56 - 8 * i));
    }
    // BLAKE2b with its full 64-byte output (blake2b_simd's default), of which 8 bytes are read.
    uint8_t hash[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(data, sizeof data, hash, &len, EVP_blake2b512(), nullptr) != 1 || len != 64) {
        throw std::runtime_error("feistel: BLAKE2b-512 is not available from OpenSSL");
    }
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r = r << 8 | hash[i];
    return r & right_mask;
}

}  // namespace

feistel_params feistel_precompute(uint64_t num_elements) {
    uint64_t next_pow4 = 4;
    unsigned log4 = 1;
    while (next_pow4 < num_elements) {
        next_pow4 *= 4;
        ++log4;
    }
    return {((uint64_t(1) << log4) - 1) << log4, (uint64_t(1) << log4) - 1, log4};
}

uint64_t feistel_encode(uint64_t index, const feistel_keys& keys, const feistel_params& p) {
    uint64_t left = (index & p.left_mask) >> p.half_bits;
    uint64_t right = index & p.right_mask;
    for (unsigned i = 0; i < rounds; ++i) {
        uint64_t next_right = left ^ round_function(right, keys[i], p.right_mask);
        left = right;
        right = next_right;
    }
    return left << p.half_bits | right;
}

uint64_t feistel_decode(uint64_t index, const feistel_keys& keys, const feistel_params& p) {
    uint64_t left = (index & p.left_mask) >> p.half_bits;
    uint64_t right = index & p.right_mask;
    for (unsigned i = rounds; i-- > 0;) {
        uint64_t next_left = right ^ round_function(left, keys[i], p.right_mask);
        right = left;
        left = next_left;
    }
    return left << p.half_bits | right;
}

uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const feistel_keys& keys, const feistel_params& p) {
    uint64_t u = feistel_encode(index, keys, p);
    while (u >= num_elements) u = feistel_encode(u, keys, p);
    return u;
}

uint64_t feistel_invert(uint64_t num_elements, uint64_t index, const feistel_keys& keys, const feistel_params& p) {
    uint64_t u = feistel_decode(index, keys, p);
    while (u >= num_elements) u = feistel_decode(u, keys, p);
    return u;
}

}  // namespace cuzk::graph
