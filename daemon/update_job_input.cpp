#include "daemon/update_job_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_shape.hpp"
#include "common/util/errors.hpp"
#include "daemon/job_file_fields.hpp"

namespace cuzk::daemon {

namespace {

constexpr char magic[] = "cuzk-update-job 1\n";
constexpr std::size_t magic_bytes = sizeof magic - 1;


// |name|'s 32 bytes as a field element (as_safe_commitment: a value >= r is refused, not reduced).
ff::fr_t commitment(const std::uint8_t* bytes, std::string_view name) {
    ff::fr_t out;
    if (!ff::fr_t::from_bytes_le(bytes, out))
        throw input_error(fmt::format("{} is not a field element (its 32 bytes, little-endian, are >= r)", name));
    return out;
}

// h as a proof of |shape| may pick it; input_error naming the allowed values.
unsigned checked_h(const update::update_shape& shape, std::uint64_t h, const update::registered_update_proof& proof) {
    std::string allowed;
    for (std::size_t i = 0; i < shape.hs.size(); ++i)
        if (std::find(shape.hs.begin(), shape.hs.begin() + i, shape.hs[i]) == shape.hs.begin() + i)
            allowed += (allowed.empty() ? "" : ", ") + std::to_string(shape.hs[i]);
    if (std::find(shape.hs.begin(), shape.hs.end(), h) == shape.hs.end())
        throw input_error(fmt::format("h {} is not one {} allows ({}; default {})", h, proof.name, allowed,
                                      shape.h_default()));
    return static_cast<unsigned>(h);
}

std::string partition_count_error(std::uint64_t n, const update::registered_update_proof& proof) {
    return fmt::format("{} partition proofs; {} takes exactly {} (one bincode PartitionProof per partition, in "
                       "partition order)",
                       n, proof.name, proof.shape().partition_count);
}

}  // namespace

std::string encode_update_job_input(const update::registered_update_proof& proof, unsigned h,
                                    const bytes32& comm_r_old, const bytes32& comm_d_new, const bytes32& comm_r_new,
                                    std::span<const std::string_view> partition_proofs) {
    const auto shape = proof.shape();
    if (partition_proofs.size() != shape.partition_count)
        throw input_error(partition_count_error(partition_proofs.size(), proof));
    (void)checked_h(shape, h, proof);
    (void)commitment(comm_r_old.data(), "comm_r_old");
    (void)commitment(comm_d_new.data(), "comm_d_new");
    (void)commitment(comm_r_new.data(), "comm_r_new");
    std::size_t bytes = magic_bytes + 8 + 8 + 3 * 32 + 8;
    for (const auto& v : partition_proofs) bytes += 8 + v.size();
    std::string out;
    out.reserve(bytes);
    out.append(magic, magic_bytes);
    put_u64(out, proof.id);
    put_u64(out, h);
    for (const auto* c : {&comm_r_old, &comm_d_new, &comm_r_new})
        out.append(reinterpret_cast<const char*>(c->data()), c->size());
    put_u64(out, partition_proofs.size());
    for (const auto& v : partition_proofs) {
        put_u64(out, v.size());
        out += v;
    }
    return out;
}

update_job_input parse_update_job_input(std::span<const std::uint8_t> bytes, const std::string& source,
                                        bool keep_circuits, bool verify) {
    job_file_reader r{bytes, source};
    const auto head = r.take(magic_bytes, "the header");
    if (std::memcmp(head.data(), magic, magic_bytes) != 0) {
        r.at = 0;
        r.fail("not a SnapDeals job input (no 'cuzk-update-job 1' header)");
    }
    update_job_input in;
    const auto id = r.u64("the registered update proof");
    try {
        in.proof = &update::registered_update_proof_by_id(id);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", source, e.what()));
    }
    const auto shape = in.proof->shape();
    const auto h = r.u64("h");
    try {
        in.pub.h = checked_h(shape, h, *in.proof);
    } catch (const input_error& e) {
        r.at -= 8;
        r.fail(e.what());
    }
    const char* names[] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    ff::fr_t* values[] = {&in.pub.comm_r_old, &in.pub.comm_d_new, &in.pub.comm_r_new};
    for (int i = 0; i < 3; ++i) {
        const auto c = r.take(32, names[i]);
        try {
            *values[i] = commitment(c.data(), names[i]);
        } catch (const input_error& e) {
            r.at -= 32;
            r.fail(e.what());
        }
    }
    const auto count = r.u64("the partition proof count");
    if (count != shape.partition_count) {
        r.at -= 8;
        r.fail(partition_count_error(count, *in.proof));
    }
    std::vector<std::span<const std::uint8_t>> proofs;
    proofs.reserve(count);
    for (std::uint64_t k = 0; k < count; ++k) {
        const auto n = r.u64("a partition proof's length");
        if (n > bytes.size() - r.at)
            r.fail(fmt::format("partition proof {} claims {} bytes, {} are left", k, n, bytes.size() - r.at));
        proofs.push_back(r.take(n, "a partition proof"));
    }
    if (r.at != bytes.size()) r.fail(fmt::format("{} bytes after the last partition proof", bytes.size() - r.at));

    // "<source>: StackedDrgUpdate2KiBV1: partition 0, challenge 3, proof_d_new ... at byte N: ...": the
    // decoder's and the checks' own forms, which count partitions from 0 as the request's list does.
    const auto vshape = update::update_vanilla_shape_of(in.proof->nodes());
    const std::string what = fmt::format("{}: {}", source, in.proof->name);
    std::vector<update::partition_proof> decoded;
    decoded.reserve(count);
    for (std::uint64_t k = 0; k < count; ++k)
        decoded.push_back(update::decode_partition_proof(proofs[k], vshape, k, what));
    std::vector<update::update_partition_circuit> circuits;
    try {
        circuits = update::partition_circuits_of(*in.proof, decoded, in.pub, {}, verify);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", source, e.what()));
    }
    for (const auto& c : circuits) in.public_inputs.push_back(c.public_inputs());
    if (keep_circuits)
        in.circuits = std::make_shared<const std::vector<update::update_partition_circuit>>(std::move(circuits));
    return in;
}

update_job_input read_update_job_input(const std::filesystem::path& path, const std::string& source,
                                       bool keep_circuits, bool verify) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw input_error(fmt::format("{}: cannot read the SnapDeals job input", source));
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(f), {}};
    if (f.bad()) throw input_error(fmt::format("{}: read error", source));
    return parse_update_job_input(bytes, source, keep_circuits, verify);
}

}  // namespace cuzk::daemon
