// The StackedDRG layer graph: 6 DRG parents (bucket_graph, same layer) then 8 expander parents
// (previous layer), 14 in all, in the order labeling hashes them and C1 lists them. Expander parent
// i of node v is feistel_permute(8 n, 8 v + i) / 8, keys from SHA256("Filecoin_Feistel" || porep_id)
// as four u64 LE; V1_0 truncates the permuted index to 32 bits before dividing.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/graph/bucket_graph.hpp"
#include "common/graph/feistel.hpp"

namespace cuzk::graph {

inline constexpr size_t expansion_degree = 8;
inline constexpr size_t stacked_degree = drg_degree + expansion_degree;

feistel_keys derive_feistel_keys(const porep_id_t& porep_id);

class stacked_graph {
public:
    stacked_graph(uint64_t nodes, const porep_id_t& porep_id, api_version version);

    uint64_t nodes() const { return base_.nodes(); }
    const bucket_graph& base() const { return base_; }

    void base_parents(uint64_t node, std::span<uint32_t, drg_degree> out) const { base_.parents(node, out); }
    void expanded_parents(uint64_t node, std::span<uint32_t, expansion_degree> out) const;
    // DRG parents then expander parents.
    void parents(uint64_t node, std::span<uint32_t, stacked_degree> out) const;

private:
    bucket_graph base_;
    feistel_keys keys_;
    feistel_params feistel_;
    api_version version_;
};

}  // namespace cuzk::graph
