#include "common/porep/synthetic_challenges.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk::porep {

namespace {

constexpr std::string_view GENERATION_KEY = "filecoin.io|PoRep|1|Synthetic|1|Generation";
constexpr std::string_view SELECTION_KEY = "filecoin.io|PoRep|1|Synthetic|1|Selection";
constexpr uint8_t NONCE[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

[[noreturn]] void openssl_failed(const char* what) {
    throw std::runtime_error(std::string("synthetic challenges: OpenSSL ") + what + " failed");
}

// BLAKE2b with a 32-byte digest, keyed (blake2b_simd Params::hash_length(32).key(k)).
bytes32 blake2b_keyed(std::string_view key, const bytes32& a, const bytes32& b) {
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "BLAKE2BMAC", nullptr);
    if (!mac) openssl_failed("BLAKE2BMAC fetch");
    std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> mac_guard(mac, EVP_MAC_free);
    std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac), EVP_MAC_CTX_free);
    size_t size = 32;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
    bytes32 out{};
    size_t len = 0;
    if (!ctx || EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) != 1 ||
        EVP_MAC_update(ctx.get(), a.data(), a.size()) != 1 || EVP_MAC_update(ctx.get(), b.data(), b.size()) != 1 ||
        EVP_MAC_final(ctx.get(), out.data(), &len, out.size()) != 1 || len != 32)
        openssl_failed("BLAKE2BMAC");
    return out;
}

// |blocks| 64-byte ChaCha20 keystream blocks from block counter |first| (IETF: 32-bit counter, 96-bit nonce).
std::vector<uint8_t> chacha20_keystream(const bytes32& key, uint32_t first, size_t blocks) {
    uint8_t iv[16];
    for (int i = 0; i < 4; ++i) iv[i] = uint8_t(first >> (8 * i));
    std::copy(NONCE, NONCE + 12, iv + 4);
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    std::vector<uint8_t> zeros(blocks * 64, 0), out(blocks * 64);
    int len = 0;
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_chacha20(), nullptr, key.data(), iv) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out.data(), &len, zeros.data(), int(zeros.size())) != 1)
        openssl_failed("ChaCha20");
    return out;
}

uint64_t to_challenge(const uint8_t* le32, uint64_t nodes) {
    unsigned __int128 r = 0;
    for (int limb = 3; limb >= 0; --limb) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; --b) w = (w << 8) | le32[limb * 8 + b];
        r = ((r << 64) | w) % (nodes - 1);
    }
    return uint64_t(r) + 1;
}

bytes32 bytes_of(const ff::fr_t& x) {
    bytes32 b{};
    x.to_bytes_le(b.data());
    return b;
}

}  // namespace

synthetic_challenges::synthetic_challenges(uint64_t nodes, const ff::fr_t& replica_id, const ff::fr_t& comm_r,
                                           uint64_t count)
    : nodes_(nodes), count_(count), replica_id_(bytes_of(replica_id)) {
    if (nodes <= 2 || nodes > (uint64_t(1) << 32) || count == 0 || count >= (uint64_t(1) << 32))
        throw std::invalid_argument("synthetic challenges: " + std::to_string(nodes) + " nodes, " +
                                    std::to_string(count) + " challenges");
    generation_key_ = blake2b_keyed(GENERATION_KEY, replica_id_, bytes_of(comm_r));
}

synthetic_challenges synthetic_challenges::standard(uint64_t nodes, const ff::fr_t& replica_id, const ff::fr_t& comm_r) {
    return synthetic_challenges(nodes, replica_id, comm_r, std::min(nodes, DEFAULT_COUNT));
}

uint64_t synthetic_challenges::challenge(uint64_t i) const {
    if (i >= count_)
        throw std::out_of_range("synthetic challenge " + std::to_string(i) + " of " + std::to_string(count_));
    auto block = chacha20_keystream(generation_key_, uint32_t(i >> 1), 1);
    return to_challenge(block.data() + 32 * (i & 1), nodes_);
}

std::vector<uint64_t> synthetic_challenges::partition_indexes(unsigned per_partition, const bytes32& seed,
                                                              unsigned k) const {
    constexpr uint64_t PER_BLOCK = 16;  // u32 indices per 64-byte block
    const uint64_t first = uint64_t(k) * per_partition;
    const uint64_t last = first + per_partition - 1;
    const uint64_t first_block = first / PER_BLOCK, last_block = last / PER_BLOCK;
    auto stream = chacha20_keystream(blake2b_keyed(SELECTION_KEY, replica_id_, seed), uint32_t(first_block),
                                     size_t(last_block - first_block + 1));
    std::vector<uint64_t> out;
    for (uint64_t j = first % PER_BLOCK; out.size() < per_partition; ++j) {
        const uint8_t* p = stream.data() + 4 * j;
        uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
        out.push_back(v % count_);
    }
    return out;
}

std::vector<uint64_t> synthetic_challenges::partition_challenges(unsigned per_partition, const bytes32& seed,
                                                                 unsigned k) const {
    std::vector<uint64_t> out;
    for (uint64_t i : partition_indexes(per_partition, seed, k)) out.push_back(challenge(i));
    return out;
}

}  // namespace cuzk::porep
