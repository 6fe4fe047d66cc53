#include "common/porep/synthetic_c1.hpp"

#include <openssl/evp.h>

#include <array>
#include <random>
#include <stdexcept>
#include <string>

#include "common/porep/public_inputs.hpp"
#include "common/porep/stacked_circuit.hpp"
#include "common/poseidon/poseidon.hpp"

namespace cuzk::porep {

namespace {

c1::domain_t bytes_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

class synthetic_source {
public:
    explicit synthetic_source(std::string_view seed_text) {
        if (EVP_Digest(seed_text.data(), seed_text.size(), key_.data(), nullptr, EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("synthetic C1: OpenSSL SHA256 failed");
        std::seed_seq seq(key_.begin(), key_.end());
        rng_.seed(seq);
    }

    // A 254-bit value fixed by (kind, layer, node): the same node always gets the same label.
    ff::fr_t value(uint8_t kind, uint32_t layer, uint64_t node) const {
        uint8_t msg[32 + 13];
        std::copy(key_.begin(), key_.end(), msg);
        msg[32] = kind;
        for (int i = 0; i < 4; ++i) msg[33 + i] = uint8_t(layer >> (8 * i));
        for (int i = 0; i < 8; ++i) msg[37 + i] = uint8_t(node >> (8 * i));
        uint8_t d[32];
        if (EVP_Digest(msg, sizeof msg, d, nullptr, EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("synthetic C1: OpenSSL SHA256 failed");
        d[31] &= 0x3F;
        ff::fr_t out;
        ff::fr_t::from_bytes_le(d, out);
        return out;
    }
    ff::fr_t label(uint32_t layer, uint64_t node) const { return value(1, layer, node); }
    ff::fr_t data(uint64_t node) const { return value(2, 0, node); }
    ff::fr_t random() { return ff::fr_t::random(rng_); }
    std::array<uint8_t, 32> random_bytes() {
        std::array<uint8_t, 32> b{};
        for (auto& x : b) x = uint8_t(rng_());
        return b;
    }

private:
    std::array<uint8_t, 32> key_{};
    std::mt19937_64 rng_;
};

// A proof of |leaf| at |index| with random siblings under |root|, split into base / sub / top paths.
c1::merkle_proof random_proof(synthetic_source& src, const gadgets::merkle_arities& shape, uint64_t index,
                              const ff::fr_t& leaf, const ff::fr_t& root) {
    c1::merkle_proof p;
    p.root = bytes_of(root);
    p.leaf = bytes_of(leaf);
    p.kind = shape.top ? c1::merkle_proof_kind::top : shape.sub ? c1::merkle_proof_kind::sub : c1::merkle_proof_kind::single;
    for (size_t l = 0; l < shape.levels(); ++l) {
        const unsigned arity = shape.arity_of_level(l);
        c1::path_element e;
        e.index = index % arity;
        index /= arity;
        for (unsigned i = 0; i + 1 < arity; ++i) e.hashes.push_back(bytes_of(src.random()));
        (l < shape.base_levels ? p.base_path : l == shape.base_levels && shape.sub ? p.sub_path : p.top_path)
            .push_back(std::move(e));
    }
    return p;
}

}  // namespace

c1::seal_commit_phase1_output make_synthetic_c1(const registered_proof& proof, std::string_view seed_text) {
    synthetic_source src(seed_text);
    const auto shape = stacked_circuit_shape::of(proof);
    const gadgets::merkle_arities tree_d{2, shape.tree_d_levels, 0, 0};
    const auto graph = graph_of(proof);
    const auto& column_constants = poseidon::constants_for(proof.layers);

    c1::seal_commit_phase1_output c1;
    c1.registered_proof = std::string(proof.name);
    std::string variant(proof.name);
    variant.resize(variant.find("V1") + 2);
    c1.vanilla_variant = variant;
    const ff::fr_t comm_d = src.random(), comm_c = src.random(), comm_r_last = src.random();
    seal_public_inputs pub{src.random(), comm_d, poseidon::hash2(comm_c, comm_r_last), src.random_bytes()};
    c1.replica_id = bytes_of(pub.replica_id);
    c1.comm_d = bytes_of(comm_d);
    c1.comm_r = bytes_of(pub.comm_r);
    c1.seed = pub.seed;
    c1.ticket = src.random_bytes();

    auto column_proof_of = [&](uint64_t node) {
        c1::column_proof cp;
        cp.col.index = uint32_t(node);
        std::vector<ff::fr_t> rows;
        for (unsigned l = 1; l <= proof.layers; ++l) rows.push_back(src.label(l, node));
        for (const ff::fr_t& r : rows) cp.col.rows.push_back(bytes_of(r));
        cp.inclusion = random_proof(src, shape.tree_c, node, poseidon::hash(column_constants, rows), comm_c);
        return cp;
    };
    std::array<uint32_t, graph::stacked_degree> parents{};
    for (unsigned k = 0; k < proof.partitions; ++k) {
        std::vector<c1::challenge_proof> partition;
        for (uint64_t c : partition_challenges(proof, pub, k)) {
            c1::challenge_proof p;
            p.comm_d_proof = random_proof(src, tree_d, c, src.data(c), comm_d);
            p.comm_r_last_proof =
                random_proof(src, shape.tree_c, c, src.label(proof.layers, c) + src.data(c), comm_r_last);
            p.replica_columns.c_x = column_proof_of(c);
            graph.parents(c, parents);
            for (size_t i = 0; i < graph::stacked_degree; ++i)
                (i < graph::drg_degree ? p.replica_columns.drg_parents : p.replica_columns.exp_parents)
                    .push_back(column_proof_of(parents[i]));
            for (unsigned layer = 1; layer <= proof.layers; ++layer) {
                std::vector<ff::fr_t> distinct;
                for (size_t i = 0; i < graph::drg_degree; ++i) distinct.push_back(src.label(layer, parents[i]));
                if (layer > 1)
                    for (size_t i = graph::drg_degree; i < graph::stacked_degree; ++i)
                        distinct.push_back(src.label(layer - 1, parents[i]));
                c1::labeling_proof lp;
                lp.layer_index = layer;
                lp.node = c;
                for (size_t i = 0; lp.parents.size() < 37; ++i) lp.parents.push_back(bytes_of(distinct[i % distinct.size()]));
                p.labeling_proofs.push_back(lp);
                if (layer == proof.layers) p.encoding_proof = lp;
            }
            partition.push_back(std::move(p));
        }
        c1.partitions.push_back(std::move(partition));
    }
    return c1;
}

}  // namespace cuzk::porep
