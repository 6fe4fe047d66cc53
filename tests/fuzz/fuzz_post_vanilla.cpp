// The bincode decoder of PoSt vanilla proofs (common/post/vanilla_bincode.cpp: one FallbackPoStSectorProof as
// Curio sends it per sector). Byte 0 of the input picks the registered PoSt proof (of all_registered_post_proofs,
// modulo their number), whose shape the rest is decoded against.
// Invariants: only cuzk::input_error escapes; a proof that decodes encodes (encode_sector_proof) to its bytes
// exactly and passes check_shape, the check of proofs held in memory.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/post/registered_post_proof.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/util/errors.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    if (size == 0) return 0;
    const auto proofs = post::all_registered_post_proofs();
    const post::registered_post_proof& registered = proofs[data[0] % proofs.size()];
    const post::vanilla_shape shape = post::vanilla_shape_of(registered.sector_size, registered.challenge_count);
    const std::span<const std::uint8_t> bytes(data + 1, size - 1);
    post::fallback_sector_proof proof;
    try {
        proof = post::decode_sector_proof(bytes, shape, "fuzz input");
    } catch (const input_error&) {
        return 0;
    }
    fuzz::check(bytes.size() == shape.sector_proof_bytes(), "a decoded proof's size is not the shape's");
    const std::vector<std::uint8_t> encoded = post::encode_sector_proof(proof);
    fuzz::check(std::equal(encoded.begin(), encoded.end(), bytes.begin(), bytes.end()),
                "encode_sector_proof of a decoded proof differs from its bytes");
    try {
        post::check_shape(proof, shape, "decoded");
    } catch (const input_error& e) {
        fuzz::invariant_failed("check_shape refuses a proof the decoder took", e.what());
    }
    return 0;
}
