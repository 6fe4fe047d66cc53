// Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/), each seed made by the encoder or
// the producer of the real input: a C1 of a sealed 2 KiB sector, the .vk, .params and proof of a small test
// circuit, PoSt vanilla proofs of every tree R shape, PoSt job inputs, one frame of every control message, ring
// and CUDA lock segments as the daemons create them, the example configuration, and the gRPC requests Curio
// sends. Run it after a change of one of those formats, and commit what changes:
//   cmake --build build --target make_fuzz_seeds && build/tests/make_fuzz_seeds tests/fuzz/corpus
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_client.hpp"
#include "api/submission.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/setup.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/poseidon/constants.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/post/sample_post.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_generate.hpp"
#include "common/post/vanilla_shape.hpp"
#include "cuzk/v1/proving.pb.h"
#include "daemon/post_job_input.hpp"
#include "daemon/test_job_input.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/messages.hpp"
#include "ipc/partition_ring.hpp"

namespace {

using namespace cuzk;
namespace fs = std::filesystem;

fs::path out_dir;

void write(const std::string& target, const std::string& name, std::span<const std::uint8_t> bytes) {
    const fs::path dir = out_dir / target;
    fs::create_directories(dir);
    std::ofstream f(dir / name, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw std::runtime_error("cannot write " + (dir / name).string());
}
void write(const std::string& target, const std::string& name, std::string_view text) {
    write(target, name, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}
void write(const std::string& target, const std::string& name, std::span<const std::byte> bytes) {
    write(target, name, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

std::vector<std::uint8_t> read(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

// As `cuzk seal-test --registered-proof StackedDrg2KiBV1_1 --sector-id 7` for actor 1000 (the API test's sector):
// a real C1 whose replica id is the one of that miner and sector.
std::string sealed_c1_json() {
    const porep::registered_proof& proof = porep::registered_proof_by_name("StackedDrg2KiBV1_1");
    std::mt19937_64 rng(1);
    auto random32 = [&rng] {
        std::array<std::uint8_t, 32> b{};
        for (auto& x : b) x = std::uint8_t(rng());
        return b;
    };
    const auto ticket = random32(), seed = random32();
    std::vector<ff::fr_t> data(proof.nodes);
    for (ff::fr_t& d : data) d = ff::fr_t::random(rng);
    const auto graph = porep::graph_of(proof);
    std::array<std::uint8_t, 32> comm_d{};
    merkle::merkle_tree::sha256_binary(data).root().to_bytes_le(comm_d.data());
    const ff::fr_t replica_id = porep::generate_replica_id(api::prover_id_of(1000), 7, ticket, comm_d, proof.porep_id());
    const auto sector = porep::seal_sector(graph, proof.layers, proof.tree, replica_id, std::move(data));
    return c1::write_c1_json(porep::make_c1(proof, graph, sector, seed, ticket));
}

// The same C1 cut down to one challenge of one partition with one column, labeling proof and parent of each
// kind: every kind of value is still there, in 1/20 of the bytes, so the fuzzer mutates it 20 times as often.
// It parses, but fails check_consistency.
std::string trimmed_c1_json(const std::string& c1_json) {
    auto c1 = c1::parse_c1_json(c1_json);
    c1.partitions.resize(1);
    c1.partitions[0].resize(1);
    auto& challenge = c1.partitions[0][0];
    challenge.replica_columns.drg_parents.resize(1);
    challenge.replica_columns.exp_parents.resize(1);
    challenge.labeling_proofs.resize(1);
    challenge.labeling_proofs[0].parents.resize(2);
    challenge.encoding_proof.parents.resize(2);
    return c1::write_c1_json(c1);
}

void c1_seeds(const std::string& c1_json) {
    const std::string trimmed = trimmed_c1_json(c1_json);
    write("fuzz_c1_json", "c1-2KiB-V1_1.json", c1_json);
    write("fuzz_c1_json", "c1-trimmed.json", trimmed);
    // lotus-bench's c2in.json, as Curio wraps a C1.
    write("fuzz_c1_json", "c2in-trimmed.json", api::curio_porep_request(trimmed, 5, 2048, 1000, 7).vanilla_proof());
    // docs/fuzzing.md, finding 2: columns taller than any Poseidon arity (a bad C1, not an internal error).
    auto tall = c1::parse_c1_json(trimmed);
    auto& rows = tall.partitions[0][0].replica_columns.c_x.col.rows;
    rows.resize(poseidon::MAX_ARITY + 4, rows[0]);
    write("fuzz_c1_json", "finding-2-tall-columns.json", c1::write_c1_json(tall));
}

void groth16_seeds() {
    const auto circuit = circuits::make_circuit("mul:4");
    const auto setup = groth16::generate_random_parameters(*circuit);
    write("fuzz_vk_file", "mul_4.vk", groth16::vk_to_bytes(setup.params.vk));
    const fs::path params = fs::temp_directory_path() / fmt::format("cuzk-fuzz-seeds-{}.params", ::getpid());
    groth16::write_parameters(params, setup.params);
    write("fuzz_params_file", "mul_4.params", read(params));
    fs::remove(params);
    const auto one = groth16::create_proof(*circuit, setup.params).pi;
    const auto two = groth16::create_proof(*circuit, setup.params).pi;
    write("fuzz_proof", "proof-1-partition", groth16::proof_to_bytes(one));
    write("fuzz_proof", "proof-2-partitions", groth16::proofs_to_bytes(std::vector{one, two}));
}

std::size_t post_index(std::string_view name) {
    const auto all = post::all_registered_post_proofs();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].name == name) return i;
    throw std::runtime_error("no registered PoSt proof " + std::string(name));
}

std::vector<std::uint8_t> with_selector(std::size_t selector, const std::vector<std::uint8_t>& bytes) {
    std::vector<std::uint8_t> out(bytes.size() + 1);
    out[0] = static_cast<std::uint8_t>(selector);
    std::copy(bytes.begin(), bytes.end(), out.begin() + 1);
    return out;
}

// Byte 0 picks the registered proof (fuzz_post_vanilla.cpp). The test sizes from a real tree R (Single proofs),
// 32 GiB (Sub) and 64 GiB (Top) from a sparse one.
void post_vanilla_seeds() {
    for (const auto* name : {"StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1"}) {
        const auto sample = post::make_sample_post(post::registered_post_proof_by_name(name), "fuzz", 1);
        write("fuzz_post_vanilla", std::string(name) + ".bincode",
              with_selector(post_index(name), post::encode_sector_proof(sample.vanilla[0])));
    }
    std::mt19937_64 rng(1);
    for (const auto* name : {"StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1"}) {
        const auto& proof = post::registered_post_proof_by_name(name);
        const auto shape = post::vanilla_shape_of(proof.sector_size, proof.challenge_count);
        const auto leaves = post::vanilla_challenges(proof, post::bytes32{}, 1, 0);
        write("fuzz_post_vanilla", std::string(name) + ".bincode",
              with_selector(post_index(name),
                            post::encode_sector_proof(post::make_synthetic_sector_proof(shape, 1, leaves, rng))));
    }
}

std::vector<std::string> encoded_vanilla(const post::sample_post& sample) {
    std::vector<std::string> out;
    for (const auto& v : sample.vanilla) {
        const auto bytes = post::encode_sector_proof(v);
        out.emplace_back(bytes.begin(), bytes.end());
    }
    return out;
}

// A seed the decoder must take: checked here, so that a seed corpus never starts from refusals alone.
void check_taken(const v1::ProveRequest& r, const std::string& name) {
    try {
        (void)api::check_submission(r.submit());
    } catch (const std::exception& e) {
        throw std::runtime_error("seed " + name + " is refused: " + e.what());
    }
}

void write_request(const v1::ProveRequest& r, const std::string& name) {
    check_taken(r, name);
    write("fuzz_api_request", name, r.SerializeAsString());
}

// The PoSt job inputs, and the API requests: Curio's for the PoRep C1 (cut down) and the PoSt proofs, a test
// circuit's, and a PreloadSRS request (the target reads its input as both).
void post_job_and_request_seeds(const std::string& c1_json) {
    struct job {
        const char* name;
        unsigned sectors;
        v1::ProofKind kind;
    };
    for (const job& j : {job{"StackedDrgWindow2KiBV1_1", 2, v1::WINDOW_POST_PARTITION},
                         job{"StackedDrgWinning2KiBV1", 1, v1::WINNING_POST}}) {
        const auto& proof = post::registered_post_proof_by_name(j.name);
        const auto sample = post::make_sample_post(proof, "fuzz", j.sectors);
        const auto vanilla = encoded_vanilla(sample);
        const std::vector<std::string_view> views(vanilla.begin(), vanilla.end());
        const std::string input = daemon::encode_post_job_input(proof, sample.randomness, views);
        (void)daemon::parse_post_job_input(
            std::span(reinterpret_cast<const std::uint8_t*>(input.data()), input.size()), j.name, false);
        write("fuzz_post_job_input", std::string(j.name) + ".input", input);

        v1::ProveRequest r;
        auto& s = *r.mutable_submit();
        s.set_request_id(fmt::format("post-{}", j.name));
        s.set_proof_kind(j.kind);
        s.set_registered_proof(proof.id);
        s.set_sector_size(proof.sector_size);
        s.set_randomness(std::string(sample.randomness.begin(), sample.randomness.end()));
        for (const auto& v : vanilla) s.add_vanilla_proofs(v);
        write_request(r, std::string(j.name) + ".prove-request");
    }
    v1::ProveRequest porep;
    *porep.mutable_submit() = api::curio_porep_request(trimmed_c1_json(c1_json), 5, 2048, 1000, 7);
    write_request(porep, "porep-2KiB-trimmed.prove-request");
    v1::ProveRequest test;
    test.mutable_submit()->set_proof_kind(static_cast<v1::ProofKind>(api::test_circuit_kind));
    test.mutable_submit()->set_vanilla_proof(daemon::test_job_input{"mul:64", 2, 1}.to_json());
    write_request(test, "test-circuit.prove-request");
    // docs/fuzzing.md, finding 3: test jobs of the small PoRep and PoSt sizes, checked without sealing a sector.
    for (const auto* circuit : {"porep:StackedDrg8MiBV1_1", "post:StackedDrgWindow8MiBV1_1"}) {
        v1::ProveRequest r;
        r.mutable_submit()->set_proof_kind(static_cast<v1::ProofKind>(api::test_circuit_kind));
        r.mutable_submit()->set_vanilla_proof(daemon::test_job_input{circuit, 1, 1}.to_json());
        std::string name = fmt::format("finding-3-test-circuit-{}.prove-request", circuit);
        std::replace(name.begin(), name.end(), ':', '-');
        write_request(r, name);
    }
    v1::PreloadSrsRequest preload;
    preload.set_circuit_id("porep-32g");
    write("fuzz_api_request", "porep-32g.preload-request", preload.SerializeAsString());
}

void message_seeds() {
    std::array<std::byte, ipc::partition_proof_bytes> proof{};
    for (std::size_t i = 0; i < proof.size(); ++i) proof[i] = std::byte(i);
    // Designated initializers or assignments: a field added later keeps its default here.
    const std::vector<ipc::message> messages{
        ipc::job_msg{.job_id = 7, .kind = ipc::proof_kind::porep_c2, .priority = 100, .partition_count = 10,
                     .partitions = {3, 4}, .spool_path = "jobs/7/input"},
        ipc::slot_ready_msg{.job_id = 7, .partition = 3, .slot = 1, .generation = 9, .payload_bytes = 2300000,
                            .num_inputs = 328, .num_aux = 1000000, .num_constraints = 1200000, .synth_us = 5000},
        ipc::partition_proof_msg{.job_id = 7, .partition = 3, .proof = proof,
                                 .timings = {.queue_us = 1, .prep_us = 2, .gpu_us = 3, .gpu = 1}},
        ipc::partition_failed_msg{.job_id = 7, .partition = 3, .retryable = true, .error = "device lost"},
        ipc::cancel_msg{.job_id = 7},
        ipc::status_request_msg{},
        ipc::status_reply_msg{.json = R"({"jobs":[]})"},
        [] {
            ipc::submit_msg m;
            m.client_request_id = "porep-1000-7";
            m.request_digest = std::string(64, 'a');
            m.kind = ipc::proof_kind::window_post;
            m.priority = -100;
            m.source = ipc::c1_source::spool;
            m.c1_path = "api-1-0.input";
            return m;
        }(),
        ipc::submit_reply_msg{.client_request_id = "porep-1000-7", .job_id = 7, .queue_position = 2},
        ipc::await_msg{.job_id = 7, .timeout_ms = 1000, .fetch = true},
        [&proof] {
            ipc::await_reply_msg m;
            m.job_id = 7;
            m.state = ipc::job_state::done;
            m.partitions_done = m.partitions_total = 10;
            m.proof.assign(proof.begin(), proof.end());
            m.result_path = "results/7.proof";
            m.timings.synthesis_ms = 3;
            m.timings.total_ms = 5;
            return m;
        }(),
        ipc::error_reply_msg{.code = ipc::error_code::bad_request, .request_type = 8, .text = "bad C1"},
        ipc::stage_hello_msg{.from = ipc::stage::gpud, .pid = 1234, .started_ms = 1700000000000},
        ipc::params_request_msg{.action = ipc::params_action::preload, .circuit = "porep:StackedDrg32GiBV1_1"},
        ipc::params_reply_msg{.was_loaded = true, .load_ms = 1500},
    };
    for (const auto& m : messages) {
        std::string name(ipc::to_string(ipc::type_of(m)));
        for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
        write("fuzz_ipc_messages", name + ".frame", ipc::encode(m));
    }
}

// |ring|, a segment of 2 slots, edited through the layout's own structs (aligned, as a mapping is), then cut to
// the size its header declares.
template <class Edit>
std::vector<std::uint8_t> edited_ring(const std::vector<std::uint8_t>& ring, Edit edit) {
    auto* base = static_cast<std::uint8_t*>(::operator new(ring.size(), std::align_val_t{ipc::cache_line_bytes}));
    std::copy(ring.begin(), ring.end(), base);
    auto& header = *reinterpret_cast<ipc::shm_header*>(base);
    auto& control = *reinterpret_cast<ipc::ring_control*>(base + sizeof(ipc::shm_header));
    auto* slots = reinterpret_cast<ipc::ring_slot*>(base + control.slots_offset);
    edit(header, control, slots);
    std::vector<std::uint8_t> out(base, base + std::min<std::uint64_t>(header.segment_bytes, ring.size()));
    ::operator delete(base, std::align_val_t{ipc::cache_line_bytes});
    return out;
}

void ring_findings(const std::vector<std::uint8_t>& ring) {
    // A slot's payload offset far past the segment: open never looks at it.
    write("fuzz_shm_header", "finding-1-payload-offset",
          edited_ring(ring, [](auto&, auto&, ipc::ring_slot* slots) { slots[1].payload_offset = 1ull << 40; }));
    // 2 slots of 2^63 bytes: the geometry's 2 * 2^63 wraps to 0, so the header's size is the slot table's alone.
    write("fuzz_shm_header", "finding-1-slot-bytes-wrap",
          edited_ring(ring, [](ipc::shm_header& h, ipc::ring_control& c, ipc::ring_slot* slots) {
              h.segment_bytes = c.payloads_offset;
              h.slot_bytes = c.slot_stride = std::uint64_t{1} << 63;
              slots[0].payload_offset = slots[1].payload_offset = c.payloads_offset;
          }));
}

// Segments as the daemons create them, in a file-backed directory, copied whole.
void segment_seeds() {
    const fs::path dir = fs::temp_directory_path() / fmt::format("cuzk-fuzz-seeds-{}", ::getpid());
    fs::create_directories(dir);
    ipc::segment_location ring_at;
    ring_at.name = "ring";
    ring_at.directory = dir;
    { (void)ipc::partition_ring::create({ring_at, 2, 4096}); }
    const std::vector<std::uint8_t> ring = read(ring_at.backing_path());
    write("fuzz_shm_header", "ring-2-slots", ring);
    // docs/fuzzing.md, finding 1: rings whose header partition_ring::open takes with slots outside the mapping.
    ring_findings(ring);
    ipc::segment_location lock_at = ring_at;
    lock_at.name = "lock";
    { (void)ipc::cuda_lock::open_or_create({lock_at}); }
    write("fuzz_shm_header", "cuda-lock", read(lock_at.backing_path()));
    fs::remove_all(dir);
}

void config_seeds(const fs::path& source_dir) {
    write("fuzz_config", "cuzk.example.toml", read(source_dir / "systemd" / "cuzk.example.toml"));
    write("fuzz_config", "small.toml",
          "[runtime]\nlog_level = \"debug\"\n[ring]\nslots = 2\nslot_bytes = 16777216\n"
          "[api]\nlisten = \"10.0.0.1:50051\"\nallow_from = \"10.0.0.0/8, 192.168.1.7/32\"\n"
          "[assemblerd]\npartition_timeout_s = 1.5\n[gpud]\nnuma_node = 0\nlock_name = \"lock-{gpu}\"\n");
    // docs/fuzzing.md, finding 4: nan for a number key.
    write("fuzz_config", "finding-4-nan.toml", "[assemblerd]\npartition_timeout_s = nan\nresult_ttl_s = -nan\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: make_fuzz_seeds CORPUS_DIR (tests/fuzz/corpus)\n";
        return 2;
    }
    out_dir = argv[1];
    spdlog::set_level(spdlog::level::warn);
    const std::string c1_json = sealed_c1_json();
    c1_seeds(c1_json);
    groth16_seeds();
    post_vanilla_seeds();
    post_job_and_request_seeds(c1_json);
    message_seeds();
    segment_seeds();
    config_seeds(CUZK_SOURCE_DIR);
    return 0;
}
