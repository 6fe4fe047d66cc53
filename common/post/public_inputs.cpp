#include "common/post/public_inputs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/util/errors.hpp"

namespace cuzk::post {

std::vector<public_sector> circuit_public_sectors(const registered_post_proof& proof,
                                                  std::span<const public_sector> sectors) {
    if (sectors.empty()) throw input_error(std::string(proof.name) + ": no sectors");
    if (proof.kind == post_kind::window) return {sectors.begin(), sectors.end()};
    if (sectors.size() != proof.sector_count)
        throw input_error(std::string(proof.name) + ": " + std::to_string(sectors.size()) +
                          " sectors; a WinningPoSt proves exactly " + std::to_string(proof.sector_count));
    std::vector<public_sector> out;
    out.reserve(proof.circuit_sectors());
    for (unsigned i = 0; i < proof.circuit_sectors(); ++i) out.insert(out.end(), sectors.begin(), sectors.end());
    return out;
}

std::vector<ff::fr_t> generate_public_inputs(const registered_post_proof& proof, graph::api_version version,
                                             const bytes32& randomness, std::span<const public_sector> sectors,
                                             unsigned partition) {
    const uint64_t slots = proof.circuit_sectors();
    const uint64_t challenges = proof.circuit_challenges();
    const uint64_t first = uint64_t(partition) * slots;
    if (first >= sectors.size())
        throw std::invalid_argument("PoSt public inputs: partition " + std::to_string(partition) + " of " +
                                    std::to_string(sectors.size()) + " sectors (" + std::to_string(slots) +
                                    " per partition)");
    const uint64_t here = std::min<uint64_t>(slots, sectors.size() - first);
    std::vector<ff::fr_t> inputs;
    inputs.reserve(proof.public_inputs_per_partition());
    for (uint64_t i = 0; i < here; ++i) {
        const public_sector& s = sectors[first + i];
        inputs.push_back(s.comm_r);
        for (uint64_t n = 0; n < challenges; ++n) {
            const uint64_t index = challenge_index(version, first + i, challenges, n);
            // The leaf index is below 2^31, so its packed path bits are one element equal to it.
            inputs.push_back(ff::fr_t::from_u64(leaf_challenge(randomness, s.id, index, proof.nodes)));
        }
    }
    const size_t per_sector = size_t(1 + challenges);
    while (inputs.size() < proof.public_inputs_per_partition()) {
        const size_t last = inputs.size() - per_sector;
        for (size_t j = 0; j < per_sector; ++j) inputs.push_back(inputs[last + j]);
    }
    return inputs;
}

std::vector<ff::fr_t> generate_public_inputs(const registered_post_proof& proof, const bytes32& randomness,
                                             std::span<const public_sector> sectors, unsigned partition) {
    return generate_public_inputs(proof, proof.version, randomness, sectors, partition);
}

}  // namespace cuzk::post
