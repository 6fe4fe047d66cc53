#include "daemon/post_job_input.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "common/post/post_partition.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/util/errors.hpp"
#include "daemon/job_file_fields.hpp"

namespace cuzk::daemon {

namespace {

constexpr char magic[] = "cuzk-post-job 1\n";
constexpr std::size_t magic_bytes = sizeof magic - 1;


}  // namespace

std::string encode_post_job_input(const post::registered_post_proof& proof, const post::bytes32& randomness,
                                  std::span<const std::string_view> vanilla_proofs) {
    if (vanilla_proofs.empty() || vanilla_proofs.size() > proof.sector_count)
        throw input_error(fmt::format("{} vanilla proofs; {} takes {} per partition", vanilla_proofs.size(), proof.name,
                                      proof.kind == post::post_kind::winning
                                          ? std::string("exactly 1")
                                          : fmt::format("1 to {}", proof.sector_count)));
    std::size_t bytes = magic_bytes + 8 + 32 + 8;
    for (const auto& v : vanilla_proofs) bytes += 8 + v.size();
    std::string out;
    out.reserve(bytes);
    out.append(magic, magic_bytes);
    put_u64(out, proof.id);
    out.append(reinterpret_cast<const char*>(randomness.data()), randomness.size());
    put_u64(out, vanilla_proofs.size());
    for (const auto& v : vanilla_proofs) {
        put_u64(out, v.size());
        out += v;
    }
    return out;
}

namespace {

// The fields before the proofs, checked; |r| left at the first proof's length.
struct job_header {
    const post::registered_post_proof* proof = nullptr;
    post::bytes32 randomness{};
    std::uint64_t count = 0;
};

job_header read_header(job_file_reader& r) {
    const auto head = r.take(magic_bytes, "the header");
    if (std::memcmp(head.data(), magic, magic_bytes) != 0) {
        r.at = 0;
        r.fail("not a PoSt job input (no 'cuzk-post-job 1' header)");
    }
    job_header h;
    const auto id = r.u64("the registered PoSt proof");
    try {
        h.proof = &post::registered_post_proof_by_id(id);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", r.source, e.what()));
    }
    const auto random = r.take(32, "the randomness");
    std::copy(random.begin(), random.end(), h.randomness.begin());
    post::check_randomness(h.randomness, r.source + ": randomness");
    h.count = r.u64("the vanilla proof count");
    if (h.count == 0 || h.count > h.proof->sector_count)
        r.fail(fmt::format("{} vanilla proofs; {} takes {}", h.count, h.proof->name,
                           h.proof->kind == post::post_kind::winning ? std::string("exactly 1")
                                                                     : fmt::format("1 to {}", h.proof->sector_count)));
    return h;
}

}  // namespace

std::pair<const post::registered_post_proof*, std::uint64_t> parse_post_job_header(std::span<const std::uint8_t> bytes,
                                                                                  const std::string& source) {
    job_file_reader r{bytes, source};
    const auto h = read_header(r);
    return {h.proof, h.count};
}

post_job_input parse_post_job_input(std::span<const std::uint8_t> bytes, const std::string& source,
                                    bool keep_circuit, bool verify) {
    job_file_reader r{bytes, source};
    const auto h = read_header(r);
    post_job_input in;
    in.proof = h.proof;
    in.randomness = h.randomness;
    const auto count = h.count;
    std::vector<std::span<const std::uint8_t>> proofs;
    proofs.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto n = r.u64("a vanilla proof's length");
        if (n > bytes.size() - r.at)
            r.fail(fmt::format("vanilla_proofs[{}] claims {} bytes, {} are left", i, n, bytes.size() - r.at));
        proofs.push_back(r.take(n, "a vanilla proof"));
    }
    if (r.at != bytes.size()) r.fail(fmt::format("{} bytes after the last vanilla proof", bytes.size() - r.at));

    const post::vanilla_shape shape = post::vanilla_shape_of(in.proof->sector_size, in.proof->challenge_count);
    // "<source>: vanilla proof 3: ...": the decoder's own form, which counts from 0 as vanilla_proofs does.
    const std::string what = source + ": vanilla proof";
    std::vector<post::fallback_sector_proof> sectors;
    if (in.proof->kind == post::post_kind::winning)
        sectors.push_back(post::decode_winning_proof(proofs, shape, what));
    else
        sectors = post::decode_window_proofs(proofs, shape, in.proof->sector_count, what);
    in.sectors = sectors.size();
    std::vector<std::string> sources;
    for (std::size_t i = 0; i < sectors.size(); ++i) sources.push_back(fmt::format("{} {}", what, i));
    auto circuit = std::make_shared<const post::post_partition_circuit>(
        post::partition_circuit_of(*in.proof, in.randomness, sectors, sources, verify));
    in.public_inputs = circuit->public_inputs();
    if (keep_circuit) in.circuit = std::move(circuit);
    return in;
}

post_job_input read_post_job_input(const std::filesystem::path& path, const std::string& source, bool keep_circuit,
                                   bool verify) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw input_error(fmt::format("{}: cannot read the PoSt job input", source));
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(f), {}};
    if (f.bad()) throw input_error(fmt::format("{}: read error", source));
    return parse_post_job_input(bytes, source, keep_circuit, verify);
}

}  // namespace cuzk::daemon
