// The zcash encoding of BLS12-381 points, used by bellperson .params/.vk files and 192-byte proofs.
//
// Coordinates are canonical big-endian Fp values, 48 bytes each; an Fp2 value is written c1 then
// c0. The three top bits of byte 0 are flags:
//   0x80 compressed: only x is written, and 0x20 tells which root y is;
//   0x40 infinity:   every other bit of the encoding is zero;
//   0x20 sort:       y is the lexicographically larger root (Fp: y > (p-1)/2; Fp2: by c1, then
//                    by c0 when c1 == 0); set only on a compressed, finite point.
// Decoders never allocate or throw: millions of points are decoded in parallel when a parameter
// file is loaded. They always check flags, canonical coordinates and the curve equation; the
// subgroup check (a few dozen curve doublings) can be skipped for trusted files.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ec/affine.hpp"

namespace cuzk::ec {

inline constexpr size_t G1_COMPRESSED_BYTES = 48;
inline constexpr size_t G1_UNCOMPRESSED_BYTES = 96;
inline constexpr size_t G2_COMPRESSED_BYTES = 96;
inline constexpr size_t G2_UNCOMPRESSED_BYTES = 192;

enum class decode_error {
    ok,
    bad_flags,        // compression bit wrong for the form, or sort bit where it is not allowed
    non_canonical,    // a coordinate >= p
    not_on_curve,     // no point has this x (compressed), or (x, y) misses the curve equation
    not_in_subgroup,  // on the curve, outside the order-r subgroup
    bad_infinity,     // infinity flag with a non-zero bit elsewhere
};

// Human-readable text for logs and error messages, e.g. "coordinate is not canonical (>= p)".
const char* to_string(decode_error e);

// unchecked skips only the subgroup check, for files whose origin is trusted (bellperson offers
// the same choice when it reads parameters); the curve equation is still checked.
enum class subgroup_check { checked, unchecked };

void g1_to_compressed(const g1_affine_t& p, uint8_t* out48);
void g1_to_uncompressed(const g1_affine_t& p, uint8_t* out96);
void g2_to_compressed(const g2_affine_t& p, uint8_t* out96);
void g2_to_uncompressed(const g2_affine_t& p, uint8_t* out192);

// |out| is written only when the result is decode_error::ok.
decode_error g1_from_compressed(const uint8_t* in48, g1_affine_t& out,
                                subgroup_check check = subgroup_check::checked);
decode_error g1_from_uncompressed(const uint8_t* in96, g1_affine_t& out,
                                  subgroup_check check = subgroup_check::checked);
decode_error g2_from_compressed(const uint8_t* in96, g2_affine_t& out,
                                subgroup_check check = subgroup_check::checked);
decode_error g2_from_uncompressed(const uint8_t* in192, g2_affine_t& out,
                                  subgroup_check check = subgroup_check::checked);

}  // namespace cuzk::ec
