#include "common/bincode/merkle_proof_bincode.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace cuzk::bincode {

namespace {

constexpr uint32_t tag_of(c1::merkle_proof_kind k) {
    return k == c1::merkle_proof_kind::single ? 0 : k == c1::merkle_proof_kind::sub ? 1 : 2;
}
constexpr const char* variant_names[] = {"Single", "Sub", "Top"};

// bincode: a Vec's u64 length, the siblings, the usize position.
uint64_t path_element_bytes(unsigned arity) { return 8 + uint64_t(arity - 1) * 32 + 8; }
uint64_t inclusion_path_bytes(unsigned arity, unsigned levels) { return 8 + levels * path_element_bytes(arity); }

std::vector<c1::path_element> read_path(reader& in, std::string_view part, unsigned arity, unsigned levels) {
    reader::context_scope where(in, std::string(part));
    in.length("path length", levels);
    std::vector<c1::path_element> out(levels);
    for (unsigned l = 0; l < levels; ++l) {
        where.set(fmt::format("{} level {}", part, l));
        c1::path_element& e = out[l];
        in.length("hashes length", arity - 1);
        e.hashes.resize(arity - 1);
        for (unsigned h = 0; h + 1 < arity; ++h) e.hashes[h] = in.domain(fmt::format("hashes[{}]", h));
        const size_t at = in.position();
        e.index = in.u64("index");
        if (e.index >= arity) in.fail(at, "index", fmt::format("{} is not below the arity {}", e.index, arity));
    }
    return out;
}

void write_path(writer& out, const std::vector<c1::path_element>& path) {
    out.u64(path.size());
    for (const c1::path_element& e : path) {
        out.u64(e.hashes.size());
        for (const c1::domain_t& h : e.hashes) out.domain(h);
        out.u64(e.index);
    }
}

}  // namespace

c1::merkle_proof_kind merkle_shape::kind() const {
    return top_arity ? c1::merkle_proof_kind::top
           : sub_arity ? c1::merkle_proof_kind::sub
                       : c1::merkle_proof_kind::single;
}

uint64_t merkle_shape::leaves() const {
    uint64_t n = sub_arity ? sub_arity : 1;
    if (top_arity) n *= top_arity;
    for (unsigned l = 0; l < base_levels; ++l) n *= base_arity;
    return n;
}

uint64_t merkle_shape::proof_bytes() const {
    uint64_t bytes = 4 + 32 + 32 + inclusion_path_bytes(base_arity, base_levels);  // tag, root, leaf, base path
    if (sub_arity) bytes += inclusion_path_bytes(sub_arity, 1);
    if (top_arity) bytes += inclusion_path_bytes(top_arity, 1);
    return bytes;
}

const char* kind_name(c1::merkle_proof_kind k) { return variant_names[tag_of(k)]; }

c1::merkle_proof read_merkle_proof(reader& in, const merkle_shape& shape, std::string_view tree) {
    c1::merkle_proof p;
    p.kind = shape.kind();
    const size_t at = in.position();
    const uint32_t tag = in.u32("MerkleProof variant tag");
    if (tag > 2) in.fail(at, "MerkleProof variant tag", fmt::format("{} is no variant (0 Single, 1 Sub, 2 Top)", tag));
    if (tag != tag_of(p.kind))
        in.fail(at, "MerkleProof variant tag",
                fmt::format("{} ({}), expected {} ({}) for {}", tag, variant_names[tag], tag_of(p.kind),
                            variant_names[tag_of(p.kind)], tree));
    if (p.kind == c1::merkle_proof_kind::single) {  // SingleProof { root, leaf, path }
        p.root = in.domain("root");
        p.leaf = in.domain("leaf");
        p.base_path = read_path(in, "base path", shape.base_arity, shape.base_levels);
    } else {  // SubProof / TopProof { base_proof, sub_proof, [top_proof,] root, leaf }
        p.base_path = read_path(in, "base path", shape.base_arity, shape.base_levels);
        p.sub_path = read_path(in, "sub path", shape.sub_arity, 1);
        if (p.kind == c1::merkle_proof_kind::top) p.top_path = read_path(in, "top path", shape.top_arity, 1);
        p.root = in.domain("root");
        p.leaf = in.domain("leaf");
    }
    return p;
}

void write_merkle_proof(writer& out, const c1::merkle_proof& p) {
    out.u32(tag_of(p.kind));
    if (p.kind == c1::merkle_proof_kind::single) {
        out.domain(p.root);
        out.domain(p.leaf);
        write_path(out, p.base_path);
    } else {
        write_path(out, p.base_path);
        write_path(out, p.sub_path);
        if (p.kind == c1::merkle_proof_kind::top) write_path(out, p.top_path);
        out.domain(p.root);
        out.domain(p.leaf);
    }
}

}  // namespace cuzk::bincode
