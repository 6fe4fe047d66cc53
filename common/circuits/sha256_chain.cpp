#include "common/circuits/sha256_chain.hpp"

#include <stdexcept>

#include "common/gadgets/multipack.hpp"
#include "common/gadgets/sha256.hpp"

namespace cuzk::circuits {

namespace {
uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
}  // namespace

sha256_chain::sha256_chain(size_t blocks, std::string seed) : seed_(std::move(seed)) {
    if (blocks == 0) throw std::invalid_argument("sha256 chain needs at least one block");
    uint64_t state = fnv1a64("cuzk-sha256-chain:" + seed_);
    blocks_.resize(blocks);
    for (auto& blk : blocks_)
        for (size_t w = 0; w < 8; ++w) {
            uint64_t x = splitmix64(state);
            for (size_t j = 0; j < 8; ++j) blk[8 * w + j] = uint8_t(x >> (8 * j));
        }
}

std::string sha256_chain::name() const {
    std::string n = "sha256:" + std::to_string(blocks_.size());
    if (!seed_.empty()) n += "@" + seed_;
    return n;
}

void sha256_chain::synthesize(cs::constraint_system& cs) const {
    gadgets::sha256_state state = gadgets::sha256_iv();
    std::vector<gadgets::boolean> bits(512);
    for (size_t k = 0; k < blocks_.size(); ++k) {
        cs::namespace_scope ns(cs, "block", k);
        {
            cs::namespace_scope nb(cs, "message bits");
            for (size_t i = 0; i < 512; ++i)
                bits[i] = gadgets::boolean::alloc(cs, (blocks_[k][i / 8] >> (7 - i % 8)) & 1);
        }
        state = gadgets::sha256_compression(cs, bits, state);
    }
    cs::namespace_scope ns(cs, "digest");
    gadgets::pack_into_inputs(cs, gadgets::sha256_state_bits(state));
}

std::array<uint8_t, 32> sha256_chain::native_digest() const {
    std::array<uint32_t, 8> state = gadgets::SHA256_IV;
    for (const auto& blk : blocks_) gadgets::sha256_compress_native(state, blk.data());
    return gadgets::sha256_state_bytes(state);
}

std::vector<ff::fr_t> sha256_chain::public_inputs() const {
    auto digest = native_digest();
    return gadgets::compute_multipacking(gadgets::bytes_to_bits(digest));
}

}  // namespace cuzk::circuits
