// The input of a SnapDeals job (proof kind snap_update), as the API and `cuzk submit --update` spool it and
// assemblerd and synthd read it: the registered update proof, h, the update's three commitments and the
// vanilla proofs Curio sent (one bincode PartitionProof per partition, in partition order), in one binary file:
//   "cuzk-update-job 1\n"                  18 bytes
//   registered update proof, Go abi id     u64 little-endian (0..4: StackedDrgUpdate{2KiB..64GiB}V1)
//   h                                      u64 (one of the sector size's hs; Curio sends none: the default)
//   comm_r_old, comm_d_new, comm_r_new     32 bytes each, as Curio sends them (a field element, little-endian)
//   partition proof count N                u64 (the registered proof's partition count, checked first)
//   N x (length u64, the proof's bytes)    each length checked against what is left of the file
// Reading decodes every partition strictly (update/vanilla_bincode.hpp: errors name the partition, challenge,
// opening and byte offset) and checks it natively against the commitments (update/update_circuit.hpp
// partition_circuits_of: the openings, the challenges of comm_r_new, the encoding), refusing a bad one naming
// its partition before any synthesis. One job is partition_count partitions, one ring slot each, as PoRep:
// 16 at 32 and 64 GiB, 1 at 2 KiB.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/update/update_circuit.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_encoding.hpp"

namespace cuzk::daemon {

using bytes32 = std::array<std::uint8_t, 32>;

struct update_job_input {
    const update::registered_update_proof* proof = nullptr;
    update::update_commitments pub;  // comm_r_old, comm_d_new, comm_r_new as field elements, and h
    std::vector<std::vector<ff::fr_t>> public_inputs;  // per partition, partition k at k, without ONE
    // Every partition's circuit with its witness, partition k at k; only when read with keep.
    std::shared_ptr<const std::vector<update::update_partition_circuit>> circuits;

    std::uint32_t partitions() const { return static_cast<std::uint32_t>(public_inputs.size()); }
    // "update:StackedDrgUpdate32GiBV1": every partition's circuit spec (its parameters' shape).
    std::string circuit_spec() const { return "update:" + std::string(proof->name); }
};

// The file's bytes (views of the proofs: a 32 GiB update is 16 x 562 KB). Throws input_error for a partition
// count other than the registered proof's, an h the size does not allow, or a commitment that is not a field
// element (naming it).
std::string encode_update_job_input(const update::registered_update_proof& proof, unsigned h,
                                    const bytes32& comm_r_old, const bytes32& comm_d_new, const bytes32& comm_r_new,
                                    std::span<const std::string_view> partition_proofs);

// Reads, decodes and checks; |source| names the input in errors. Throws input_error. |verify| false: decoded and
// checked for shape only (no hashing), for an input this service verified when it was submitted (synthd's read
// of assemblerd's spool).
update_job_input read_update_job_input(const std::filesystem::path& path, const std::string& source,
                                       bool keep_circuits, bool verify = true);
update_job_input parse_update_job_input(std::span<const std::uint8_t> bytes, const std::string& source,
                                        bool keep_circuits, bool verify = true);

}  // namespace cuzk::daemon
