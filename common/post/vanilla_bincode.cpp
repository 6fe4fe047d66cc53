#include "common/post/vanilla_bincode.hpp"

#include <fmt/format.h>

#include <string>

#include "common/bincode/merkle_proof_bincode.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

// Reads one FallbackPoStSectorProof; its contexts are the sector once its id is known, then the inclusion proof.
fallback_sector_proof read_sector_proof(bincode::reader& in, const vanilla_shape& shape) {
    const bincode::merkle_shape tree_r{shape.base_arity, shape.base_levels, shape.sub_arity, shape.top_arity};
    fallback_sector_proof p;
    p.sector_id = in.u64("sector_id");
    bincode::reader::context_scope sector(in, fmt::format("sector {}", p.sector_id));
    p.comm_r = in.domain("comm_r");
    in.length("vanilla_proof.sectors length", 1);
    p.sectors.resize(1);
    sector_proof& s = p.sectors[0];
    in.length("inclusion_proofs length", shape.challenges);
    s.inclusion_proofs.resize(shape.challenges);
    {
        bincode::reader::context_scope proof(in, "");
        for (unsigned n = 0; n < shape.challenges; ++n) {
            proof.set(fmt::format("inclusion proof {}", n));
            s.inclusion_proofs[n] = bincode::read_merkle_proof(in, tree_r, "this sector size's tree R");
        }
    }
    s.comm_c = in.domain("comm_c");
    s.comm_r_last = in.domain("comm_r_last");
    in.finish("end of the proof");
    return p;
}

std::string proof_source(std::string_view source, size_t i) { return fmt::format("{} {}", source, i); }

// Sectors |i| - 1 and |i| of a WindowPoSt partition.
void check_order(uint64_t before, uint64_t id, size_t i, std::string_view source) {
    if (id == before)
        throw input_error(
            fmt::format("{}s {} and {}: sector {} twice; a partition proves each sector once", source, i - 1, i, id));
    if (id < before)
        throw input_error(fmt::format(
            "{}s {} and {}: sector {} after sector {}; the sectors must come in strictly ascending sector number",
            source, i - 1, i, id, before));
}

}  // namespace

fallback_sector_proof decode_sector_proof(std::span<const uint8_t> bytes, const vanilla_shape& shape,
                                          std::string_view source) {
    bincode::reader in(bytes, source);
    return read_sector_proof(in, shape);
}

std::vector<uint8_t> encode_sector_proof(const fallback_sector_proof& proof) {
    std::vector<uint8_t> out;
    bincode::writer w(out);
    w.u64(proof.sector_id);
    w.domain(proof.comm_r);
    w.u64(proof.sectors.size());
    for (const sector_proof& s : proof.sectors) {
        w.u64(s.inclusion_proofs.size());
        for (const c1::merkle_proof& p : s.inclusion_proofs) bincode::write_merkle_proof(w, p);
        w.domain(s.comm_c);
        w.domain(s.comm_r_last);
    }
    return out;
}

void check_window_order(std::span<const fallback_sector_proof> sectors, std::string_view source) {
    for (size_t i = 1; i < sectors.size(); ++i) check_order(sectors[i - 1].sector_id, sectors[i].sector_id, i, source);
}

std::vector<fallback_sector_proof> decode_window_proofs(std::span<const std::span<const uint8_t>> proofs,
                                                        const vanilla_shape& shape, uint64_t max_sectors,
                                                        std::string_view source) {
    if (proofs.empty())
        throw input_error(fmt::format("{}s: none; a WindowPoSt partition proves at least one sector", source));
    if (proofs.size() > max_sectors)
        throw input_error(fmt::format("{}s: {} sectors, more than the {} of one partition", source, proofs.size(),
                                      max_sectors));
    std::vector<fallback_sector_proof> out;
    out.reserve(proofs.size());
    for (size_t i = 0; i < proofs.size(); ++i) {
        out.push_back(decode_sector_proof(proofs[i], shape, proof_source(source, i)));
        if (i > 0) check_order(out[i - 1].sector_id, out[i].sector_id, i, source);
    }
    return out;
}

fallback_sector_proof decode_winning_proof(std::span<const std::span<const uint8_t>> proofs,
                                           const vanilla_shape& shape, std::string_view source) {
    if (proofs.size() != 1)
        throw input_error(fmt::format("{}s: {} sectors; a WinningPoSt proves exactly one", source, proofs.size()));
    return decode_sector_proof(proofs[0], shape, proof_source(source, 0));
}

}  // namespace cuzk::post
