#include "common/porep/c1_witness.hpp"

#include <string>

#include "common/util/errors.hpp"

namespace cuzk::porep {

namespace {

ff::fr_t fr_of(const c1::domain_t& d, const std::string& path) {
    ff::fr_t out;
    if (!ff::fr_t::from_bytes_le(d.data(), out))
        throw input_error("C1 " + path + ": not a field element (the little-endian value is >= r)");
    return out;
}

c1::domain_t bytes_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

std::vector<merkle::path_level> path_of(const c1::merkle_proof& p, const std::string& at) {
    std::vector<merkle::path_level> out;
    for (const auto* part : {&p.base_path, &p.sub_path, &p.top_path})
        for (size_t i = 0; i < part->size(); ++i) {
            const c1::path_element& e = (*part)[i];
            merkle::path_level level;
            for (size_t h = 0; h < e.hashes.size(); ++h)
                level.siblings.push_back(fr_of(e.hashes[h], at + ".path[" + std::to_string(i) + "].hashes[" +
                                                                std::to_string(h) + "]"));
            if (e.index > e.hashes.size())
                throw input_error("C1 " + at + ".path[" + std::to_string(i) + "].index: " + std::to_string(e.index) +
                                  " is beyond the " + std::to_string(e.hashes.size() + 1) + " children of the node");
            level.index = uint32_t(e.index);
            out.push_back(std::move(level));
        }
    return out;
}

column_opening column_of(const c1::column_proof& c, const std::string& at) {
    column_opening col;
    for (size_t r = 0; r < c.col.rows.size(); ++r)
        col.rows.push_back(fr_of(c.col.rows[r], at + ".column.rows[" + std::to_string(r) + "]"));
    col.path = path_of(c.inclusion, at + ".inclusion_proof");
    return col;
}

c1::merkle_proof merkle_proof_of(const merkle::merkle_tree& tree, const tree_shape& shape, uint64_t leaf,
                                 bool binary) {
    c1::merkle_proof p;
    p.root = bytes_of(tree.root());
    p.leaf = bytes_of(tree.leaf(leaf));
    auto levels = tree.proof(leaf);
    size_t extra = binary ? 0 : (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
    p.kind = binary || extra == 0 ? c1::merkle_proof_kind::single
             : shape.top          ? c1::merkle_proof_kind::top
                                  : c1::merkle_proof_kind::sub;
    for (size_t i = 0; i < levels.size(); ++i) {
        c1::path_element e;
        for (const ff::fr_t& s : levels[i].siblings) e.hashes.push_back(bytes_of(s));
        e.index = levels[i].index;
        size_t base_levels = levels.size() - extra;
        if (i < base_levels)
            p.base_path.push_back(std::move(e));
        else if (i == base_levels && shape.sub)
            p.sub_path.push_back(std::move(e));
        else
            p.top_path.push_back(std::move(e));
    }
    return p;
}

}  // namespace

const registered_proof& registered_proof_of(const c1::seal_commit_phase1_output& c1) {
    const registered_proof& proof = registered_proof_by_name(c1.registered_proof);
    if (c1.partitions.size() != proof.partitions)
        throw input_error("C1 $.vanilla_proofs." + c1.vanilla_variant + ": " + std::to_string(c1.partitions.size()) +
                          " partitions; " + std::string(proof.name) + " has " + std::to_string(proof.partitions));
    for (size_t k = 0; k < c1.partitions.size(); ++k)
        if (c1.partitions[k].size() != proof.challenges_per_partition)
            throw input_error("C1 $.vanilla_proofs." + c1.vanilla_variant + "[" + std::to_string(k) + "]: " +
                              std::to_string(c1.partitions[k].size()) + " challenges; " + std::string(proof.name) +
                              " has " + std::to_string(proof.challenges_per_partition) + " per partition");
    return proof;
}

seal_public_inputs public_inputs_of(const c1::seal_commit_phase1_output& c1) {
    seal_public_inputs in;
    in.replica_id = fr_of(c1.replica_id, "$.replica_id");
    in.comm_d = fr_of(c1.comm_d, "$.comm_d");
    in.comm_r = fr_of(c1.comm_r, "$.comm_r");
    in.seed = c1.seed;
    return in;
}

partition_witness witness_of(const c1::seal_commit_phase1_output& c1, const registered_proof& proof,
                             unsigned partition) {
    if (partition >= c1.partitions.size())
        throw input_error("C1: partition " + std::to_string(partition) + " of " + std::to_string(c1.partitions.size()));
    const auto& proofs = c1.partitions[partition];
    const std::string base = "$.vanilla_proofs." + c1.vanilla_variant + "[" + std::to_string(partition) + "]";
    if (proofs.empty()) throw input_error("C1 " + base + ": no challenge proofs");
    const seal_public_inputs pub = public_inputs_of(c1);
    partition_witness w;
    w.replica_id = pub.replica_id;
    w.comm_d = pub.comm_d;
    w.comm_r = pub.comm_r;
    w.comm_r_last = fr_of(proofs[0].comm_r_last_proof.root, base + "[0].comm_r_last_proof.root");
    w.comm_c = fr_of(proofs[0].replica_columns.c_x.inclusion.root, base + "[0].replica_column_proofs.c_x.root");
    for (size_t i = 0; i < proofs.size(); ++i) {
        const c1::challenge_proof& p = proofs[i];
        const std::string at = base + "[" + std::to_string(i) + "]";
        // StackedCompound::circuit: every challenge must open the same trees R and C.
        if (p.comm_r_last_proof.root != proofs[0].comm_r_last_proof.root)
            throw input_error("C1 " + at + ".comm_r_last_proof: root differs from challenge 0's (inconsistent comm_r_last)");
        if (p.replica_columns.c_x.inclusion.root != proofs[0].replica_columns.c_x.inclusion.root)
            throw input_error("C1 " + at + ".replica_column_proofs.c_x: root differs from challenge 0's (inconsistent comm_c)");
        if (p.labeling_proofs.empty()) throw input_error("C1 " + at + ".labeling_proofs: empty");
        challenge_witness c;
        c.challenge = p.labeling_proofs[0].node;
        c.data_leaf = fr_of(p.comm_d_proof.leaf, at + ".comm_d_proofs.leaf");
        c.comm_d_path = path_of(p.comm_d_proof, at + ".comm_d_proofs");
        c.comm_r_last_path = path_of(p.comm_r_last_proof, at + ".comm_r_last_proof");
        c.comm_c_path = path_of(p.replica_columns.c_x.inclusion, at + ".replica_column_proofs.c_x.inclusion_proof");
        for (size_t j = 0; j < p.replica_columns.drg_parents.size(); ++j)
            c.drg_parents.push_back(column_of(p.replica_columns.drg_parents[j],
                                              at + ".replica_column_proofs.drg_parents[" + std::to_string(j) + "]"));
        for (size_t j = 0; j < p.replica_columns.exp_parents.size(); ++j)
            c.exp_parents.push_back(column_of(p.replica_columns.exp_parents[j],
                                              at + ".replica_column_proofs.exp_parents[" + std::to_string(j) + "]"));
        w.challenges.push_back(std::move(c));
    }
    // The circuit checks every count and path length again and names the challenge; checking here
    // first gives the JSON path.
    const auto shape = stacked_circuit_shape::of(proof);
    for (size_t i = 0; i < w.challenges.size(); ++i) {
        const auto& c = w.challenges[i];
        const std::string at = base + "[" + std::to_string(i) + "]";
        if (c.comm_d_path.size() != shape.tree_d_levels)
            throw input_error("C1 " + at + ".comm_d_proofs: path of " + std::to_string(c.comm_d_path.size()) +
                              " levels; " + std::string(proof.name) + " tree D has " +
                              std::to_string(shape.tree_d_levels));
        if (c.comm_r_last_path.size() != shape.tree_c.levels() || c.comm_c_path.size() != shape.tree_c.levels())
            throw input_error("C1 " + at + ": tree R / tree C paths of " + std::to_string(c.comm_r_last_path.size()) +
                              " / " + std::to_string(c.comm_c_path.size()) + " levels; " + std::string(proof.name) +
                              " trees have " + std::to_string(shape.tree_c.levels()));
        if (c.drg_parents.size() != shape.drg_degree || c.exp_parents.size() != shape.expansion_degree)
            throw input_error("C1 " + at + ".replica_column_proofs: " + std::to_string(c.drg_parents.size()) +
                              " DRG and " + std::to_string(c.exp_parents.size()) + " expander parents; expected 6 and 8");
    }
    return w;
}

c1::seal_commit_phase1_output make_c1(const registered_proof& proof, const graph::stacked_graph& graph,
                                      const sealed_sector& sector, const bytes32& seed, const bytes32& ticket) {
    c1::seal_commit_phase1_output c1;
    c1.registered_proof = std::string(proof.name);
    // The API wraps every version's proofs in the V1 variant of the size:
    // "StackedDrg2KiBV1_1[_Feat_SyntheticPoRep]" -> "StackedDrg2KiBV1".
    std::string variant(proof.name);
    variant.resize(variant.find("V1") + 2);
    c1.vanilla_variant = variant;
    c1.comm_r = bytes_of(sector.comm_r);
    c1.comm_d = bytes_of(sector.comm_d);
    c1.replica_id = bytes_of(sector.replica_id);
    c1.seed = seed;
    c1.ticket = ticket;
    const tree_shape binary{2, 0, 0};
    std::array<uint32_t, graph::stacked_degree> parents{};
    auto column_proof_of = [&](uint64_t node) {
        c1::column_proof cp;
        cp.col.index = uint32_t(node);
        for (const ff::fr_t& r : sector.column(node)) cp.col.rows.push_back(bytes_of(r));
        cp.inclusion = merkle_proof_of(sector.tree_c, proof.tree, node, false);
        return cp;
    };
    for (unsigned k = 0; k < proof.partitions; ++k) {
        std::vector<c1::challenge_proof> partition;
        const seal_public_inputs pub{sector.replica_id, sector.comm_d, sector.comm_r, seed};
        for (uint64_t c : partition_challenges(proof, pub, k)) {
            c1::challenge_proof p;
            p.comm_d_proof = merkle_proof_of(sector.tree_d, binary, c, true);
            p.comm_r_last_proof = merkle_proof_of(sector.tree_r, proof.tree, c, false);
            p.replica_columns.c_x = column_proof_of(c);
            graph.parents(c, parents);
            for (size_t i = 0; i < graph::stacked_degree; ++i)
                (i < graph::drg_degree ? p.replica_columns.drg_parents : p.replica_columns.exp_parents)
                    .push_back(column_proof_of(parents[i]));
            for (unsigned layer = 1; layer <= proof.layers; ++layer) {
                c1::labeling_proof lp;
                lp.layer_index = layer;
                lp.node = c;
                for (const ff::fr_t& label : expanded_parent_labels(graph, c, layer, sector.labels))
                    lp.parents.push_back(bytes_of(label));
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
