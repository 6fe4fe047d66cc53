#include "common/post/vanilla_bincode.hpp"

#include <fmt/format.h>

#include <string>

#include "common/ff/bls12_381.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

constexpr uint32_t tag_of(c1::merkle_proof_kind k) {
    return k == c1::merkle_proof_kind::single ? 0 : k == c1::merkle_proof_kind::sub ? 1 : 2;
}
constexpr const char* variant_names[] = {"Single", "Sub", "Top"};

// Reads one FallbackPoStSectorProof. |where_| is the context of the value being read: the sector once its id
// is known, the inclusion proof, the path and level.
class decoder {
public:
    decoder(std::span<const uint8_t> in, const vanilla_shape& shape, std::string_view source)
        : in_(in), shape_(shape), source_(source) {}

    fallback_sector_proof read() {
        fallback_sector_proof p;
        p.sector_id = u64("sector_id");
        sector_ = fmt::format("sector {}", p.sector_id);
        p.comm_r = domain("comm_r");
        length("vanilla_proof.sectors length", 1);
        p.sectors.resize(1);
        sector_proof& s = p.sectors[0];
        length("inclusion_proofs length", shape_.challenges);
        s.inclusion_proofs.resize(shape_.challenges);
        for (unsigned n = 0; n < shape_.challenges; ++n) {
            proof_ = fmt::format("inclusion proof {}", n);
            s.inclusion_proofs[n] = inclusion();
        }
        proof_.clear();
        s.comm_c = domain("comm_c");
        s.comm_r_last = domain("comm_r_last");
        if (pos_ != in_.size())
            fail(pos_, "end of the proof", fmt::format("{} trailing bytes", in_.size() - pos_));
        return p;
    }

private:
    [[noreturn]] void fail(size_t at, std::string_view field, const std::string& what) const {
        std::string where(source_);
        where += ": ";
        for (const std::string* part : {&sector_, &proof_, &path_})
            if (!part->empty()) where += *part + ", ";
        throw input_error(fmt::format("{}{} at byte {}: {}", where, field, at, what));
    }

    const uint8_t* take(size_t n, std::string_view field) {
        if (in_.size() - pos_ < n)
            fail(pos_, field,
                 fmt::format("truncated: the input ends at byte {} ({} of {} bytes there)", in_.size(),
                             in_.size() - pos_, n));
        const uint8_t* p = in_.data() + pos_;
        pos_ += n;
        return p;
    }

    uint64_t u64(std::string_view field) {
        const uint8_t* p = take(8, field);
        uint64_t v = 0;
        for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
        return v;
    }

    uint32_t u32(std::string_view field) {
        const uint8_t* p = take(4, field);
        return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    }

    c1::domain_t domain(std::string_view field) {
        const size_t at = pos_;
        c1::domain_t d{};
        const uint8_t* p = take(32, field);
        std::copy(p, p + 32, d.begin());
        ff::fr_t unused;
        if (!ff::fr_t::from_bytes_le(d.data(), unused))
            fail(at, field, "not a canonical field element (the little-endian value is >= r)");
        return d;
    }

    // A Vec length that the shape fixes: checked before the caller allocates.
    void length(std::string_view field, uint64_t expected) {
        const size_t at = pos_;
        const uint64_t n = u64(field);
        if (n != expected) fail(at, field, fmt::format("{}, expected {}", n, expected));
    }

    std::vector<c1::path_element> path(std::string_view part, unsigned arity, unsigned levels) {
        path_ = std::string(part);
        length("path length", levels);
        std::vector<c1::path_element> out(levels);
        for (unsigned l = 0; l < levels; ++l) {
            path_ = fmt::format("{} level {}", part, l);
            c1::path_element& e = out[l];
            length("hashes length", arity - 1);
            e.hashes.resize(arity - 1);
            for (unsigned h = 0; h + 1 < arity; ++h) e.hashes[h] = domain(fmt::format("hashes[{}]", h));
            const size_t at = pos_;
            e.index = u64("index");
            if (e.index >= arity) fail(at, "index", fmt::format("{} is not below the arity {}", e.index, arity));
        }
        path_.clear();
        return out;
    }

    c1::merkle_proof inclusion() {
        c1::merkle_proof p;
        p.kind = shape_.kind();
        const size_t at = pos_;
        const uint32_t tag = u32("MerkleProof variant tag");
        if (tag > 2)
            fail(at, "MerkleProof variant tag", fmt::format("{} is no variant (0 Single, 1 Sub, 2 Top)", tag));
        if (tag != tag_of(p.kind))
            fail(at, "MerkleProof variant tag",
                 fmt::format("{} ({}), expected {} ({}) for this sector size's tree R", tag, variant_names[tag],
                             tag_of(p.kind), variant_names[tag_of(p.kind)]));
        if (p.kind == c1::merkle_proof_kind::single) {  // SingleProof { root, leaf, path }
            p.root = domain("root");
            p.leaf = domain("leaf");
            p.base_path = path("base path", shape_.base_arity, shape_.base_levels);
        } else {  // SubProof / TopProof { base_proof, sub_proof, [top_proof,] root, leaf }
            p.base_path = path("base path", shape_.base_arity, shape_.base_levels);
            p.sub_path = path("sub path", shape_.sub_arity, 1);
            if (p.kind == c1::merkle_proof_kind::top) p.top_path = path("top path", shape_.top_arity, 1);
            p.root = domain("root");
            p.leaf = domain("leaf");
        }
        return p;
    }

    std::span<const uint8_t> in_;
    const vanilla_shape& shape_;
    std::string_view source_;
    size_t pos_ = 0;
    std::string sector_, proof_, path_;
};

class encoder {
public:
    explicit encoder(std::vector<uint8_t>& out) : out_(out) {}

    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    void domain(const c1::domain_t& d) { out_.insert(out_.end(), d.begin(), d.end()); }

    void path(const std::vector<c1::path_element>& path) {
        u64(path.size());
        for (const c1::path_element& e : path) {
            u64(e.hashes.size());
            for (const c1::domain_t& h : e.hashes) domain(h);
            u64(e.index);
        }
    }

    void inclusion(const c1::merkle_proof& p) {
        u32(tag_of(p.kind));
        if (p.kind == c1::merkle_proof_kind::single) {
            domain(p.root);
            domain(p.leaf);
            path(p.base_path);
        } else {
            path(p.base_path);
            path(p.sub_path);
            if (p.kind == c1::merkle_proof_kind::top) path(p.top_path);
            domain(p.root);
            domain(p.leaf);
        }
    }

private:
    std::vector<uint8_t>& out_;
};

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
    return decoder(bytes, shape, source).read();
}

std::vector<uint8_t> encode_sector_proof(const fallback_sector_proof& proof) {
    std::vector<uint8_t> out;
    encoder e(out);
    e.u64(proof.sector_id);
    e.domain(proof.comm_r);
    e.u64(proof.sectors.size());
    for (const sector_proof& s : proof.sectors) {
        e.u64(s.inclusion_proofs.size());
        for (const c1::merkle_proof& p : s.inclusion_proofs) e.inclusion(p);
        e.domain(s.comm_c);
        e.domain(s.comm_r_last);
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
