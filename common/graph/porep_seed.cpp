#include "common/graph/porep_seed.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace cuzk::graph {

std::array<uint8_t, 32> derive_porep_domain_seed(std::string_view tag, const porep_id_t& porep_id) {
    std::array<uint8_t, 32> out{};
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1 &&
              EVP_DigestUpdate(ctx, tag.data(), tag.size()) == 1 &&
              EVP_DigestUpdate(ctx, porep_id.data(), porep_id.size()) == 1 &&
              EVP_DigestFinal_ex(ctx, out.data(), nullptr) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) throw std::runtime_error("derive_porep_domain_seed: SHA256 failed in OpenSSL");
    return out;
}

porep_id_t porep_id_of(uint64_t registered_proof_id, uint64_t nonce) {
    porep_id_t id{};
    for (size_t i = 0; i < 8; ++i) {
        id[i] = uint8_t(registered_proof_id >> (8 * i));
        id[8 + i] = uint8_t(nonce >> (8 * i));
    }
    return id;
}

}  // namespace cuzk::graph
