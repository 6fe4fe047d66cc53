// The input of a WindowPoSt or WinningPoSt job (proof kinds window_post, winning_post), as the API spools it
// and assemblerd and synthd read it: the registered PoSt proof, the randomness and the vanilla proofs Curio
// sent (one bincode FallbackPoStSectorProof per sector, ascending sector numbers), in one binary file:
//   "cuzk-post-job 1\n"                    16 bytes
//   registered PoSt proof, Go abi id       u64 little-endian (0..14)
//   randomness                             32 bytes
//   vanilla proof count N                  u64 (checked against the registered proof before anything else)
//   N x (length u64, the proof's bytes)    each length checked against what is left of the file
// Reading decodes every proof strictly (post/vanilla_bincode.hpp: every length against the registered proof,
// errors naming vanilla_proofs[i] and the byte offset) and verifies it natively (post/post_partition.hpp),
// refusing a bad one naming its sector before any synthesis. One partition a job: Curio sends one WindowPoSt
// partition per request (partition_index 0), and a WinningPoSt is one partition.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/post/challenges.hpp"
#include "common/post/post_circuit.hpp"
#include "common/post/registered_post_proof.hpp"

namespace cuzk::daemon {

struct post_job_input {
    const post::registered_post_proof* proof = nullptr;
    post::bytes32 randomness{};
    std::uint64_t sectors = 0;
    std::vector<ff::fr_t> public_inputs;  // generate_public_inputs of the partition, without ONE
    std::shared_ptr<const post::post_partition_circuit> circuit;  // with its witness; only when read with keep

    // "post:StackedDrgWindow32GiBV1_1": the partition's circuit spec (its parameters' shape).
    std::string circuit_spec() const { return "post:" + std::string(proof->name); }
};

// The file's bytes (views of the proofs: a full WindowPoSt request is ~60 MB, copied once, here). Throws
// input_error for a proof count the registered proof does not allow.
std::string encode_post_job_input(const post::registered_post_proof& proof, const post::bytes32& randomness,
                                  std::span<const std::string_view> vanilla_proofs);

// The header alone (the registered proof and the vanilla proof count), nothing decoded. Throws input_error.
std::pair<const post::registered_post_proof*, std::uint64_t> parse_post_job_header(std::span<const std::uint8_t> bytes,
                                                                                  const std::string& source = "PoSt job input");

// Reads, decodes and verifies; |source| names the input in errors. Throws input_error. |verify| false: decoded and
// checked for shape and order only, for an input this service verified when it was submitted (synthd's read of
// assemblerd's spool: a 32 GiB WindowPoSt's 2,349 proofs cost seconds of every core to verify again).
post_job_input read_post_job_input(const std::filesystem::path& path, const std::string& source, bool keep_circuit,
                                   bool verify = true);
post_job_input parse_post_job_input(std::span<const std::uint8_t> bytes, const std::string& source,
                                    bool keep_circuit, bool verify = true);

}  // namespace cuzk::daemon
