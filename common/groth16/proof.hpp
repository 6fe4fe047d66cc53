// A Groth16 proof (A in G1, B in G2, C in G1) and its 192-byte form: A || B || C, each a zcash
// compressed point, as bellperson writes it. A multi-partition proof (PoRep C2) is the
// concatenation of its partitions' proofs, 192 bytes each.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ec/affine.hpp"
#include "common/util/errors.hpp"

namespace cuzk::groth16 {

inline constexpr size_t PROOF_BYTES = 192;

struct proof {
    ec::g1_affine_t a;
    ec::g2_affine_t b;
    ec::g1_affine_t c;

    friend bool operator==(const proof&, const proof&) = default;
};

// A proof that cannot be decoded. The message names the byte offset and the point (A, B, C) and
// the partition when several proofs are decoded.
class proof_decode_error : public input_error {
public:
    proof_decode_error(const std::string& what, size_t offset) : input_error(what), offset_(offset) {}
    // Offset of the first byte of the offending point, from the start of the decoded buffer.
    size_t offset() const { return offset_; }

private:
    size_t offset_;
};

std::array<uint8_t, PROOF_BYTES> proof_to_bytes(const proof& p);
// Appends 192 bytes per proof.
std::vector<uint8_t> proofs_to_bytes(std::span<const proof> proofs);

// Decodes exactly 192 bytes; each point must be canonical, on the curve, in its subgroup and not
// the identity (bellperson refuses the identity too). Throws proof_decode_error.
proof proof_from_bytes(std::span<const uint8_t> bytes);
// Decodes a concatenation of proofs; the length must be a non-zero multiple of 192.
std::vector<proof> proofs_from_bytes(std::span<const uint8_t> bytes);

}  // namespace cuzk::groth16
