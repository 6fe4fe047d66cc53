#include "common/update/vanilla_bincode.hpp"

#include <fmt/format.h>

#include <string>

#include "common/bincode/merkle_proof_bincode.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

partition_proof decode_partition_proof(std::span<const uint8_t> bytes, const update_vanilla_shape& shape,
                                       uint64_t partition, std::string_view source) {
    bincode::reader in(bytes, source);
    bincode::reader::context_scope where(in, fmt::format("partition {}", partition));
    partition_proof p;
    p.comm_c = in.domain("comm_c");
    in.length("apex_leafs length", shape.apex_leaves);
    p.apex_leafs.resize(shape.apex_leaves);
    for (unsigned i = 0; i < shape.apex_leaves; ++i) p.apex_leafs[i] = in.domain(fmt::format("apex_leafs[{}]", i));
    in.length("challenge_proofs length", shape.challenges);
    p.challenge_proofs.resize(shape.challenges);
    {
        bincode::reader::context_scope challenge(in, "");
        bincode::reader::context_scope opening(in, "");
        for (unsigned c = 0; c < shape.challenges; ++c) {
            challenge.set(fmt::format("challenge {}", c));
            challenge_proof& cp = p.challenge_proofs[c];
            opening.set("proof_r_old");
            cp.proof_r_old = bincode::read_merkle_proof(in, shape.tree_r, "tree R");
            opening.set("proof_d_new");
            cp.proof_d_new = bincode::read_merkle_proof(in, shape.tree_d, "tree D");
            opening.set("proof_r_new");
            cp.proof_r_new = bincode::read_merkle_proof(in, shape.tree_r, "tree R");
        }
    }
    in.finish("end of the partition proof");
    return p;
}

std::vector<uint8_t> encode_partition_proof(const partition_proof& proof) {
    std::vector<uint8_t> out;
    bincode::writer w(out);
    w.domain(proof.comm_c);
    w.u64(proof.apex_leafs.size());
    for (const domain_t& d : proof.apex_leafs) w.domain(d);
    w.u64(proof.challenge_proofs.size());
    for (const challenge_proof& cp : proof.challenge_proofs) {
        bincode::write_merkle_proof(w, cp.proof_r_old);
        bincode::write_merkle_proof(w, cp.proof_d_new);
        bincode::write_merkle_proof(w, cp.proof_r_new);
    }
    return out;
}

std::vector<partition_proof> decode_update_proofs(std::span<const std::span<const uint8_t>> partitions,
                                                  const update_vanilla_shape& shape, std::string_view source) {
    if (partitions.size() != shape.partitions)
        throw input_error(fmt::format("{}s: {} partition proofs; a sector of {} nodes has {} partitions", source,
                                      partitions.size(), shape.sector_nodes, shape.partitions));
    std::vector<partition_proof> out;
    out.reserve(partitions.size());
    for (size_t k = 0; k < partitions.size(); ++k)
        out.push_back(decode_partition_proof(partitions[k], shape, k, source));
    return out;
}

}  // namespace cuzk::update
