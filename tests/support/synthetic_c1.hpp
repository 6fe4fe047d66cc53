// A self-consistent synthetic C1 for tests and benchmarks: columns hash (Poseidon) to their tree C
// leaves, all proofs of a tree share its root, comm_r = Poseidon(comm_c, comm_r_last), indices agree.
// Merkle sibling hashes are random (check_consistency does not walk paths), so it is not a valid seal.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/poseidon/poseidon.hpp"

namespace cuzk::test {

struct c1_shape {
    std::string registered_proof = "StackedDrg4KiBV1_1";
    size_t layers = 2;
    size_t tree_d_levels = 7;   // binary: nodes = 2^levels
    size_t base_levels = 2;     // trees C and R: base arity 8
    size_t sub_arity = 2;       // 0: Single proofs
    size_t top_arity = 0;       // 0: no top level
    uint64_t nodes() const { return uint64_t(1) << tree_d_levels; }

    // StackedDrg32GiBV1_1: 11 layers, 2^30 nodes, trees C/R of 8 sub-trees of base arity 8.
    static c1_shape porep_32gib() { return {"StackedDrg32GiBV1_1", 11, 30, 9, 8, 0}; }
};

class synthetic_c1 {
public:
    explicit synthetic_c1(uint64_t seed, c1_shape shape = {}) : shape_(std::move(shape)), rng_(seed) {}

    c1::domain_t random_field() {
        ff::fr_t x = ff::fr_t::from_u64(rng_()) * ff::fr_t::from_u64(rng_()) + ff::fr_t::from_u64(rng_());
        c1::domain_t d{};
        x.to_bytes_le(d.data());
        return d;
    }

    // A path for |leaf| in a tree of |levels| levels of |arity|, with random sibling hashes.
    std::vector<c1::path_element> path(uint64_t leaf, size_t levels, size_t arity) {
        std::vector<c1::path_element> p(levels);
        for (auto& e : p) {
            for (size_t i = 0; i + 1 < arity; ++i) e.hashes.push_back(random_field());
            e.index = leaf % arity;
            leaf /= arity;
        }
        return p;
    }

    // An opening of |leaf| in tree C or R (base arity 8, then the sub and top levels of the shape).
    c1::merkle_proof oct_proof(uint64_t leaf, const c1::domain_t& root, const c1::domain_t& value) {
        c1::merkle_proof p;
        p.root = root;
        p.leaf = value;
        uint64_t base_leaves = uint64_t(1) << (3 * shape_.base_levels);
        p.base_path = path(leaf % base_leaves, shape_.base_levels, 8);
        uint64_t rest = leaf / base_leaves;
        if (shape_.sub_arity == 0) {
            p.kind = c1::merkle_proof_kind::single;
            return p;
        }
        p.kind = shape_.top_arity ? c1::merkle_proof_kind::top : c1::merkle_proof_kind::sub;
        p.sub_path = path(rest % shape_.sub_arity, 1, shape_.sub_arity);
        if (shape_.top_arity) p.top_path = path(rest / shape_.sub_arity, 1, shape_.top_arity);
        return p;
    }

    c1::column_proof column(uint32_t node) {
        c1::column_proof cp;
        cp.col.index = node;
        std::vector<ff::fr_t> rows;
        for (size_t l = 0; l < shape_.layers; ++l) {
            cp.col.rows.push_back(random_field());
            ff::fr_t x;
            ff::fr_t::from_bytes_le(cp.col.rows.back().data(), x);
            rows.push_back(x);
        }
        c1::domain_t leaf{};
        poseidon::hash(rows).to_bytes_le(leaf.data());
        cp.inclusion = oct_proof(node, comm_c, leaf);
        return cp;
    }

    // 37 parent labels: |distinct| random labels repeated cyclically, as the vanilla prover lists them.
    c1::labeling_proof labeling(uint32_t layer, uint64_t node, size_t distinct) {
        c1::labeling_proof lp;
        lp.layer_index = layer;
        lp.node = node;
        for (size_t i = 0; i < distinct; ++i) lp.parents.push_back(random_field());
        for (size_t i = distinct; i < 37; ++i) lp.parents.push_back(lp.parents[i % distinct]);
        return lp;
    }

    uint32_t random_node() { return uint32_t(1 + rng_() % (shape_.nodes() - 1)); }

    c1::challenge_proof challenge(uint32_t node) {
        c1::challenge_proof cp;
        cp.comm_d_proof.kind = c1::merkle_proof_kind::single;
        cp.comm_d_proof.root = comm_d;
        cp.comm_d_proof.leaf = random_field();
        cp.comm_d_proof.base_path = path(node, shape_.tree_d_levels, 2);
        cp.comm_r_last_proof = oct_proof(node, comm_r_last, random_field());
        cp.replica_columns.c_x = column(node);
        for (int j = 0; j < 6; ++j) cp.replica_columns.drg_parents.push_back(column(random_node()));
        for (int j = 0; j < 8; ++j) cp.replica_columns.exp_parents.push_back(column(random_node()));
        for (uint32_t l = 1; l <= shape_.layers; ++l) cp.labeling_proofs.push_back(labeling(l, node, l == 1 ? 6 : 14));
        cp.encoding_proof = labeling(uint32_t(shape_.layers), node, 14);
        return cp;
    }

    c1::seal_commit_phase1_output make(size_t partitions, size_t challenges) {
        c1::seal_commit_phase1_output out;
        out.registered_proof = shape_.registered_proof;
        out.vanilla_variant = shape_.registered_proof.substr(0, shape_.registered_proof.rfind('V')) + "V1";
        comm_c = random_field();
        comm_r_last = random_field();
        comm_d = random_field();
        ff::fr_t c, r;
        ff::fr_t::from_bytes_le(comm_c.data(), c);
        ff::fr_t::from_bytes_le(comm_r_last.data(), r);
        poseidon::hash2(c, r).to_bytes_le(out.comm_r.data());
        out.comm_d = comm_d;
        out.replica_id = random_field();
        out.seed = random_field();
        out.ticket = random_field();
        for (size_t k = 0; k < partitions; ++k) {
            std::vector<c1::challenge_proof> part;
            for (size_t i = 0; i < challenges; ++i) part.push_back(challenge(random_node()));
            out.partitions.push_back(std::move(part));
        }
        return out;
    }

    c1::domain_t comm_c{}, comm_r_last{}, comm_d{};

private:
    c1_shape shape_;
    std::mt19937_64 rng_;
};

}  // namespace cuzk::test
