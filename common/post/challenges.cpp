#include "common/post/challenges.hpp"

#include <openssl/evp.h>

#include <stdexcept>
#include <string>

#include "common/ff/bls12_381.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

void append_le64(uint8_t* out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(v >> (8 * i));
}

}  // namespace

uint64_t challenge_index(graph::api_version version, uint64_t sector_index, uint64_t challenges_per_sector,
                         uint64_t n) {
    return version == graph::api_version::v1_2 ? n : sector_index * challenges_per_sector + n;
}

uint64_t leaf_challenge(const bytes32& randomness, uint64_t sector_id, uint64_t challenge_index, uint64_t leaves) {
    if (leaves == 0) throw std::invalid_argument("leaf_challenge: a tree of no leaves");
    uint8_t msg[48];
    for (size_t i = 0; i < 32; ++i) msg[i] = randomness[i];
    append_le64(msg + 32, sector_id);
    append_le64(msg + 40, challenge_index);
    uint8_t digest[32];
    if (EVP_Digest(msg, sizeof msg, digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("leaf_challenge: OpenSSL SHA256 failed");
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | digest[i];
    return v % leaves;
}

std::vector<uint64_t> sector_challenges(graph::api_version version, const bytes32& randomness, uint64_t sector_id,
                                        uint64_t sector_index, uint64_t challenges_per_sector, uint64_t leaves) {
    std::vector<uint64_t> out;
    out.reserve(challenges_per_sector);
    for (uint64_t n = 0; n < challenges_per_sector; ++n)
        out.push_back(leaf_challenge(randomness, sector_id, challenge_index(version, sector_index, challenges_per_sector, n),
                                     leaves));
    return out;
}

std::vector<uint64_t> vanilla_challenges(const registered_post_proof& proof, const bytes32& randomness,
                                         uint64_t sector_id, uint64_t sector_index) {
    return vanilla_challenges(proof, proof.version, randomness, sector_id, sector_index);
}

std::vector<uint64_t> vanilla_challenges(const registered_post_proof& proof, graph::api_version version,
                                         const bytes32& randomness, uint64_t sector_id, uint64_t sector_index) {
    return sector_challenges(version, randomness, sector_id, sector_index, proof.challenge_count, proof.nodes);
}

void check_randomness(const bytes32& randomness, std::string_view what) {
    ff::fr_t x;
    if (!ff::fr_t::from_bytes_le(randomness.data(), x))
        throw input_error(std::string(what) +
                          ": the randomness is not a canonical field element (its little-endian value is >= r; "
                          "Curio clears the top two bits of byte 31)");
}

}  // namespace cuzk::post
