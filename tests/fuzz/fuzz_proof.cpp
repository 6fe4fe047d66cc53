// The Groth16 proof decoder (common/groth16/proof.cpp): 192 bytes per proof, A, B, C compressed, each
// canonical, on the curve, in its subgroup and not the identity; proofs_from_bytes for a multi-partition
// proof, proof_from_bytes for one.
// Invariants: only groth16::proof_decode_error escapes, its offset inside the input; decoded proofs encode
// (proofs_to_bytes) to the input exactly; both decoders agree on a 192-byte input.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/groth16/proof.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    const std::span<const std::uint8_t> bytes(data, size);
    std::vector<groth16::proof> proofs;
    try {
        proofs = groth16::proofs_from_bytes(bytes);
    } catch (const groth16::proof_decode_error& e) {
        fuzz::check(e.offset() <= size, "proof_decode_error's offset is past the input");
        if (size == groth16::PROOF_BYTES) {
            try {
                (void)groth16::proof_from_bytes(bytes);
                fuzz::invariant_failed("proof_from_bytes takes a proof proofs_from_bytes refuses");
            } catch (const groth16::proof_decode_error&) {
            }
        }
        return 0;
    }
    fuzz::check(proofs.size() * groth16::PROOF_BYTES == size, "proofs_from_bytes: count times 192 is not the size");
    const std::vector<std::uint8_t> encoded = groth16::proofs_to_bytes(proofs);
    fuzz::check(std::equal(encoded.begin(), encoded.end(), bytes.begin(), bytes.end()),
                "proofs_to_bytes of decoded proofs differs from the input");
    if (size == groth16::PROOF_BYTES)
        fuzz::check(groth16::proof_from_bytes(bytes) == proofs[0], "proof_from_bytes and proofs_from_bytes differ");
    return 0;
}
