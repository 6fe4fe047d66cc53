// Consistency checks of a parsed C1 that hold for every StackedDRG sector size. They catch a C1 that
// was corrupted, truncated by a tool or assembled from two sectors before any synthesis is spent on
// it; what depends on the sector size (challenge counts, tree heights) is checked against the
// registered proof's table by the PoRep code.
#include <fmt/format.h>

#include <optional>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/util/errors.hpp"

namespace cuzk::c1 {

namespace {

// Every StackedDRG PoRep (all sizes, all API versions) uses these graph degrees.
constexpr size_t drg_degree = 6;
constexpr size_t expansion_degree = 8;
constexpr size_t total_parents = 37;  // parent labels hashed per label (storage-proofs-porep TOTAL_PARENTS)

class checker {
public:
    checker(const seal_commit_phase1_output& c1, std::string_view source) : c1_(c1), source_(source) {}

    [[noreturn]] void fail(std::string_view path, std::string_view what) const {
        throw input_error(fmt::format("{}: {}: {}", source_, path, what));
    }

    ff::fr_t field(const domain_t& d, std::string_view path) const {
        ff::fr_t x;
        if (!ff::fr_t::from_bytes_le(d.data(), x)) fail(path, "not a canonical field element (>= r)");
        return x;
    }

    // The shape of a tree's proofs: the number of hashes per path element, level by level, over
    // base, sub and top paths. All proofs into one tree must share it.
    struct shape {
        merkle_proof_kind kind;
        std::vector<size_t> widths;
        bool operator==(const shape&) const = default;
    };

    shape shape_of(const merkle_proof& p, std::string_view path) const {
        shape s{p.kind, {}};
        for (const auto* part : {&p.base_path, &p.sub_path, &p.top_path}) {
            for (size_t level = 0; level < part->size(); ++level) {
                const path_element& e = (*part)[level];
                if (e.hashes.empty()) fail(path, fmt::format("path level {} has no sibling hashes", level));
                if (e.index > e.hashes.size()) {
                    fail(path, fmt::format("path level {}: index {} is outside the node's {} children", level,
                                           e.index, e.hashes.size() + 1));
                }
                s.widths.push_back(e.hashes.size());
            }
        }
        return s;
    }

    // Records the first root and shape of a tree, then requires the same of every later proof.
    struct tree_seen {
        std::string name;
        std::optional<domain_t> root;
        std::optional<shape> form;
    };

    void same_tree(tree_seen& t, const merkle_proof& p, const std::string& path) const {
        shape s = shape_of(p, path);
        if (!t.form) {
            t.root = p.root;
            t.form = s;
            return;
        }
        if (p.root != *t.root) {
            fail(path, fmt::format("root {} differs from the {} root {} of the first proof", to_hex(p.root), t.name,
                                   to_hex(*t.root)));
        }
        if (!(s == *t.form)) fail(path, fmt::format("path shape differs from the first {} proof", t.name));
    }

    void run() {
        check_names();
        if (c1_.partitions.empty()) fail(variant_path(), "no partitions");
        const size_t per_partition = c1_.partitions[0].size();
        if (per_partition == 0) fail(variant_path() + "[0]", "no challenge proofs");

        tree_seen tree_d{"tree D", std::nullopt, std::nullopt};  // its root is also checked against comm_d
        tree_seen tree_c{"tree C", std::nullopt, std::nullopt};
        tree_seen tree_r{"tree R", std::nullopt, std::nullopt};
        std::optional<size_t> layers;

        for (size_t k = 0; k < c1_.partitions.size(); ++k) {
            const auto& part = c1_.partitions[k];
            std::string ppath = fmt::format("{}[{}]", variant_path(), k);
            if (part.size() != per_partition) {
                fail(ppath, fmt::format("{} challenge proofs where partition 0 has {}", part.size(), per_partition));
            }
            for (size_t i = 0; i < part.size(); ++i) {
                check_challenge(part[i], fmt::format("{}[{}]", ppath, i), tree_d, tree_c, tree_r, layers);
            }
        }

        // comm_r = Poseidon(comm_c, comm_r_last): binds the two trees' roots to the public comm_r.
        ff::fr_t comm_c = field(*tree_c.root, "tree C root");
        ff::fr_t comm_r_last = field(*tree_r.root, "tree R root");
        domain_t expect{};
        poseidon::hash2(comm_c, comm_r_last).to_bytes_le(expect.data());
        if (expect != c1_.comm_r) {
            fail("$.comm_r", fmt::format("{} is not Poseidon(comm_c {}, comm_r_last {}) = {}", to_hex(c1_.comm_r),
                                         to_hex(*tree_c.root), to_hex(*tree_r.root), to_hex(expect)));
        }
        field(c1_.comm_d, "$.comm_d");
        field(c1_.replica_id, "$.replica_id");
    }

private:
    std::string variant_path() const { return fmt::format("$.vanilla_proofs.{}", c1_.vanilla_variant); }

    void check_names() const {
        const std::string& reg = c1_.registered_proof;
        // "StackedDrg32GiBV1_1" -> variant "StackedDrg32GiBV1": the API wraps every version's proofs in
        // the V1 variant of its size.
        size_t v = reg.rfind('V');
        if (reg.rfind("StackedDrg", 0) != 0 || v == std::string::npos || v < 10) {
            fail("$.registered_proof", fmt::format("\"{}\" is not a StackedDrg seal proof", reg));
        }
        std::string expected_variant = reg.substr(0, v) + "V1";
        if (c1_.vanilla_variant != expected_variant) {
            fail("$.vanilla_proofs", fmt::format("variant \"{}\" does not match registered proof {} (expected \"{}\")",
                                                 c1_.vanilla_variant, reg, expected_variant));
        }
    }

    void check_column(const column_proof& cp, const std::string& path, tree_seen& tree_c,
                      std::optional<size_t>& layers) const {
        if (!layers) layers = cp.col.rows.size();
        if (cp.col.rows.size() != *layers || *layers == 0) {
            fail(path + ".column.rows", fmt::format("{} rows where the sector has {} layers", cp.col.rows.size(), *layers));
        }
        // The column is hashed with Poseidon of arity |layers|, which has constants up to MAX_ARITY only (every
        // registered proof has 11 layers at most): a taller column is the input's fault, not the hash's.
        if (*layers > poseidon::MAX_ARITY) {
            fail(path + ".column.rows",
                 fmt::format("{} rows: a column has one row per layer, at most {}", *layers, poseidon::MAX_ARITY));
        }
        same_tree(tree_c, cp.inclusion, path + ".inclusion_proof");
        if (cp.inclusion.leaf_index() != cp.col.index) {
            fail(path, fmt::format("column of node {} is proven at leaf {}", cp.col.index, cp.inclusion.leaf_index()));
        }
        // The tree C leaf is the Poseidon hash of the column (arity = number of layers).
        std::vector<ff::fr_t> rows;
        rows.reserve(cp.col.rows.size());
        for (size_t l = 0; l < cp.col.rows.size(); ++l) {
            rows.push_back(field(cp.col.rows[l], fmt::format("{}.column.rows[{}]", path, l)));
        }
        domain_t h{};
        poseidon::hash(rows).to_bytes_le(h.data());
        if (h != cp.inclusion.leaf) {
            fail(path, fmt::format("the column's hash {} is not the proven leaf {}", to_hex(h), to_hex(cp.inclusion.leaf)));
        }
    }

    // A labeling (or encoding) proof lists the 37 parent labels the label hash reads: the distinct
    // parents (6 DRG parents in layer 1; 6 DRG + 8 expander parents after) repeated cyclically.
    void check_parents(const labeling_proof& lp, const std::string& path, bool first_layer) const {
        if (lp.parents.size() != total_parents) {
            fail(path + ".parents", fmt::format("{} parent labels, expected {}", lp.parents.size(), total_parents));
        }
        const size_t distinct = first_layer ? drg_degree : drg_degree + expansion_degree;
        for (size_t i = distinct; i < lp.parents.size(); ++i) {
            if (lp.parents[i] != lp.parents[i % distinct]) {
                fail(fmt::format("{}.parents[{}]", path, i),
                     fmt::format("differs from parents[{}]: the {} distinct parents repeat", i % distinct, distinct));
            }
        }
    }

    void check_challenge(const challenge_proof& cp, const std::string& path, tree_seen& tree_d, tree_seen& tree_c,
                         tree_seen& tree_r, std::optional<size_t>& layers) const {
        // Tree D is binary: one sibling per level, rooted at comm_d.
        const merkle_proof& d = cp.comm_d_proof;
        std::string dpath = path + ".comm_d_proofs";
        if (d.kind != merkle_proof_kind::single) fail(dpath, "tree D proofs are Single proofs");
        for (size_t level = 0; level < d.base_path.size(); ++level) {
            if (d.base_path[level].hashes.size() != 1) {
                fail(dpath, fmt::format("path level {} has {} siblings; tree D is binary", level,
                                        d.base_path[level].hashes.size()));
            }
        }
        if (d.root != c1_.comm_d) {
            fail(dpath, fmt::format("root {} is not comm_d {}", to_hex(d.root), to_hex(c1_.comm_d)));
        }
        same_tree(tree_d, d, dpath);
        const uint64_t challenge = d.leaf_index();

        same_tree(tree_r, cp.comm_r_last_proof, path + ".comm_r_last_proof");
        if (cp.comm_r_last_proof.leaf_index() != challenge) {
            fail(path + ".comm_r_last_proof", fmt::format("opens node {} where comm_d_proofs opens node {}",
                                                          cp.comm_r_last_proof.leaf_index(), challenge));
        }

        const replica_column_proof& rc = cp.replica_columns;
        std::string cpath = path + ".replica_column_proofs";
        check_column(rc.c_x, cpath + ".c_x", tree_c, layers);
        if (rc.c_x.col.index != challenge) {
            fail(cpath + ".c_x", fmt::format("column of node {} for challenge {}", rc.c_x.col.index, challenge));
        }
        if (rc.drg_parents.size() != drg_degree) {
            fail(cpath + ".drg_parents", fmt::format("{} columns, expected {}", rc.drg_parents.size(), drg_degree));
        }
        if (rc.exp_parents.size() != expansion_degree) {
            fail(cpath + ".exp_parents", fmt::format("{} columns, expected {}", rc.exp_parents.size(), expansion_degree));
        }
        for (size_t j = 0; j < rc.drg_parents.size(); ++j) {
            check_column(rc.drg_parents[j], fmt::format("{}.drg_parents[{}]", cpath, j), tree_c, layers);
        }
        for (size_t j = 0; j < rc.exp_parents.size(); ++j) {
            check_column(rc.exp_parents[j], fmt::format("{}.exp_parents[{}]", cpath, j), tree_c, layers);
        }

        // One labeling proof per layer, in order, for the challenged node; the last layer's label is
        // the key the encoding proof uses.
        if (cp.labeling_proofs.size() != *layers) {
            fail(path + ".labeling_proofs",
                 fmt::format("{} labeling proofs for {} layers", cp.labeling_proofs.size(), *layers));
        }
        for (size_t l = 0; l < cp.labeling_proofs.size(); ++l) {
            const labeling_proof& lp = cp.labeling_proofs[l];
            std::string lpath = fmt::format("{}.labeling_proofs[{}]", path, l);
            if (lp.layer_index != l + 1) fail(lpath, fmt::format("layer_index {} at position {}", lp.layer_index, l));
            if (lp.node != challenge) fail(lpath, fmt::format("node {} for challenge {}", lp.node, challenge));
            check_parents(lp, lpath, l == 0);
        }
        const labeling_proof& ep = cp.encoding_proof;
        if (ep.node != challenge) {
            fail(path + ".encoding_proof", fmt::format("node {} for challenge {}", ep.node, challenge));
        }
        check_parents(ep, path + ".encoding_proof", *layers == 1);
    }

    const seal_commit_phase1_output& c1_;
    std::string_view source_;
};

}  // namespace

void check_consistency(const seal_commit_phase1_output& c1, std::string_view source) { checker(c1, source).run(); }

}  // namespace cuzk::c1
