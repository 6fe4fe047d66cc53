// A synthesized partition as it lies in a ring slot (payload_format = witness_format): the witness alone, the
// public inputs in full and the aux values compact (common/witness/compact_vector.hpp). The rows a, b, c and the
// densities are not here: gpud computes them from the circuit's R1CS matrices, loaded with its parameters
// (common/r1cs/), so a 32 GiB PoRep partition takes ~100 MB of slot instead of ~17 GB.
//
//   offset 0    u64 magic "CZWITNES"
//          8    u32 layout version (witness_layout_version)
//          12   u32 circuit spec length (<= 240)
//          16   u64 circuit rows, u64 inputs (ONE included), u64 aux
//          40   char circuit spec[240] (which parameters and matrices prove it, e.g. "mul:64@3")
//          280  zero padding to 320
//          320  fr inputs[inputs]   (32 bytes each, the in-memory Montgomery form: writer and reader are the same
//                                    build, checked by the version)
//          ...  the aux values, compact (common/witness/compact_vector_serialization.hpp)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/witness/compact_vector.hpp"
#include "common/witness/witness_assignment.hpp"

namespace cuzk::daemon {

inline constexpr std::uint32_t witness_format = 1;  // ring_slot.payload_format
inline constexpr std::uint32_t witness_layout_version = 2;
inline constexpr std::size_t witness_spec_limit = 240;

// Bytes |w|'s witness takes in a slot.
std::uint64_t witness_bytes(const witness::witness_assignment& w);
// The fewest bytes any witness of a circuit with |num_inputs| inputs (ONE included) and |num_aux| aux values takes
// in a slot (every aux value a bit): more than a slot holds, and no partition of that circuit fits.
std::uint64_t witness_bytes_floor(std::uint64_t num_inputs, std::uint64_t num_aux);

// Writes |w|'s witness into |out|; returns the bytes used. Throws std::length_error naming both sizes when |out| is
// too small (the ring's slot_bytes must grow) and std::invalid_argument for a spec too long.
std::uint64_t write_witness(std::span<std::byte> out, const witness::witness_assignment& w, std::string_view spec);

struct witness_in_slot {
    std::string circuit_spec;
    std::uint64_t circuit_rows = 0;
    std::span<const ff::fr_t> inputs;  // inputs[0] == ONE; points into the payload
    witness::compact_vector_view aux;  // points into the payload
};
// Throws std::runtime_error naming what is inconsistent (another layout, sizes beyond the payload, a compact
// vector that does not hold together).
witness_in_slot read_witness(std::span<const std::byte> payload);

}  // namespace cuzk::daemon
