#include "common/update/vanilla_encoding.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/poseidon/poseidon.hpp"
#include "common/update/randomness_hash.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

using c1::to_hex;

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

std::string hex_of(const ff::fr_t& x) { return to_hex(bytes_of(x)); }

class encoding_checker {
public:
    encoding_checker(const partition_proof& p, const update_shape& shape, unsigned k, const update_commitments& pub,
                     const ff::fr_t& phi, std::string_view source)
        : p_(p), shape_(shape), k_(k), pub_(pub), phi_(phi), where_(fmt::format("{}: partition {}", source, k)) {}

    void run() const {
        if (p_.challenge_proofs.size() != shape_.challenge_count)
            fail(where_, fmt::format("{} challenge proofs, expected {}", p_.challenge_proofs.size(),
                                     shape_.challenge_count));
        const ff::fr_t comm_c = fr_of(where_, p_.comm_c, "comm_c");
        const challenge_proof& first = p_.challenge_proofs[0];
        commitment(comm_c, first.proof_r_old.root, "root_r_old", pub_.comm_r_old, "comm_r_old");
        commitment(comm_c, first.proof_r_new.root, "root_r_new", pub_.comm_r_new, "comm_r_new");
        const std::vector<uint64_t> challenges = partition_challenges(shape_, pub_.comm_r_new, k_);
        for (size_t c = 0; c < challenges.size(); ++c) check_challenge(c, challenges[c], p_.challenge_proofs[c]);
    }

private:
    [[noreturn]] static void fail(const std::string& where, const std::string& what) {
        throw input_error(where + ": " + what);
    }

    static ff::fr_t fr_of(const std::string& where, const domain_t& d, std::string_view field) {
        ff::fr_t out;
        if (!ff::fr_t::from_bytes_le(d.data(), out))
            fail(where, fmt::format("{} {} is not a canonical field element (the little-endian value is >= r)", field,
                                    to_hex(d)));
        return out;
    }

    // The circuit's hash2(comm_c, root) == comm_r, with root challenge 0's (vanilla_verify checks the others
    // share it).
    void commitment(const ff::fr_t& comm_c, const domain_t& root, std::string_view root_name, const ff::fr_t& comm_r,
                    std::string_view comm_r_name) const {
        const ff::fr_t hashed = poseidon::hash2(comm_c, fr_of(where_, root, root_name));
        if (hashed != comm_r)
            fail(where_, fmt::format("Poseidon(comm_c {}, {} {}) = {}, not {} {} (the {} of challenge 0's opening)",
                                     to_hex(p_.comm_c), root_name, to_hex(root), hex_of(hashed), comm_r_name,
                                     hex_of(comm_r), root_name));
    }

    void check_challenge(size_t c, uint64_t node, const challenge_proof& cp) const {
        const std::string where = fmt::format("{}, challenge {}", where_, c);
        const uint64_t r_old = cp.proof_r_old.leaf_index(), d_new = cp.proof_d_new.leaf_index(),
                       r_new = cp.proof_r_new.leaf_index();
        if (r_old != node || d_new != node || r_new != node)
            fail(where, fmt::format("proof_r_old opens node {}, proof_d_new node {}, proof_r_new node {}; challenge {} "
                                    "of partition {} for comm_r_new {} is node {}",
                                    r_old, d_new, r_new, c, k_, hex_of(pub_.comm_r_new), node));
        const ff::fr_t root_d = fr_of(where + ", proof_d_new", cp.proof_d_new.root, "root");
        if (root_d != pub_.comm_d_new)
            fail(where + ", proof_d_new", fmt::format("its root {} is not comm_d_new {}", to_hex(cp.proof_d_new.root),
                                                      hex_of(pub_.comm_d_new)));
        const ff::fr_t leaf_r_old = fr_of(where + ", proof_r_old", cp.proof_r_old.leaf, "leaf");
        const ff::fr_t leaf_d_new = fr_of(where + ", proof_d_new", cp.proof_d_new.leaf, "leaf");
        const ff::fr_t leaf_r_new = fr_of(where + ", proof_r_new", cp.proof_r_new.leaf, "leaf");
        const uint64_t high = challenge_high(shape_, node, pub_.h);
        const ff::fr_t encoded = leaf_r_old + leaf_d_new * rho(phi_, high);
        if (encoded != leaf_r_new)
            fail(where, fmt::format("node {}: leaf_r_new {} is not leaf_r_old + leaf_d_new * rho = {} (h = {}, high "
                                    "bits {}, phi of comm_d_new {} and comm_r_old {})",
                                    node, to_hex(cp.proof_r_new.leaf), hex_of(encoded), pub_.h, high,
                                    hex_of(pub_.comm_d_new), hex_of(pub_.comm_r_old)));
    }

    const partition_proof& p_;
    const update_shape& shape_;
    unsigned k_;
    const update_commitments& pub_;
    const ff::fr_t& phi_;
    std::string where_;
};

void check_h(const update_shape& shape, unsigned h, std::string_view source) {
    try {
        (void)shape.h_select(h);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", source, e.what()));
    }
}

}  // namespace

void check_partition_encoding(const partition_proof& proof, const update_shape& shape, unsigned k,
                              const update_commitments& pub, std::string_view source) {
    check_h(shape, pub.h, source);
    if (k >= shape.partition_count)
        throw input_error(fmt::format("{}: partition {}: a sector of {} nodes has {} partitions", source, k,
                                      shape.nodes, shape.partition_count));
    encoding_checker(proof, shape, k, pub, phi(pub.comm_d_new, pub.comm_r_old), source).run();
}

void check_update_encoding(std::span<const partition_proof> partitions, const update_shape& shape,
                           const update_commitments& pub, std::string_view source) {
    check_h(shape, pub.h, source);
    if (partitions.size() != shape.partition_count)
        throw input_error(fmt::format("{}s: {} partition proofs; a sector of {} nodes has {} partitions", source,
                                      partitions.size(), shape.nodes, shape.partition_count));
    const ff::fr_t phi_value = phi(pub.comm_d_new, pub.comm_r_old);
    for (unsigned k = 0; k < partitions.size(); ++k)
        encoding_checker(partitions[k], shape, k, pub, phi_value, source).run();
}

}  // namespace cuzk::update
