#include "common/graph/stacked_graph.hpp"

namespace cuzk::graph {

feistel_keys derive_feistel_keys(const porep_id_t& porep_id) {
    auto seed = derive_porep_domain_seed(feistel_tag, porep_id);
    feistel_keys keys{};
    for (size_t k = 0; k < keys.size(); ++k) {
        for (size_t i = 0; i < 8; ++i) keys[k] |= uint64_t(seed[8 * k + i]) << (8 * i);
    }
    return keys;
}

stacked_graph::stacked_graph(uint64_t nodes, const porep_id_t& porep_id, api_version version)
    : base_(nodes, porep_id, version),
      keys_(derive_feistel_keys(porep_id)),
      feistel_(feistel_precompute(nodes * expansion_degree)),
      version_(version) {}

void stacked_graph::expanded_parents(uint64_t node, std::span<uint32_t, expansion_degree> out) const {
    const uint64_t n = nodes() * expansion_degree;
    for (size_t i = 0; i < expansion_degree; ++i) {
        uint64_t t = feistel_permute(n, node * expansion_degree + i, keys_, feistel_);
        // V1_0 keeps the low 32 bits of the permuted index (the truncation bug of the first release).
        if (version_ == api_version::v1_0) t = uint32_t(t);
        out[i] = uint32_t(t / expansion_degree);
    }
}

void stacked_graph::parents(uint64_t node, std::span<uint32_t, stacked_degree> out) const {
    base_.parents(node, out.first<drg_degree>());
    expanded_parents(node, out.last<expansion_degree>());
}

}  // namespace cuzk::graph
