#include "common/post/official_params.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace cuzk::post {

std::string parameter_identifier(const registered_post_proof& proof) {
    return "FallbackPoSt::PublicParams{sector_size: " + std::to_string(proof.sector_size) +
           ", challenge_count: " + std::to_string(proof.circuit_challenges()) +
           ", sector_count: " + std::to_string(proof.circuit_sectors()) + "}";
}

std::string parameter_cache_prefix(const registered_post_proof& proof) {
    return "proof-of-spacetime-fallback-merkletree-poseidon_hasher-" + std::to_string(proof.tree.base) + "-" +
           std::to_string(proof.tree.sub) + "-" + std::to_string(proof.tree.top);
}

std::string official_params_stem(const registered_post_proof& proof) {
    const std::string id = parameter_identifier(proof);
    std::array<unsigned char, 32> digest{};
    if (EVP_Digest(id.data(), id.size(), digest.data(), nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("official_params_stem: OpenSSL SHA256 failed");
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "v28-" + parameter_cache_prefix(proof) + "-";
    for (unsigned char b : digest) {
        out.push_back(hex[b >> 4]);
        out.push_back(hex[b & 15]);
    }
    return out;
}

}  // namespace cuzk::post
