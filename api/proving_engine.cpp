#include "api/proving_engine.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "api/api_error.hpp"
#include "api/circuit_ids.hpp"
#include "api/submission.hpp"
#include "daemon/listen_address.hpp"
#include "daemon/service_status.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::api {

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A daemon's answer to one request. A SUBMIT's comes once its input is spooled and checked: ~1 s for a 32 GiB C1 or
// a full WindowPoSt partition's vanilla proofs, longer behind a batch of them.
constexpr auto request_timeout = 60s;
constexpr std::uint32_t await_turn_ms = 1000;

std::uint64_t job_number(const std::string& text) {
    std::uint64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        throw api_error(grpc::StatusCode::NOT_FOUND, fmt::format("no job '{}': job ids are the numbers SubmitProof "
                                                                 "returns",
                                                                 text));
    return id;
}

// Writes the job's input where assemblerd takes spooled inputs from; durable before the SUBMIT that names it.
fs::path spool_input(const fs::path& spool_dir, const std::string& bytes) {
    static std::atomic<std::uint64_t> counter{0};
    thread_local std::mt19937_64 rng(std::random_device{}());
    const auto name = fmt::format("api-{}-{}-{:016x}.input", ::getpid(), counter++, rng());
    const auto path = spool_dir / "incoming" / name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        throw api_error(grpc::StatusCode::INTERNAL,
                        fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
    const auto fail = [&](int error) {
        ::close(fd);
        std::error_code ec;
        fs::remove(path, ec);
        throw api_error(error == ENOSPC ? grpc::StatusCode::RESOURCE_EXHAUSTED : grpc::StatusCode::INTERNAL,
                        fmt::format("cannot write the job's input to {}: {}", path.string(), std::strerror(error)));
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(n < 0 ? errno : EIO);
        done += static_cast<std::size_t>(n);
    }
    if (::fdatasync(fd) != 0) fail(errno);
    ::close(fd);
    return path;
}

void fill_result(const ipc::await_reply_msg& r, v1::AwaitProofResponse& out) {
    out.set_job_id(std::to_string(r.job_id));
    switch (r.state) {
        case ipc::job_state::done: out.set_status(v1::AwaitProofResponse::COMPLETED); break;
        case ipc::job_state::failed: out.set_status(v1::AwaitProofResponse::FAILED); break;
        case ipc::job_state::cancelled: out.set_status(v1::AwaitProofResponse::CANCELLED); break;
        case ipc::job_state::queued:
        case ipc::job_state::running: out.set_status(v1::AwaitProofResponse::TIMEOUT); break;
        default: out.set_status(v1::AwaitProofResponse::UNKNOWN);
    }
    out.set_proof(std::string(reinterpret_cast<const char*>(r.proof.data()), r.proof.size()));
    if (!r.error.empty()) out.set_error_message(r.error);
    out.set_queue_wait_ms(r.timings.queue_wait_ms);
    out.set_srs_load_ms(r.timings.params_load_ms);
    out.set_synthesis_ms(r.timings.synthesis_ms);
    out.set_gpu_compute_ms(r.timings.gpu_ms);
    out.set_total_ms(r.timings.total_ms);
}

}  // namespace

proving_engine::proving_engine(const daemon::config& c, std::function<std::string()> metrics_text,
                               const std::atomic<bool>& stopping)
    : door_(c),
      allowed_(daemon::network_list::parse(c.api.allow_from, "[api] allow_from")),
      metrics_text_(std::move(metrics_text)),
      stopping_(stopping) {}

grpc::Status proving_engine::guarded(grpc::ServerContext& ctx, const char* call, const std::function<void()>& body) {
    const auto peer = ctx.peer();
    const auto ip = daemon::peer_ip(peer);
    if (!ip.empty() && !allowed_.contains(ip)) {
        // An address the list cannot read is refused too (loopback() is false for it), never an exception here.
        daemon::listen_address from;
        from.host = ip;
        if (!from.loopback()) {
            spdlog::warn("API: {} from {} refused: not in [api] allow_from", call, peer);
            return {grpc::StatusCode::PERMISSION_DENIED,
                    fmt::format("{} is not allowed to call this service ([api] allow_from)", ip)};
        }
    }
    try {
        body();
        return grpc::Status::OK;
    } catch (const api_error& e) {
        if (e.code() == grpc::StatusCode::INTERNAL || e.code() == grpc::StatusCode::UNAVAILABLE)
            spdlog::error("API: {} from {} failed: {}", call, peer, e.what());
        else
            spdlog::info("API: {} from {} refused ({}): {}", call, peer, static_cast<int>(e.code()), e.what());
        return e.status();
    } catch (const std::exception& e) {
        spdlog::error("API: {} from {} failed: {}", call, peer, e.what());
        return {grpc::StatusCode::INTERNAL, e.what()};
    }
}

v1::SubmitProofResponse proving_engine::submit(const v1::SubmitProofRequest& r) {
    const auto s = check_submission(r);
    const auto path = spool_input(door_.config().runtime.spool_dir, s.payload);
    ipc::submit_msg m;
    m.client_request_id = s.request_id;
    m.request_digest = s.digest;
    m.kind = s.kind;
    m.priority = s.priority;
    m.source = ipc::c1_source::spool;
    m.c1_path = path.filename().string();
    struct remove_unclaimed {  // a duplicate or a refused SUBMIT leaves the input where it was written
        const fs::path& path;
        ~remove_unclaimed() {
            std::error_code ec;
            fs::remove(path, ec);
        }
    } cleanup{path};
    const auto reply = door_.call_assemblerd(m, request_timeout);
    const auto* ok = std::get_if<ipc::submit_reply_msg>(&reply);
    if (!ok) throw api_error(grpc::StatusCode::INTERNAL, "assemblerd answered SUBMIT with " +
                                                             std::string(ipc::to_string(ipc::type_of(reply))));
    v1::SubmitProofResponse out;
    out.set_job_id(std::to_string(ok->job_id));
    out.set_queue_position(ok->queue_position);
    spdlog::info("API: job {} {} ({}, request '{}')", ok->job_id, ok->duplicate ? "resubmitted" : "submitted",
                 kind_name(r.proof_kind()), s.request_id);
    return out;
}

void proving_engine::await(grpc::ServerContext& ctx, std::uint64_t job, std::uint64_t timeout_ms,
                           v1::AwaitProofResponse& out) {
    const auto deadline = timeout_ms ? std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)
                                     : std::chrono::steady_clock::time_point::max();
    for (;;) {
        const auto now = std::chrono::steady_clock::now();
        std::uint32_t turn = await_turn_ms;
        if (deadline != std::chrono::steady_clock::time_point::max())
            turn = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count(), 0, await_turn_ms));
        // A turn of 0 answers at once with the state: the last look at a job whose time is up.
        const auto reply = door_.call_assemblerd(ipc::await_msg{job, turn, true},
                                                 std::chrono::milliseconds(turn) + request_timeout);
        const auto* r = std::get_if<ipc::await_reply_msg>(&reply);
        if (!r) throw api_error(grpc::StatusCode::INTERNAL, "assemblerd answered AWAIT with " +
                                                                std::string(ipc::to_string(ipc::type_of(reply))));
        const bool ended = r->state == ipc::job_state::done || r->state == ipc::job_state::failed ||
                           r->state == ipc::job_state::cancelled;
        if (ended || std::chrono::steady_clock::now() >= deadline) return fill_result(*r, out);
        if (ctx.IsCancelled()) throw api_error(grpc::StatusCode::CANCELLED, "the client went away; the job goes on");
        if (stopping_) throw api_error(grpc::StatusCode::UNAVAILABLE, "the service is stopping; the job is kept");
    }
}

grpc::Status proving_engine::SubmitProof(grpc::ServerContext* ctx, const v1::SubmitProofRequest* r,
                                         v1::SubmitProofResponse* out) {
    return guarded(*ctx, "SubmitProof", [&] { *out = submit(*r); });
}

grpc::Status proving_engine::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* r,
                                        v1::AwaitProofResponse* out) {
    return guarded(*ctx, "AwaitProof", [&] { await(*ctx, job_number(r->job_id()), r->timeout_ms(), *out); });
}

grpc::Status proving_engine::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* r, v1::ProveResponse* out) {
    return guarded(*ctx, "Prove", [&] {
        if (!r->has_submit()) throw api_error(grpc::StatusCode::INVALID_ARGUMENT, "submit is missing: Prove needs the "
                                                                                 "SubmitProofRequest in field 1");
        const auto submitted = submit(r->submit());
        await(*ctx, job_number(submitted.job_id()), 0, *out->mutable_result());
    });
}

grpc::Status proving_engine::CancelProof(grpc::ServerContext* ctx, const v1::CancelProofRequest* r,
                                         v1::CancelProofResponse* out) {
    return guarded(*ctx, "CancelProof", [&] {
        const auto reply = door_.call_assemblerd(ipc::cancel_msg{job_number(r->job_id())}, request_timeout);
        const auto* a = std::get_if<ipc::await_reply_msg>(&reply);
        if (!a) throw api_error(grpc::StatusCode::INTERNAL, "assemblerd answered CANCEL with " +
                                                                std::string(ipc::to_string(ipc::type_of(reply))));
        out->set_was_running(a->was_running);
    });
}

grpc::Status proving_engine::GetStatus(grpc::ServerContext* ctx, const v1::GetStatusRequest*, v1::GetStatusResponse* out) {
    return guarded(*ctx, "GetStatus", [&] {
        const auto status = daemon::collect_service_status(door_.config(), 2000ms);
        const auto& a = status.json["assemblerd"];
        if (a.is_null()) throw api_error(grpc::StatusCode::UNAVAILABLE, "assemblerd did not answer STATUS_REQUEST");
        struct queue {
            std::uint32_t pending = 0, in_progress = 0;
        };
        std::map<std::string, queue> queues;
        for (const auto& j : a.value("jobs", nlohmann::json::array())) {
            const auto state = j.value("state", "");
            auto& q = queues[j.value("kind", "unknown")];
            if (state == "queued") ++q.pending;
            else if (state == "running") ++q.in_progress;
        }
        for (const auto& [kind, q] : queues) {
            if (q.pending == 0 && q.in_progress == 0) continue;
            auto* e = out->add_queues();
            e->set_proof_kind(kind);
            e->set_pending(q.pending);
            e->set_in_progress(q.in_progress);
        }
        std::uint64_t completed = 0, failed = 0;
        const auto completed_by_kind = a.value("proofs_completed", nlohmann::json::object());
        const auto failed_by_kind = a.value("proofs_failed", nlohmann::json::object());
        for (const auto& [kind, n] : completed_by_kind.items()) completed += n.get<std::uint64_t>();
        for (const auto& [kind, n] : failed_by_kind.items()) failed += n.get<std::uint64_t>();
        out->set_total_proofs_completed(completed);
        out->set_total_proofs_failed(failed);
        out->set_uptime_seconds(daemon::status_value<std::uint64_t>(a, "uptime_s", 0));
        std::uint64_t pinned = 0, pinned_limit = 0;
        for (const auto& g : status.json["gpuds"]) {
            const auto& device = g.contains("device") ? g["device"] : nlohmann::json();
            for (const auto& w : g.value("workers", nlohmann::json::array())) {
                auto* e = out->add_gpus();
                e->set_ordinal(daemon::status_value<std::uint32_t>(g, "gpu", 0));
                e->set_name(daemon::status_value<std::string>(device, "name", "CPU backend (no GPU)"));
                e->set_vram_total_bytes(daemon::status_value<std::uint64_t>(device, "total_bytes", 0));
                e->set_vram_free_bytes(daemon::status_value<std::uint64_t>(device, "free_bytes", 0));
                if (w.contains("job")) {
                    e->set_current_job_id(std::to_string(w["job"].get<std::uint64_t>()));
                    e->set_current_proof_kind(proof_kind_of(daemon::status_value<std::string>(w, "circuit", "")));
                }
            }
            for (const auto& p : g.value("params", nlohmann::json::array())) {
                auto* e = out->add_loaded_srs();
                e->set_circuit_id(circuit_id_of(daemon::status_value<std::string>(p, "circuit", "")));
                e->set_tier(v1::SRSStatus::HOT);
                e->set_size_bytes(daemon::status_value<std::uint64_t>(p, "bytes", 0));
                e->set_ref_count(daemon::status_value<std::uint32_t>(p, "users", 0));
            }
            const auto& pin = g.contains("pinned") ? g["pinned"] : nlohmann::json();
            pinned += daemon::status_value<std::uint64_t>(pin, "bytes", 0);
            pinned_limit += daemon::status_value<std::uint64_t>(pin, "limit_bytes", 0);
        }
        out->set_pinned_memory_bytes(pinned);
        out->set_pinned_memory_limit_bytes(pinned_limit);
    });
}

grpc::Status proving_engine::GetMetrics(grpc::ServerContext* ctx, const v1::GetMetricsRequest*, v1::GetMetricsResponse* out) {
    return guarded(*ctx, "GetMetrics", [&] { out->set_prometheus_text(metrics_text_()); });
}

ipc::params_reply_msg proving_engine::params_in_every_gpud(ipc::params_action action, const std::string& circuit_id) {
    const auto spec = circuit_spec_of(circuit_id);
    const auto gpus = ipc::gpud_sockets_in(door_.config().runtime.dir);
    if (gpus.empty()) throw api_error(grpc::StatusCode::UNAVAILABLE, "no gpud is running: nothing holds parameters");
    ipc::params_reply_msg total;
    total.was_loaded = action == ipc::params_action::preload;  // preload: loaded everywhere already
    for (const int gpu : gpus) {
        ipc::message reply;
        try {
            // A preload reads the whole parameter file: minutes for the 32 GiB ones.
            reply = door_.call(ipc::gpud_socket_name(gpu), ipc::params_request_msg{action, spec},
                               action == ipc::params_action::preload ? std::chrono::milliseconds(30min) : request_timeout);
        } catch (const api_error& e) {
            if (e.code() == grpc::StatusCode::INVALID_ARGUMENT)
                throw api_error(grpc::StatusCode::FAILED_PRECONDITION, fmt::format("gpud {}: {}", gpu, e.what()));
            throw api_error(e.code(), fmt::format("gpud {}: {}", gpu, e.what()));
        }
        const auto* r = std::get_if<ipc::params_reply_msg>(&reply);
        if (!r) throw api_error(grpc::StatusCode::INTERNAL, fmt::format("gpud {} answered PARAMS_REQUEST with {}", gpu,
                                                                        ipc::to_string(ipc::type_of(reply))));
        if (action == ipc::params_action::preload) total.was_loaded = total.was_loaded && r->was_loaded;
        else total.was_loaded = total.was_loaded || r->was_loaded;
        total.load_ms = std::max(total.load_ms, r->load_ms);
        total.freed_bytes += r->freed_bytes;
    }
    return total;
}

grpc::Status proving_engine::PreloadSRS(grpc::ServerContext* ctx, const v1::PreloadSrsRequest* r, v1::PreloadSrsResponse* out) {
    return guarded(*ctx, "PreloadSRS", [&] {
        const auto total = params_in_every_gpud(ipc::params_action::preload, r->circuit_id());
        out->set_already_loaded(total.was_loaded);
        out->set_load_time_ms(total.load_ms);
    });
}

grpc::Status proving_engine::EvictSRS(grpc::ServerContext* ctx, const v1::EvictSrsRequest* r, v1::EvictSrsResponse* out) {
    return guarded(*ctx, "EvictSRS", [&] {
        const auto total = params_in_every_gpud(ipc::params_action::evict, r->circuit_id());
        out->set_was_loaded(total.was_loaded);
        out->set_freed_bytes(total.freed_bytes);
    });
}

}  // namespace cuzk::api
