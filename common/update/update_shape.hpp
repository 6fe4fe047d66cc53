// The registered SnapDeals proofs (EmptySectorUpdate, storage-proofs-update) and the shape each sector size
// fixes. Every constant is a function of the sector's node count (32-byte nodes) as in constants.rs:
//   partitions      <= 2^8 nodes: 1, <= 2^10: 2, <= 2^19: 4, else 16
//   challenges      per partition: <= 2^19 nodes: 10, else 86
//   hs              the h values a proof may pick: <= 2^10 nodes: six times 1, else 7..12; the default is hs[3]
//   apex leaves     per partition: <= 2^8 nodes: 8, else 128
//   tree R          a Poseidon LC tree of base arity 8 with the sub / top arities below
//   tree D          a binary SHA256 tree over all nodes: one level per challenge bit
// The test sizes 1, 2, 4, 8, 16 and 32 KiB are not registered proofs but their circuits are the published
// counts that pin the gadgets' composition (storage-proofs-update tests/circuit.rs), so they are shapes here too.
//
// Names: Go's abi calls these RegisteredUpdateProof_StackedDrg{2KiB,...}V1 (0..4); their short names collide
// with the PoRep ones (StackedDrg32GiBV1), so cuzk names them StackedDrgUpdate{2KiB,...}V1.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/gadgets/merkle_inclusion.hpp"
#include "common/porep/registered_proof.hpp"

namespace cuzk::update {

// The number of h values a proof chooses from: the h_select bits of the first public input.
inline constexpr unsigned H_SELECT_BITS = 6;

struct update_shape {
    uint64_t nodes = 0;                       // sector_size / 32, a power of two
    unsigned challenge_bit_len = 0;           // log2(nodes): bits of a challenged node index
    unsigned partition_count = 0;             // partitions of one proof
    unsigned partition_bit_len = 0;           // log2(partition_count): the top bits of every challenge
    unsigned challenge_count = 0;             // challenges per partition
    std::array<unsigned, H_SELECT_BITS> hs{};  // allowed h (high bits of a challenge fed to rho)
    unsigned apex_leaf_count = 0;             // tree D nodes per partition the circuit takes whole
    unsigned apex_leaf_bit_len = 0;           // log2(apex_leaf_count)
    porep::tree_shape tree_r;                 // base 8, sub and top arities (0: absent)

    // The h a proof uses unless told otherwise: hs[3] (10 for the registered sizes above 32 KiB).
    unsigned h_default() const { return hs[3]; }
    // 2^i for the first i with hs[i] == h; throws cuzk::input_error for an h this size does not allow.
    unsigned h_select(unsigned h) const;

    // Random bits of a challenge: the challenge bits below the partition bits.
    unsigned random_bits_per_challenge() const { return challenge_bit_len - partition_bit_len; }
    // Challenges cut from one 255-bit digest: Fr::CAPACITY (254) / random bits.
    unsigned challenges_per_digest() const { return 254 / random_bits_per_challenge(); }
    // Poseidon digests one partition draws its challenges from: ceil(challenges / challenges_per_digest).
    unsigned digests_per_partition() const;
    // Tree D levels from a challenged leaf up to its apex leaf (the rest are the apex tree and the partition
    // path): challenge_bit_len - partition_bit_len - apex_leaf_bit_len.
    unsigned tree_d_levels_to_apex() const { return challenge_bit_len - partition_bit_len - apex_leaf_bit_len; }
    // Tree D levels in all: one per challenge bit (binary tree).
    unsigned tree_d_levels() const { return challenge_bit_len; }
    // Tree R as the circuit walks it: base levels of 8, then the sub and top levels.
    gadgets::merkle_arities tree_r_arities() const;
};

// The shape of a sector of |nodes| nodes: the registered sizes and the test sizes of 2^5..2^10, 2^18, 2^19
// nodes (rust-fil-proofs' ALLOWED_SECTOR_SIZES); throws cuzk::input_error for any other.
update_shape update_shape_of(uint64_t nodes);

struct registered_update_proof {
    std::string_view name;      // cuzk's name, e.g. "StackedDrgUpdate32GiBV1"
    std::string_view abi_name;  // Go's constant, e.g. "RegisteredUpdateProof_StackedDrg32GiBV1"
    uint64_t id;                // Go abi RegisteredUpdateProof: 0..4
    uint64_t sector_size;       // bytes

    uint64_t nodes() const { return sector_size / 32; }
    update_shape shape() const { return update_shape_of(nodes()); }
};

// Every registered update proof, in Go abi order (ids 0..4).
std::span<const registered_update_proof> all_registered_update_proofs();

// By cuzk name or Go constant name: the entry, or nullptr for a name that is not an update proof.
const registered_update_proof* find_registered_update_proof(std::string_view name);
// As above; unknown names throw cuzk::input_error listing the valid ones.
const registered_update_proof& registered_update_proof_by_name(std::string_view name);
// By Go abi number; throws cuzk::input_error on an unknown id.
const registered_update_proof& registered_update_proof_by_id(uint64_t id);

// "StackedDrgUpdate2KiBV1, ..., StackedDrgUpdate64GiBV1" for error messages and --help.
std::string registered_update_proof_names();

}  // namespace cuzk::update
