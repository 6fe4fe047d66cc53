#include "daemon/request_digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

namespace cuzk::daemon {

namespace {
EVP_MD_CTX* context(void* p) { return static_cast<EVP_MD_CTX*>(p); }

void update(void* ctx, const void* data, std::size_t size) {
    if (EVP_DigestUpdate(context(ctx), data, size) != 1) throw std::runtime_error("request digest: SHA-256 failed");
}
}  // namespace

request_digest::request_digest() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(context(ctx_), EVP_sha256(), nullptr) != 1) {
        EVP_MD_CTX_free(context(ctx_));
        throw std::runtime_error("request digest: cannot start SHA-256");
    }
}

request_digest::~request_digest() { EVP_MD_CTX_free(context(ctx_)); }

request_digest& request_digest::add(std::string_view part) {
    add(static_cast<std::uint64_t>(part.size()));
    update(ctx_, part.data(), part.size());
    return *this;
}

request_digest& request_digest::add(std::uint64_t number) {
    std::array<unsigned char, 8> le{};
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(number >> (8 * i));
    update(ctx_, le.data(), le.size());
    return *this;
}

std::string request_digest::hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(context(ctx_), md.data(), &size) != 1) throw std::runtime_error("request digest: SHA-256 failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < size; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

}  // namespace cuzk::daemon
