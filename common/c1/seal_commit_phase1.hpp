// The input of PoRep C2: SealCommitPhase1Output ("C1"), as rust-filecoin-proofs-api defines it and
// filecoin-ffi writes it with serde_json, or wrapped by lotus-bench as c2in.json
// {"SectorNum": n, "Phase1Out": "<base64 of that JSON>", "SectorSize": n}.
//
// Layout of the JSON (field order as serde writes it; any order is accepted):
//   { "registered_proof": "StackedDrg32GiBV1_1",
//     "vanilla_proofs": { "StackedDrg32GiBV1": [ partition: [ challenge proof, ... ], ... ] },
//     "comm_r": [32 bytes], "comm_d": [32 bytes], "replica_id": [32 bytes],
//     "seed": [32 bytes], "ticket": [32 bytes] }
// A hash value (Sha256Domain, PoseidonDomain, Commitment, Ticket) is a JSON array of 32 numbers 0..255:
// the little-endian representation of a field element as rust-fil-proofs stores it.
// A challenge proof (storage-proofs-porep stacked/vanilla/proof.rs):
//   comm_d_proofs      MerkleProof of the data leaf in tree D (binary SHA256 tree)
//   comm_r_last_proof  MerkleProof of the replica leaf in tree R (Poseidon, base/sub/top arities)
//   replica_column_proofs { c_x, drg_parents[], exp_parents[] }, each { column: { index, rows[], _h },
//                      inclusion_proof: MerkleProof in tree C }
//   labeling_proofs[]  { parents[], layer_index, node } per layer
//   encoding_proof     { parents[], layer_index, node }
// A MerkleProof is { "data": { "Single" | "Sub" | "Top": {...} } }: Single { root, leaf, path },
// Sub { base_proof, sub_proof, root, leaf }, Top { base_proof, sub_proof, top_proof, root, leaf }, each
// path { "path": [ { "hashes": [siblings], "index": position in the node }, ... ] } from leaf to root.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::c1 {

// 32 bytes as stored: a little-endian field element representation (or SHA256 output, trimmed).
using domain_t = std::array<uint8_t, 32>;

struct path_element {
    std::vector<domain_t> hashes;  // the arity - 1 siblings of the node on the path
    uint64_t index = 0;            // position of the path's node among its arity siblings

    bool operator==(const path_element&) const = default;
};

enum class merkle_proof_kind { single, sub, top };

struct merkle_proof {
    merkle_proof_kind kind = merkle_proof_kind::single;
    domain_t root{};
    domain_t leaf{};
    std::vector<path_element> base_path;  // Single: the whole path
    std::vector<path_element> sub_path;   // Sub and Top
    std::vector<path_element> top_path;   // Top

    // The leaf's index in the tree, from the path positions (base first, least significant).
    // Each level multiplies by that level's arity, hashes.size() + 1.
    uint64_t leaf_index() const;

    bool operator==(const merkle_proof&) const = default;
};

struct column {
    uint32_t index = 0;          // the node whose labels the column holds
    std::vector<domain_t> rows;  // one label per layer

    bool operator==(const column&) const = default;
};

struct column_proof {
    column col;
    merkle_proof inclusion;  // of the column's hash in tree C

    bool operator==(const column_proof&) const = default;
};

struct replica_column_proof {
    column_proof c_x;
    std::vector<column_proof> drg_parents;
    std::vector<column_proof> exp_parents;

    bool operator==(const replica_column_proof&) const = default;
};

// A labeling or encoding proof: the 37 parent labels hashed into the node's label in a layer (the
// distinct parents, 6 in layer 1 and 14 after, repeated cyclically).
struct labeling_proof {
    std::vector<domain_t> parents;
    uint32_t layer_index = 0;
    uint64_t node = 0;

    bool operator==(const labeling_proof&) const = default;
};

struct challenge_proof {
    merkle_proof comm_d_proof;
    merkle_proof comm_r_last_proof;
    replica_column_proof replica_columns;
    std::vector<labeling_proof> labeling_proofs;
    labeling_proof encoding_proof;

    bool operator==(const challenge_proof&) const = default;
};

struct seal_commit_phase1_output {
    std::string registered_proof;  // e.g. "StackedDrg32GiBV1_1"
    std::string vanilla_variant;   // the VanillaSealProof variant, e.g. "StackedDrg32GiBV1"
    std::vector<std::vector<challenge_proof>> partitions;  // [partition][challenge]
    domain_t comm_r{};
    domain_t comm_d{};
    domain_t replica_id{};
    domain_t seed{};
    domain_t ticket{};

    bool operator==(const seal_commit_phase1_output&) const = default;
};

// Parses the JSON of a SealCommitPhase1Output, or of a lotus-bench c2in.json wrapper around one
// (recognised by its "Phase1Out" field). |source| names the input in error messages. Throws
// cuzk::input_error naming the source, the JSON path (e.g.
// $.vanilla_proofs.StackedDrg2KiBV1[0][3].comm_d_proofs.data.Single.leaf[31]) and the byte offset.
seal_commit_phase1_output parse_c1_json(std::string_view json, std::string_view source = "C1 JSON");

// Reads and parses a C1 file (either form). Throws cuzk::input_error naming the file.
seal_commit_phase1_output read_c1_file(const std::filesystem::path& path);

// The JSON serde_json writes for |c1| (compact, fields in declaration order, "_h": null in columns):
// what filecoin-ffi hands to C2, so a C1 made by the test sealer reads like one from lotus or Curio.
std::string write_c1_json(const seal_commit_phase1_output& c1);

// Checks what holds for every PoRep C1 whatever its sector size: one vanilla variant matching the
// registered proof's size, the same number of challenges in every partition, every comm_d proof
// rooted at comm_d, one tree C root and one tree R root across all proofs with
// comm_r = Poseidon(comm_c, comm_r_last), columns of one height equal to the number of labeling
// proofs, path hash counts consistent within each tree, and path positions that address a node.
// Throws cuzk::input_error naming the JSON path of the first problem.
void check_consistency(const seal_commit_phase1_output& c1, std::string_view source = "C1");

// The hex form of a domain value as stored (byte 0 first), for messages and tests.
std::string to_hex(const domain_t& d);

}  // namespace cuzk::c1
