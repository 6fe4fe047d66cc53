// The registered PoSt proofs of Filecoin (fallback PoSt: WindowPoSt and WinningPoSt) and the shape each one
// fixes: sector size, tree R shape, challenges and sectors per partition, the proof API version (which picks the
// challenge-index rule). Numbers and names are the Go abi ones Curio sends (go-state-types abi/sector.go); the
// values are filecoin-proofs constants.rs / parameters.rs and rust-filecoin-proofs-api registry.rs.
//
// What the vanilla proofs hold and what the circuit has differ for WinningPoSt: one sector with 66 challenged
// leaves, proved by a circuit of 66 sector slots of one challenge each (parameters.rs winning_post_public_params).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/graph/api_version.hpp"
#include "common/porep/registered_proof.hpp"

namespace cuzk::post {

enum class post_kind { winning, window };

struct registered_post_proof {
    std::string_view name;      // Go abi name, e.g. "StackedDrgWindow32GiBV1_1"
    std::string_view api_name;  // rust-filecoin-proofs-api's name, e.g. "StackedDrgWindow32GiBV1_2"
    uint64_t id;                // Go abi RegisteredPoStProof, what Curio sends: 0..14
    post_kind kind;
    graph::api_version version;  // V1_0 for Winning and Window V1; V1_2 for Window V1_1
    uint64_t sector_size;        // bytes
    uint64_t nodes;              // leaves of tree R: sector_size / 32
    porep::tree_shape tree;      // tree R (Poseidon): 8-0-0 test sizes, 8-8-0 32 GiB, 8-8-2 64 GiB
    unsigned challenge_count;    // leaves challenged per sector in a vanilla proof: Window 10, Winning 66
    unsigned sector_count;       // sectors per partition: Window 2 (test sizes), 2349 (32 GiB), 2300 (64 GiB); Winning 1

    // The circuit's sector slots and challenges per slot: Window sector_count x challenge_count, Winning
    // challenge_count / sector_count = 66 slots x 1. These are also the identifier's sector_count and
    // challenge_count (official_params.hpp).
    unsigned circuit_sectors() const;
    unsigned circuit_challenges() const;
    // Levels of one base tree of tree R: log8(nodes / sub / top).
    unsigned base_tree_height() const;
    // Public inputs of one partition without ONE: per slot comm_r and one leaf index per challenge.
    uint64_t public_inputs_per_partition() const;
    // Partitions a proof over |sectors| sectors has: ceil(sectors / sector_count) (at least 1).
    uint64_t partitions_for(uint64_t sectors) const;
};

// Every registered PoSt proof, in Go abi order (ids 0..14).
std::span<const registered_post_proof> all_registered_post_proofs();

// By Go name ("StackedDrgWindow32GiBV1_1") or proofs-api name ("StackedDrgWindow32GiBV1_2"): the entry, or
// nullptr for a name that is not a PoSt proof.
const registered_post_proof* find_registered_post_proof(std::string_view name);
// As above; unknown names throw cuzk::input_error listing the valid ones.
const registered_post_proof& registered_post_proof_by_name(std::string_view name);
// By Go abi number; throws cuzk::input_error on an unknown id.
const registered_post_proof& registered_post_proof_by_id(uint64_t id);

// "StackedDrgWinning2KiBV1, ..., StackedDrgWindow64GiBV1_1" for error messages and --help.
std::string registered_post_proof_names();

// "1.0.0", "1.1.0", "1.2.0".
std::string_view api_version_text(graph::api_version v);
// The inverse; nullopt for anything else.
std::optional<graph::api_version> parse_api_version(std::string_view text);

}  // namespace cuzk::post
