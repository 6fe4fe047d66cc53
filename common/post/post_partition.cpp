#include "common/post/post_partition.hpp"

#include <tbb/parallel_for.h>

#include "common/post/fallback_witness.hpp"
#include "common/post/public_inputs.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/post/vanilla_verify.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

post_partition_circuit partition_circuit_of(const registered_post_proof& proof, const bytes32& randomness,
                                            std::span<const fallback_sector_proof> proofs,
                                            std::span<const std::string> sources, bool verify) {
    check_randomness(randomness, std::string(proof.name));
    const std::string what(proof.name);
    if (proofs.empty()) throw input_error(what + ": no vanilla proofs");
    if (proofs.size() > proof.sector_count)
        throw input_error(what + ": " + std::to_string(proofs.size()) + " vanilla proofs; a partition proves " +
                          (proof.kind == post_kind::winning ? "exactly " : "at most ") +
                          std::to_string(proof.sector_count) + " sector" + (proof.sector_count == 1 ? "" : "s"));
    auto source = [&](size_t i) {
        return i < sources.size() ? sources[i] : "vanilla proof " + std::to_string(i);
    };
    for (size_t i = 1; i < proofs.size(); ++i)
        if (proofs[i].sector_id <= proofs[i - 1].sector_id)
            throw input_error(what + ": " + source(i) + " (sector " + std::to_string(proofs[i].sector_id) +
                              ") follows " + source(i - 1) + " (sector " + std::to_string(proofs[i - 1].sector_id) +
                              "): sectors are proved in ascending, unique order, as verifiers order them");
    const vanilla_shape shape = vanilla_shape_of(proof.sector_size, proof.challenge_count);
    if (verify) tbb::parallel_for(size_t(0), proofs.size(), [&](size_t i) {
        // Partition 0: a sector's index among all sectors is its position here.
        const auto leaves = vanilla_challenges(proof, randomness, proofs[i].sector_id, i);
        verify_sector_proof(proofs[i], shape, leaves, what + ": " + source(i));
    });
    const std::vector<public_sector> sectors = circuit_public_sectors(proof, public_sectors_of(proofs));
    return post_partition_circuit(proof, witness_of(proof, proofs), generate_public_inputs(proof, randomness, sectors, 0));
}

}  // namespace cuzk::post
