#include "common/update/update_circuit.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <stdexcept>

#include "common/update/public_inputs.hpp"
#include "common/update/update_witness.hpp"
#include "common/update/vanilla_shape.hpp"
#include "common/update/vanilla_verify.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

update_partition_circuit::update_partition_circuit(const registered_update_proof& proof)
    : update_partition_circuit(proof.shape(), "update:" + std::string(proof.name)) {}

update_partition_circuit::update_partition_circuit(const registered_update_proof& proof,
                                                   update_partition_witness witness)
    : update_partition_circuit(proof.shape(), "update:" + std::string(proof.name), std::move(witness)) {}

update_partition_circuit::update_partition_circuit(const update_shape& shape, std::string name,
                                                   std::optional<update_partition_witness> witness)
    : shape_(shape), name_(std::move(name)), witness_(std::move(witness)) {
    if (witness_)
        public_inputs_ = generate_public_inputs(shape_, witness_->k, witness_->h, witness_->comm_r_old,
                                                witness_->comm_d_new, witness_->comm_r_new);
}

void update_partition_circuit::synthesize(cs::constraint_system& cs) const {
    if (cs.has_witness() && !witness_)
        throw std::invalid_argument(name() + ": the blank circuit has no witness to prove with");
    synthesize_empty_sector_update(cs, shape_, witness_ ? &*witness_ : nullptr);
}

std::vector<update_partition_circuit> partition_circuits_of(const registered_update_proof& proof,
                                                            std::span<const partition_proof> partitions,
                                                            const update_commitments& pub,
                                                            std::span<const std::string> sources, bool verify) {
    const update_shape shape = proof.shape();
    const update_vanilla_shape vshape = update_vanilla_shape_of(proof.nodes());
    if (partitions.size() != shape.partition_count)
        throw input_error(fmt::format("{}: {} partition proofs; a sector of {} nodes has {} partitions, one vanilla "
                                      "proof each, in partition order",
                                      proof.name, partitions.size(), shape.nodes, shape.partition_count));
    auto source = [&](size_t k) {
        return k < sources.size() ? fmt::format("{}: {}", proof.name, sources[k])
                                  : fmt::format("{}: vanilla proof {}", proof.name, k);
    };
    (void)shape.h_select(pub.h);  // once, before the partitions' threads
    if (verify) {
        std::vector<update_roots> roots(partitions.size());
        // About 70 ms per 32 GiB partition on one core (vanilla_verify.hpp): the partitions in parallel.
        tbb::parallel_for(size_t(0), partitions.size(), [&](size_t k) {
            roots[k] = verify_partition_proof(partitions[k], vshape, k, source(k));
            check_partition_encoding(partitions[k], shape, unsigned(k), pub, source(k));
        });
        for (size_t k = 1; k < roots.size(); ++k)
            if (roots[k] != roots[0])  // implied by the encoding checks but for a Poseidon collision: named anyway
                throw input_error(fmt::format("{}: partition {}: its comm_c and tree roots differ from those of {} "
                                              "(partition 0); the partitions of one update share them",
                                              source(k), k, source(0)));
    }
    std::vector<update_partition_circuit> out;
    out.reserve(partitions.size());
    for (size_t k = 0; k < partitions.size(); ++k)
        out.emplace_back(proof, partition_witness_of(shape, partitions[k], unsigned(k), pub, source(k)));
    return out;
}

}  // namespace cuzk::update
