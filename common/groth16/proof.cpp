#include "common/groth16/proof.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "common/ec/serialization.hpp"

namespace cuzk::groth16 {

namespace {

constexpr size_t B_OFFSET = ec::G1_COMPRESSED_BYTES;
constexpr size_t C_OFFSET = ec::G1_COMPRESSED_BYTES + ec::G2_COMPRESSED_BYTES;
static_assert(C_OFFSET + ec::G1_COMPRESSED_BYTES == PROOF_BYTES);

// |offset| is the offending point's first byte in the caller's buffer, |label| e.g. "proof" or
// "proof[3]".
[[noreturn]] void fail(const std::string& label, const char* point, size_t offset, const char* reason) {
    throw proof_decode_error(fmt::format("{}: point {} at byte offset {}: {}", label, point, offset, reason), offset);
}

proof decode_one(const uint8_t* in, size_t base, const std::string& label) {
    proof p;
    ec::decode_error e = ec::g1_from_compressed(in, p.a, ec::subgroup_check::checked);
    if (e != ec::decode_error::ok) fail(label, "A", base, ec::to_string(e));
    if (p.a.is_identity()) fail(label, "A", base, "point at infinity");
    e = ec::g2_from_compressed(in + B_OFFSET, p.b, ec::subgroup_check::checked);
    if (e != ec::decode_error::ok) fail(label, "B", base + B_OFFSET, ec::to_string(e));
    if (p.b.is_identity()) fail(label, "B", base + B_OFFSET, "point at infinity");
    e = ec::g1_from_compressed(in + C_OFFSET, p.c, ec::subgroup_check::checked);
    if (e != ec::decode_error::ok) fail(label, "C", base + C_OFFSET, ec::to_string(e));
    if (p.c.is_identity()) fail(label, "C", base + C_OFFSET, "point at infinity");
    return p;
}

}  // namespace

std::array<uint8_t, PROOF_BYTES> proof_to_bytes(const proof& p) {
    std::array<uint8_t, PROOF_BYTES> out{};
    ec::g1_to_compressed(p.a, out.data());
    ec::g2_to_compressed(p.b, out.data() + B_OFFSET);
    ec::g1_to_compressed(p.c, out.data() + C_OFFSET);
    return out;
}

std::vector<uint8_t> proofs_to_bytes(std::span<const proof> proofs) {
    std::vector<uint8_t> out;
    out.reserve(proofs.size() * PROOF_BYTES);
    for (const proof& p : proofs) {
        auto b = proof_to_bytes(p);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

proof proof_from_bytes(std::span<const uint8_t> bytes) {
    if (bytes.size() != PROOF_BYTES)
        throw proof_decode_error(
            fmt::format("proof: expected {} bytes, got {}", PROOF_BYTES, bytes.size()), std::min(bytes.size(), PROOF_BYTES));
    return decode_one(bytes.data(), 0, "proof");
}

std::vector<proof> proofs_from_bytes(std::span<const uint8_t> bytes) {
    if (bytes.empty() || bytes.size() % PROOF_BYTES != 0)
        throw proof_decode_error(fmt::format("proofs: length {} is not a non-zero multiple of {} bytes",
                                             bytes.size(), PROOF_BYTES),
                                 bytes.size() - bytes.size() % PROOF_BYTES);
    std::vector<proof> out;
    out.reserve(bytes.size() / PROOF_BYTES);
    for (size_t i = 0; i < bytes.size() / PROOF_BYTES; ++i)
        out.push_back(decode_one(bytes.data() + i * PROOF_BYTES, i * PROOF_BYTES, fmt::format("proof[{}]", i)));
    return out;
}

}  // namespace cuzk::groth16
