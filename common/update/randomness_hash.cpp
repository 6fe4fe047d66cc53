#include "common/update/randomness_hash.hpp"

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "common/poseidon/poseidon.hpp"

namespace cuzk::update {

const poseidon::poseidon_constants& gen_randomness_constants() {
    static std::once_flag once;
    static std::unique_ptr<const poseidon::poseidon_constants> set;
    std::call_once(once, [] {
        poseidon::poseidon_constants c = poseidon::make_constants(2, poseidon::strength::standard);
        // neptune HashType::Custom(CType::Arbitrary(id)).domain_tag() = id << 40; only the tag differs from
        // the Merkle-tree set.
        c.domain_tag = ff::fr_t::from_u64(uint64_t(1) << 40);
        set = std::make_unique<const poseidon::poseidon_constants>(std::move(c));
    });
    return *set;
}

ff::fr_t gen_randomness_hash(const ff::fr_t& a, const ff::fr_t& b) {
    const ff::fr_t preimage[2] = {a, b};
    return poseidon::hash(gen_randomness_constants(), preimage);
}

ff::fr_t phi(const ff::fr_t& comm_d_new, const ff::fr_t& comm_r_old) {
    return gen_randomness_hash(comm_d_new, comm_r_old);
}

ff::fr_t rho(const ff::fr_t& phi, uint64_t high) { return gen_randomness_hash(phi, ff::fr_t::from_u64(high)); }

uint64_t challenge_high(const update_shape& shape, uint64_t node, unsigned h) {
    return node >> (shape.challenge_bit_len - h);
}

ff::fr_t challenge_digest(const update_shape& shape, const ff::fr_t& comm_r_new, unsigned k, unsigned j) {
    const uint64_t digest_index = uint64_t(k) * shape.digests_per_partition() + j;
    return gen_randomness_hash(comm_r_new, ff::fr_t::from_u64(digest_index));
}

std::vector<uint64_t> partition_challenges(const update_shape& shape, const ff::fr_t& comm_r_new, unsigned k) {
    if (k >= shape.partition_count)
        throw std::invalid_argument("SnapDeals challenges: partition " + std::to_string(k) + " of " +
                                    std::to_string(shape.partition_count));
    const unsigned bits = shape.random_bits_per_challenge();
    const unsigned per_digest = shape.challenges_per_digest();
    const uint64_t partition_bits = uint64_t(k) << bits;
    std::vector<uint64_t> out;
    out.reserve(shape.challenge_count);
    for (unsigned j = 0; out.size() < shape.challenge_count; ++j) {
        const auto digest = challenge_digest(shape, comm_r_new, k, j).to_canonical();
        for (unsigned i = 0; i < per_digest && out.size() < shape.challenge_count; ++i) {
            uint64_t c = 0;
            // Chunk i is bits [i * bits, (i + 1) * bits) of the digest, least significant first; it never
            // reaches bit 254 (per_digest * bits <= 254).
            for (unsigned b = 0; b < bits; ++b) {
                const unsigned bit = i * bits + b;
                c |= ((digest[bit / 64] >> (bit % 64)) & 1) << b;
            }
            out.push_back(c | partition_bits);
        }
    }
    return out;
}

}  // namespace cuzk::update
