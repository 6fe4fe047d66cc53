// Domain-separated seeds derived from a porep id: SHA256(tag || porep_id), as
// storage-proofs-core's derive_porep_domain_seed. The porep id is the registered proof's id (u64
// little-endian in bytes 0..8), a nonce (bytes 8..16), zeros after.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace cuzk::graph {

using porep_id_t = std::array<uint8_t, 32>;

inline constexpr std::string_view drsample_tag = "Filecoin_DRSample";
inline constexpr std::string_view feistel_tag = "Filecoin_Feistel";

std::array<uint8_t, 32> derive_porep_domain_seed(std::string_view tag, const porep_id_t& porep_id);

// The porep id of a registered proof id (e.g. 5 for StackedDrg2KiBV1_1) and nonce.
porep_id_t porep_id_of(uint64_t registered_proof_id, uint64_t nonce = 0);

}  // namespace cuzk::graph
