#include "common/update/official_params.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace cuzk::update {

std::string parameter_identifier(const update_shape& shape) {
    return "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(shape.nodes) + " }";
}

std::string parameter_cache_prefix(const update_shape& shape) {
    return "empty-sector-update-merkletree-poseidon_hasher-" + std::to_string(shape.tree_r.base) + "-" +
           std::to_string(shape.tree_r.sub) + "-" + std::to_string(shape.tree_r.top);
}

std::string official_params_stem(const update_shape& shape) {
    const std::string id = parameter_identifier(shape);
    std::array<unsigned char, 32> digest{};
    if (EVP_Digest(id.data(), id.size(), digest.data(), nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("official_params_stem: OpenSSL SHA256 failed");
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "v28-" + parameter_cache_prefix(shape) + "-";
    for (unsigned char b : digest) {
        out.push_back(hex[b >> 4]);
        out.push_back(hex[b & 15]);
    }
    return out;
}

}  // namespace cuzk::update
