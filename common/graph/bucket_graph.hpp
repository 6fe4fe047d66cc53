// The DRG of StackedDRG: DRSample bucket sampling (storage-proofs-core BucketGraph), degree 6.
// Node v >= 2 gets its predecessor v - 1 and 5 parents drawn by ChaCha8 seeded with
// (SHA256("Filecoin_DRSample" || porep_id)[0..28] || v as u32 LE): on the metagraph of 5 copies per
// node, a bucket b in 1..ceil(log2(5v)) and a distance in [max(2, min(5v, 2^b) / 2), min(5v, 2^b)]
// pick the metagraph parent 5v - distance, mapped back by dividing by 5 (the node itself becomes
// v - 1). Nodes 0 and 1 have all parents 0.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/graph/api_version.hpp"
#include "common/graph/porep_seed.hpp"

namespace cuzk::graph {

inline constexpr size_t drg_degree = 6;

class bucket_graph {
public:
    // Throws std::invalid_argument when |nodes| is 0 or above 2^32.
    bucket_graph(uint64_t nodes, const porep_id_t& porep_id, api_version version);

    uint64_t nodes() const { return nodes_; }
    // The 6 parents of |node| in the order the labeling hashes them.
    void parents(uint64_t node, std::span<uint32_t, drg_degree> out) const;

private:
    uint64_t nodes_;
    std::array<uint8_t, 28> seed_{};
    api_version version_;
};

}  // namespace cuzk::graph
