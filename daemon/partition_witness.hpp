// A synthesized partition as it lies in a ring slot (payload_format = witness_format): everything
// groth16::prepare_partition reads, so gpud proves straight from the shared memory it maps.
//
//   offset 0    u64 magic "CZWITNES"
//          8    u32 layout version (witness_layout_version)
//          12   u32 circuit spec length (<= 240)
//          16   u64 rows, u64 inputs (ONE included), u64 aux
//          40   char circuit spec[240] (which parameters prove it, e.g. "mul:64@3")
//          280  zero padding to 320
//          320  fr a[rows], fr b[rows], fr c[rows], fr inputs[inputs], fr aux[aux]   (32 bytes each, the
//               in-memory Montgomery form: writer and reader are the same build, checked by the version)
//          ...  u64 words of the densities: a_aux (ceil(aux/64)), b_input (ceil(inputs/64)), b_aux (ceil(aux/64))
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/groth16/prover_stages.hpp"
#include "common/groth16/proving_assignment.hpp"

namespace cuzk::daemon {

inline constexpr std::uint32_t witness_format = 1;  // ring_slot.payload_format
inline constexpr std::uint32_t witness_layout_version = 1;
inline constexpr std::size_t witness_spec_limit = 240;

// Bytes a finished |pa| takes in a slot.
std::uint64_t witness_bytes(const groth16::proving_assignment& pa);

// Writes |pa| (finished) into |out|; returns the bytes used. Throws std::length_error naming both sizes
// when |out| is too small (the ring's slot_bytes must grow) and std::invalid_argument for a spec too long.
std::uint64_t write_witness(std::span<std::byte> out, const groth16::proving_assignment& pa, std::string_view spec);

struct witness_in_slot {
    std::string circuit_spec;
    groth16::witness_view view;  // points into the payload
};
// Throws std::runtime_error naming what is inconsistent (another layout, sizes beyond the payload).
witness_in_slot read_witness(std::span<const std::byte> payload);

}  // namespace cuzk::daemon
