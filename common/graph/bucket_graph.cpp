#include "common/graph/bucket_graph.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "common/graph/chacha_rng.hpp"

namespace cuzk::graph {

bucket_graph::bucket_graph(uint64_t nodes, const porep_id_t& porep_id, api_version version)
    : nodes_(nodes), version_(version) {
    if (nodes == 0 || nodes > (uint64_t(1) << 32)) throw std::invalid_argument("bucket_graph: node count out of range");
    auto full = derive_porep_domain_seed(drsample_tag, porep_id);
    std::copy_n(full.begin(), seed_.size(), seed_.begin());
}

void bucket_graph::parents(uint64_t node, std::span<uint32_t, drg_degree> out) const {
    if (node < 2) {
        std::fill(out.begin(), out.end(), 0u);
        return;
    }
    const uint32_t v = uint32_t(node);
    std::array<uint8_t, 32> seed{};
    std::copy(seed_.begin(), seed_.end(), seed.begin());
    for (size_t i = 0; i < 4; ++i) seed[28 + i] = uint8_t(v >> (8 * i));
    chacha_rng rng = chacha8_rng(seed);

    constexpr uint64_t m_prime = drg_degree - 1;
    const uint64_t meta = uint64_t(v) * m_prime;
    // ceil(log2(meta)) exactly; rust-fil-proofs computes it in f64, which is exact for meta < 2^53.
    const uint64_t buckets = uint64_t(std::bit_width(meta - 1));

    // V1_0 appends the predecessor after the sampled parents; later versions put it first.
    const bool legacy = version_ == api_version::v1_0;
    const size_t first = legacy ? 0 : 1;
    for (size_t k = 0; k < m_prime; ++k) {
        uint64_t bucket = rng.next_u64() % buckets + 1;
        uint64_t largest = std::min(meta, uint64_t(1) << bucket);
        uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
        uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
        uint32_t mapped = uint32_t((meta - distance) / m_prime);
        out[first + k] = mapped == v ? v - 1 : mapped;
    }
    out[legacy ? m_prime : 0] = v - 1;
}

}  // namespace cuzk::graph
