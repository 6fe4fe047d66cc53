// The vanilla proofs Curio sends for WindowPoSt and WinningPoSt: one FallbackPoStSectorProof per sector in
// bincode 1.x's default encoding (filecoin-ffi GenerateSingleVanillaProof; layout in
// shared/reference/filecoin-post-snap.md 2.7): integers little-endian, Vec lengths and usize as u64, enum
// variants as a u32 tag (MerkleProof: 0 Single, 1 Sub, 2 Top), 32-byte domain values without a length.
//
// The decoder is strict: every length must be the one |shape| fixes and is checked before anything is
// allocated, every path position must address a child, every domain value must be a canonical field
// element, nothing may follow the proof. Errors (cuzk::input_error) name the source, the sector (once its id
// is read), the inclusion proof, the path and level, the field and its byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/post/vanilla_proof.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::post {

fallback_sector_proof decode_sector_proof(std::span<const uint8_t> bytes, const vanilla_shape& shape,
                                          std::string_view source = "vanilla proof");

// The exact inverse of the decoder; writes whatever |proof| holds (check_shape first to refuse a bad shape).
std::vector<uint8_t> encode_sector_proof(const fallback_sector_proof& proof);

// One WindowPoSt partition as sent: 1 .. |max_sectors| proofs (the registered proof's sector count), in
// strictly ascending sector number as Curio sorts them and the verifier's BTreeMap orders them. Errors name
// the proof's position ("<source> 3") and, for the order, both sectors.
std::vector<fallback_sector_proof> decode_window_proofs(std::span<const std::span<const uint8_t>> proofs,
                                                        const vanilla_shape& shape, uint64_t max_sectors,
                                                        std::string_view source = "WindowPoSt vanilla proof");

// A WinningPoSt request: exactly one sector (its 66 inclusion proofs become 66 circuit slots).
fallback_sector_proof decode_winning_proof(std::span<const std::span<const uint8_t>> proofs,
                                           const vanilla_shape& shape,
                                           std::string_view source = "WinningPoSt vanilla proof");

// The order rule alone, for proofs already in memory.
void check_window_order(std::span<const fallback_sector_proof> sectors,
                        std::string_view source = "WindowPoSt vanilla proof");

}  // namespace cuzk::post
