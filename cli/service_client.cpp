#include "cli/service_client.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/access_check.hpp"
#include "cli/client_errors.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/progress_lines.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/update/update_shape.hpp"
#include "daemon/post_job_input.hpp"
#include "daemon/request_digest.hpp"
#include "daemon/service_client.hpp"
#include "daemon/test_job_input.hpp"
#include "daemon/update_job_input.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::cli {

void service_options::add_to(CLI::App& cmd) {
    cmd.add_option("--config", config_path, "the daemons' TOML configuration (for the runtime directory)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--runtime-dir", runtime_dir, "runtime directory of the daemons' sockets");
}

daemon::config service_options::load() const {
    auto c = daemon::load_config_or_defaults(config_path.empty() ? std::nullopt
                                                                 : std::optional<std::filesystem::path>(config_path));
    if (!runtime_dir.empty()) c.runtime.dir = runtime_dir;
    c.resolve_defaults();
    return c;
}

ipc::message call(const daemon::config& c, std::string_view socket_name, const ipc::message& m,
                  std::chrono::milliseconds timeout) {
    // ZeroMQ retries a refused connect silently until the timeout: a permission problem is found first.
    check_socket_access(c.socket_path(socket_name));
    const auto endpoint = c.endpoint(socket_name);
    auto reply = daemon::request(endpoint, m, timeout);
    if (!reply) {
        throw service_unavailable(fmt::format("no answer from {} within {} ms: is the service running? (`cuzk up`, "
                                              "or check --runtime-dir / --config)",
                                              endpoint, timeout.count()));
    }
    if (auto* e = std::get_if<ipc::error_reply_msg>(&*reply)) {
        switch (e->code) {
            case ipc::error_code::queue_full: throw service_busy(e->text);
            case ipc::error_code::bad_request:
            case ipc::error_code::unknown_job:
            case ipc::error_code::unsupported_version:
                throw input_error(fmt::format("{} ({})", e->text, ipc::to_string(e->code)));
            case ipc::error_code::unavailable: throw service_unavailable(e->text);
            case ipc::error_code::permission_denied: throw permission_denied(e->text);
            default: throw std::runtime_error(fmt::format("{} ({})", e->text, ipc::to_string(e->code)));
        }
    }
    return *reply;
}

void job_request::add_to(CLI::App& cmd) {
    cmd.add_option("--c1", c1_path, "C1 output (porep-c2 job)");
    cmd.add_option("--circuit", circuit, "built-in test circuit proved in partitions, e.g. mul:256 or sha256:1");
    cmd.add_option("--post", post, "a WindowPoSt or WinningPoSt job of this registered PoSt proof, e.g. "
                                   "StackedDrgWindow32GiBV1_1 (with --vanilla and --randomness)");
    cmd.add_option("--update", update, "a SnapDeals job of this registered update proof, e.g. "
                                       "StackedDrgUpdate32GiBV1 (with --vanilla, --comm-r-old, --comm-d-new and "
                                       "--comm-r-new)");
    cmd.add_option("--vanilla", vanilla, "with --post: one bincode FallbackPoStSectorProof file per sector, in "
                                         "ascending sector number; with --update: one bincode PartitionProof file "
                                         "per partition, in partition order")
        ->expected(1, -1);
    cmd.add_option("--randomness", randomness, "with --post: the 32-byte randomness, hex");
    cmd.add_option("--comm-r-old", comm_r_old, "with --update: the sector key's comm_r, 32 bytes hex as stored");
    cmd.add_option("--comm-d-new", comm_d_new, "with --update: the new data's comm_d, 32 bytes hex as stored");
    cmd.add_option("--comm-r-new", comm_r_new, "with --update: the updated replica's comm_r, 32 bytes hex as stored");
    cmd.add_option("--h", h, "with --update: the update's h (default the sector size's, as filecoin-proofs)");
    cmd.add_option("--partitions", partitions, "partitions of a test-circuit job")->check(CLI::Range(1u, daemon::max_test_partitions));
    cmd.add_option("--seed", seed, "seed of partition 0 (partition p uses seed + p)");
    cmd.add_option("--priority", priority, "higher first (0, the default: NORMAL; a PoSt job then takes its kind's: "
                                           "WinningPoSt 200, WindowPoSt 100)");
    cmd.add_option("--request-id", request_id, "client request id: resubmitting it returns the same job");
}

std::uint64_t submit_job(const daemon::config& c, const job_request& r) {
    if (int(!r.c1_path.empty()) + int(!r.circuit.empty()) + int(!r.post.empty()) + int(!r.update.empty()) != 1)
        throw input_error("give exactly one of --c1 FILE (a PoRep C1 output), --post NAME (a PoSt job, with --vanilla "
                          "and --randomness), --update NAME (a SnapDeals job, with --vanilla and the three "
                          "commitments) or --circuit NAME (a test circuit)");
    if (r.post.empty() && r.update.empty() && !r.vanilla.empty())
        throw input_error("--vanilla needs --post NAME or --update NAME");
    if (r.update.empty()) {
        for (const auto& [flag, value] : {std::pair{"--comm-r-old", &r.comm_r_old},
                                          std::pair{"--comm-d-new", &r.comm_d_new},
                                          std::pair{"--comm-r-new", &r.comm_r_new}, std::pair{"--h", &r.h}})
            if (!value->empty()) throw input_error(fmt::format("{} needs --update NAME", flag));
    }
    ipc::submit_msg m;
    m.client_request_id = r.request_id;
    m.priority = r.priority;
    // The input travels in the SUBMIT itself, read here with the client's own permissions: the service never
    // opens a file a client names (a group member's files need not be readable by the service, nor the
    // service's by a group member).
    m.source = ipc::c1_source::inline_bytes;
    std::string payload;  // a job input made here
    if (!r.post.empty()) {
        const auto& proof = post::registered_post_proof_by_name(r.post);
        const auto randomness = parse_hex32("--randomness", r.randomness);
        std::vector<std::string> proofs;
        for (const auto& f : r.vanilla) {
            const auto bytes = read_file_bytes(f, "vanilla proof");
            proofs.emplace_back(bytes.begin(), bytes.end());
        }
        payload = daemon::encode_post_job_input(proof, randomness,
                                                std::vector<std::string_view>(proofs.begin(), proofs.end()));
        const bool winning = proof.kind == post::post_kind::winning;
        m.kind = winning ? ipc::proof_kind::winning_post : ipc::proof_kind::window_post;
        if (m.priority == 0) m.priority = winning ? 200 : 100;
    } else if (!r.update.empty()) {
        const auto& proof = update::registered_update_proof_by_name(r.update);
        const auto shape = proof.shape();
        if (r.vanilla.size() != shape.partition_count)
            throw input_error(fmt::format("--vanilla: {} files; {} takes exactly {} (one PartitionProof per partition, "
                                          "in partition order)",
                                          r.vanilla.size(), proof.name, shape.partition_count));
        for (const auto& [flag, value] : {std::pair{"--comm-r-old", &r.comm_r_old},
                                          std::pair{"--comm-d-new", &r.comm_d_new},
                                          std::pair{"--comm-r-new", &r.comm_r_new}})
            if (value->empty()) throw input_error(fmt::format("--update needs {} HEX", flag));
        const auto comm_r_old = parse_hex32("--comm-r-old", r.comm_r_old);
        const auto comm_d_new = parse_hex32("--comm-d-new", r.comm_d_new);
        const auto comm_r_new = parse_hex32("--comm-r-new", r.comm_r_new);
        unsigned h = shape.h_default();
        if (!r.h.empty()) {
            const auto [end, ec] = std::from_chars(r.h.data(), r.h.data() + r.h.size(), h);
            if (ec != std::errc() || end != r.h.data() + r.h.size())
                throw input_error(fmt::format("--h: '{}' is not a decimal number", r.h));
        }
        std::vector<std::string> proofs;
        for (const auto& f : r.vanilla) {
            const auto bytes = read_file_bytes(f, "vanilla proof");
            proofs.emplace_back(bytes.begin(), bytes.end());
        }
        try {
            payload = daemon::encode_update_job_input(proof, h, comm_r_old, comm_d_new, comm_r_new,
                                                      std::vector<std::string_view>(proofs.begin(), proofs.end()));
        } catch (const input_error& e) {  // "comm_d_new is not a field element", "h 3 is not one ... allows"
            throw input_error(fmt::format("--update {}: {}", proof.name, e.what()));
        }
        m.kind = ipc::proof_kind::snap_update;
    } else if (!r.c1_path.empty()) {
        m.kind = ipc::proof_kind::porep_c2;
        m.c1_path = std::filesystem::absolute(r.c1_path).string();  // quoted in the service's errors, never opened
        const auto bytes = read_file_bytes(m.c1_path, "C1 file");
        m.input.resize(bytes.size());
        std::memcpy(m.input.data(), bytes.data(), bytes.size());
        if (!r.request_id.empty()) {
            m.request_digest = daemon::request_digest()
                                   .add(static_cast<std::uint64_t>(m.kind))
                                   .add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(m.priority)))
                                   .add(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
                                   .hex();
        }
    } else {
        // The test job's input is a small JSON document.
        daemon::test_job_input in{r.circuit, r.partitions, r.seed};
        (void)daemon::parse_test_job_input(in.to_json(), "--circuit");  // the same checks as the daemon, early
        payload = in.to_json();
        m.kind = ipc::proof_kind::test_circuit;
    }
    if (m.input.size() + payload.size() > ipc::submit_input_limit)
        throw input_error(fmt::format("the job input is {} bytes, a SUBMIT carries at most {}",
                                      m.input.size() + payload.size(), ipc::submit_input_limit));
    if (!payload.empty()) {
        const auto* p = reinterpret_cast<const std::byte*>(payload.data());
        m.input.assign(p, p + payload.size());
        m.request_digest = daemon::request_digest()
                               .add(static_cast<std::uint64_t>(m.kind))
                               .add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(m.priority)))
                               .add(payload)
                               .hex();
    }
    // The reply comes once the input is spooled and checked: ~1 s for a 32 GiB C1, longer behind a batch of them
    // (assemblerd checks input_checker::threads at a time).
    auto reply = call(c, ipc::socket_names::api, m, std::chrono::milliseconds(60000));
    auto* ok = std::get_if<ipc::submit_reply_msg>(&reply);
    if (!ok) throw std::runtime_error("assemblerd answered SUBMIT with " + std::string(ipc::to_string(ipc::type_of(reply))));
    return ok->job_id;
}

ipc::await_reply_msg await_job(const daemon::config& c, std::uint64_t job, std::chrono::seconds timeout,
                               const progress_options* progress, bool fetch) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::optional<progress_lines> lines;
    if (progress) lines.emplace(fmt::format("job {}", job), *progress);
    for (;;) {
        const auto elapsed = clock::now() - start;
        if (timeout.count() > 0 && elapsed >= timeout)
            throw service_unavailable(fmt::format("job {} did not finish within {} s", job, timeout.count()));
        std::optional<ipc::message> reply;
        try {
            // Short turns, so that the progress moves and a restarted assemblerd is found again.
            reply = call(c, ipc::socket_names::api, ipc::await_msg{job, 1000, fetch}, std::chrono::milliseconds(5000));
        } catch (const service_unavailable&) {
            if (lines) lines->update("waiting for assemblerd to answer");
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            continue;
        }
        auto* r = std::get_if<ipc::await_reply_msg>(&*reply);
        if (!r) throw std::runtime_error("assemblerd answered AWAIT with " + std::string(ipc::to_string(ipc::type_of(*reply))));
        const bool done = r->state == ipc::job_state::done || r->state == ipc::job_state::failed ||
                          r->state == ipc::job_state::cancelled;
        if (lines) {
            const auto state = fmt::format("{}, {}/{} partitions proved", ipc::to_string(r->state), r->partitions_done,
                                           r->partitions_total);
            done ? lines->finish(state) : lines->update(state);
        }
        if (done) return *r;
    }
}

}  // namespace cuzk::cli
