// A native StackedDRG sealer for small sectors (tests and the test sealer): SDR labeling of every
// layer, trees D (SHA256 over the data), C (Poseidon over column hashes) and R (Poseidon over the
// replica = last layer + data), the commitments, and the per-challenge openings the partition
// circuit takes. Everything is held in memory: meant for 2 KiB .. a few MiB, not production sizes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/graph/stacked_graph.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace cuzk::porep {

// SHA256(replica_id LE || layer u32 BE || node u64 BE || 20 zero bytes || parent labels, 32 bytes
// each) with the top two bits of byte 31 cleared. Node 0 hashes no parents (vanilla create_label).
ff::fr_t create_label(const ff::fr_t& replica_id, uint32_t layer, uint64_t node, std::span<const ff::fr_t> parents);

// The 37 parent labels node |node|'s label in |layer| hashes, from labels[layer - 1][...] (DRG
// parents) and labels[layer - 2][...] (expander parents, from layer 2 on).
std::vector<ff::fr_t> expanded_parent_labels(const graph::stacked_graph& graph, uint64_t node, unsigned layer,
                                             const std::vector<std::vector<ff::fr_t>>& labels);

struct sealed_sector {
    uint64_t nodes = 0;
    unsigned layers = 0;
    ff::fr_t replica_id;
    std::vector<ff::fr_t> data;                 // the unsealed data, one element per node
    std::vector<std::vector<ff::fr_t>> labels;  // labels[layer - 1][node]
    merkle::merkle_tree tree_d, tree_c, tree_r;
    ff::fr_t comm_d, comm_c, comm_r_last, comm_r;

    std::vector<ff::fr_t> column(uint64_t node) const;
};

// Seals |data| (graph.nodes() elements) with |layers| layers; trees C and R take |tree|'s arities.
sealed_sector seal_sector(const graph::stacked_graph& graph, unsigned layers, const tree_shape& tree,
                          const ff::fr_t& replica_id, std::vector<ff::fr_t> data);

// The circuit witness of one partition for these challenges (each in [1, nodes)).
partition_witness make_partition_witness(const sealed_sector& sector, const graph::stacked_graph& graph,
                                         std::span<const uint64_t> challenges);

}  // namespace cuzk::porep
