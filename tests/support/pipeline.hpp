// A pipeline of real daemon processes for the integration tests: its own runtime and spool directories,
// ring and CUDA-lock segment names (so tests run in parallel), each daemon started from the built binaries
// (CUZK_*_PATH) with its stderr in <dir>/<stage>.log, readiness by polling STATUS_REQUEST (no fixed sleeps),
// kill -9 / restart of any stage, and an independent check of every partition proof.
// Several gpuds, one per GPU, as on a multi-GPU host: start("gpud", 1) starts "gpud-1" (--gpu 1, its own
// CUDA lock, log gpud-1.log); "gpud" is GPU 0's. The other members take these instance names.
// A stage can be started with variables added to its environment (gpud's CUZK_GPUD_INJECT_FAULTS), and a
// stage that exits by itself is waited for with its exit status (wait_exit).
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "daemon/config.hpp"
#include "daemon/params_store.hpp"
#include "daemon/service_client.hpp"
#include "daemon/test_job_input.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/partition_ring.hpp"

namespace cuzk::test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct pipeline_options {
    std::uint32_t slots = 4;
    std::uint32_t synth_threads = 1;
    std::uint32_t gpud_workers = 2;
    double partition_timeout_s = 6;
    std::uint32_t max_pending_jobs = 64;
    std::uint64_t slot_bytes = 4 << 20;  // mul:16384 needs about 2.1 MB
    std::string gpud_backend{};          // [gpud] backend; empty: the default
    std::uint32_t max_partition_attempts = 0;  // [assemblerd] max_partition_attempts; 0: the default
    std::string extra_config{};  // TOML appended to the configuration: sections the options above do not set ([api])
    std::string assemblerd_config{};  // TOML lines added to [assemblerd]
    std::string segments_of{};   // non-empty: the ring and GPU 0's lock are named as that pipeline tag's (two
                                 // services configured with the same names)
    std::string lock_of{};       // non-empty: GPU 0's lock alone is named as that pipeline tag's
};

inline ipc::segment_location named(const std::string& name) {
    ipc::segment_location where;
    where.name = name;
    return where;
}

inline ipc::cuda_lock_options lock_named(const std::string& name) {
    ipc::cuda_lock_options o;
    o.segment = named(name);
    return o;
}

class pipeline {
public:
    explicit pipeline(pipeline_options o = {}) : options_(o) {
        static int counter = 0;
        tag_ = fmt::format("{}-{}", ::getpid(), counter++);
        dir_ = fs::temp_directory_path() / fmt::format("cuzk-pt-{}", tag_);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        config_path_ = dir_ / "cuzk.toml";
        std::ofstream(config_path_) << config_text(lock_name_of(0));
        config_ = daemon::load_config(config_path_);
        config_.resolve_defaults();
    }

    // The configuration of every stage; |lock_name| differs per GPU (see config_path).
    std::string config_text(const std::string& lock_name) const {
        const auto& o = options_;
        return fmt::format(R"([runtime]
dir = "{0}/rt"
spool_dir = "{0}/spool"
log_level = "info"
[metrics]
listen = ""
[ring]
name = "cuzk-test-ring-{12}"
slots = {2}
slot_bytes = {7}
[assemblerd]
partition_timeout_s = {3}
max_pending_jobs = {6}
{10}
{13}
[synthd]
threads = {4}
lookahead = 1
[gpud]
workers = {5}
lock_name = "{8}"
{9}
{11}
)",
                           dir_.string(), tag_, o.slots, o.partition_timeout_s, o.synth_threads, o.gpud_workers,
                           o.max_pending_jobs, o.slot_bytes, lock_name,
                           o.gpud_backend.empty() ? "" : fmt::format("backend = \"{}\"", o.gpud_backend),
                           o.max_partition_attempts == 0
                               ? ""
                               : fmt::format("max_partition_attempts = {}", o.max_partition_attempts),
                           o.extra_config, segment_tag(), o.assemblerd_config);
    }

    // GPU 0's lock is the configuration's ([gpud] lock_name); another GPU's gpud reads a copy of the
    // configuration naming its own lock, as a GPU's default lock name would (unique per test here).
    std::string lock_name_of(int gpu) const {
        return gpu == 0 ? fmt::format("cuzk-test-lock-{}", options_.lock_of.empty() ? segment_tag() : options_.lock_of)
                        : fmt::format("cuzk-test-lock-{}-gpu{}", tag_, gpu);
    }
    // The tag the ring and GPU 0's lock are named with: this pipeline's, or the one options.segments_of names.
    const std::string& segment_tag() const { return options_.segments_of.empty() ? tag_ : options_.segments_of; }
    const std::string& tag() const { return tag_; }
    fs::path config_path(int gpu = 0) const {
        return gpu == 0 ? config_path_ : dir_ / fmt::format("cuzk-gpu{}.toml", gpu);
    }

    // "gpud" for GPU 0 (as in the single-GPU tests), "gpud-<gpu>" for the others; other stages: |stage|.
    static std::string instance(const std::string& stage, int gpu = 0) {
        return stage == "gpud" && gpu != 0 ? fmt::format("gpud-{}", gpu) : stage;
    }
    static int gpu_of(const std::string& name) {
        return name.starts_with("gpud-") ? std::stoi(name.substr(5)) : 0;
    }

    ~pipeline() {
        while (!pids_.empty()) stop(std::string(pids_.begin()->first));  // stop() erases the entry
        ipc::partition_ring::remove(named(config_.ring.name));
        for (const int gpu : gpus_) ipc::cuda_lock::remove(named(lock_name_of(gpu)));
        // CUZK_TEST_KEEP=1 keeps the directory (config, logs with TIMELINE lines) of passing tests too.
        if (!::testing::Test::HasFailure() && !std::getenv("CUZK_TEST_KEEP")) fs::remove_all(dir_);
        else dump_logs();
    }

    const daemon::config& config() const { return config_; }
    const fs::path& dir() const { return dir_; }

    static const char* binary(const std::string& name) {
        if (name == "assemblerd") return CUZK_ASSEMBLERD_PATH;
        if (name == "synthd") return CUZK_SYNTHD_PATH;
        return CUZK_GPUD_PATH;
    }
    static std::string socket_of(const std::string& name) {
        if (name == "assemblerd") return std::string(ipc::socket_names::api);
        if (name == "synthd") return std::string(ipc::socket_names::synthd);
        return ipc::gpud_socket_name(gpu_of(name));
    }

    pid_t pid(const std::string& stage) const { return pids_.at(stage); }

    // Starts |stage| (gpud: on |gpu|), with |environment| added to the test's, and waits until it answers
    // STATUS_REQUEST.
    void start(const std::string& stage_or_name, int gpu = 0,
               const std::map<std::string, std::string>& environment = {}) {
        const auto stage = instance(stage_or_name, gpu);  // start("gpud-1") is start("gpud", 1)
        gpu = gpu_of(stage);
        if (stage.starts_with("gpud")) {
            gpus_.insert(gpu);
            if (gpu != 0 && !fs::exists(config_path(gpu))) std::ofstream(config_path(gpu)) << config_text(lock_name_of(gpu));
        }
        const auto config_file = config_path(gpu).string();
        const auto gpu_arg = std::to_string(gpu);
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            const auto log = dir_ / (stage + ".log");
            std::FILE* f = std::fopen(log.c_str(), "a");
            // stdout too: a daemon must not keep the test's output pipe open.
            if (f) {
                ::dup2(::fileno(f), STDOUT_FILENO);
                ::dup2(::fileno(f), STDERR_FILENO);
            }
            for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
            if (gpu != 0)
                ::execl(binary(stage), binary(stage), "--config", config_file.c_str(), "--gpu", gpu_arg.c_str(),
                        static_cast<char*>(nullptr));
            else
                ::execl(binary(stage), binary(stage), "--config", config_file.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        started_.insert(stage);
        pids_[stage] = pid;
        const auto deadline = std::chrono::steady_clock::now() + 30s;
        while (!answers(stage)) {
            int status = 0;
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                pids_.erase(stage);
                FAIL() << "cuzk-" << stage << " exited while starting:\n" << log_of(stage);
            }
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << stage << " not ready:\n" << log_of(stage);
            std::this_thread::sleep_for(20ms);
        }
    }
    void start_all() {
        for (const auto* s : {"assemblerd", "synthd", "gpud"}) start(s);
    }

    void kill9(std::string stage) {
        const pid_t pid = pids_.at(stage);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        pids_.erase(stage);
    }
    void stop(std::string stage) {
        auto it = pids_.find(stage);
        if (it == pids_.end()) return;
        ::kill(it->second, SIGTERM);
        int status = 0;
        ::waitpid(it->second, &status, 0);
        pids_.erase(it);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << stage << " did not stop cleanly:\n" << log_of(stage);
    }

    // Waits up to |limit| for |stage| to exit by itself; its exit status, or -1 when it is still running (it is
    // then left to the destructor) or was ended by a signal.
    int wait_exit(const std::string& stage, std::chrono::milliseconds limit = 30s) {
        const pid_t pid = pids_.at(stage);
        const auto deadline = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (::waitpid(pid, &status, WNOHANG) != pid) {
            if (std::chrono::steady_clock::now() > deadline) return -1;
            std::this_thread::sleep_for(10ms);
        }
        pids_.erase(stage);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    bool answers(const std::string& stage) const {
        try {
            auto r = daemon::request(config_.endpoint(socket_of(stage)), ipc::status_request_msg{}, 200ms);
            return r && std::holds_alternative<ipc::status_reply_msg>(*r);
        } catch (const std::exception&) {
            return false;
        }
    }

    std::optional<ipc::message> call(const std::string& stage, const ipc::message& m, std::chrono::milliseconds t = 5s) const {
        return daemon::request(config_.endpoint(socket_of(stage)), m, t);
    }

    // Sends |frame| as it is (not an encoded message) to |stage| and decodes its answer; nullopt when none came
    // within 5 s.
    std::optional<ipc::message> call_raw(const std::string& stage, const std::string& frame) const {
        zmq::context_t context(1);
        zmq::socket_t req(context, zmq::socket_type::req);
        req.set(zmq::sockopt::linger, 0);
        req.set(zmq::sockopt::rcvtimeo, 5000);
        req.connect(config_.endpoint(socket_of(stage)));
        if (!req.send(zmq::buffer(frame), zmq::send_flags::none)) return std::nullopt;
        zmq::message_t reply;
        if (!req.recv(reply)) return std::nullopt;
        return ipc::decode(std::span(static_cast<const std::byte*>(reply.data()), reply.size()));
    }

    std::string write_job(const std::string& circuit, std::uint32_t partitions, std::uint64_t seed) {
        const auto path = dir_ / fmt::format("job-{}-{}-{}.json", circuit.substr(0, circuit.find(':')), partitions, seed);
        std::ofstream(path) << daemon::test_job_input{circuit, partitions, seed}.to_json();
        return path.string();
    }

    // A SUBMIT carrying the bytes of |file| (named by its path in the service's errors), as `cuzk submit` sends.
    static ipc::submit_msg submit_of_file(ipc::proof_kind kind, const std::string& file, std::int32_t priority = 0,
                                          const std::string& request_id = "") {
        std::ifstream in(file, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ipc::submit_msg m{request_id, "", kind, priority, ipc::c1_source::inline_bytes, file, {}};
        const auto* p = reinterpret_cast<const std::byte*>(text.data());
        m.input.assign(p, p + text.size());
        return m;
    }

    // SUBMIT; returns the reply (submit_reply or error_reply).
    ipc::message submit(const std::string& circuit, std::uint32_t partitions, std::uint64_t seed,
                        const std::string& request_id = "", std::int32_t priority = 0) {
        const auto m = submit_of_file(ipc::proof_kind::test_circuit, write_job(circuit, partitions, seed), priority,
                                      request_id);
        auto r = call("assemblerd", m);
        EXPECT_TRUE(r.has_value()) << "no reply to SUBMIT";
        return r.value_or(ipc::error_reply_msg{});
    }
    std::uint64_t submit_ok(const std::string& circuit, std::uint32_t partitions, std::uint64_t seed,
                            const std::string& request_id = "") {
        auto r = submit(circuit, partitions, seed, request_id);
        auto* ok = std::get_if<ipc::submit_reply_msg>(&r);
        EXPECT_NE(ok, nullptr) << (std::holds_alternative<ipc::error_reply_msg>(r) ? std::get<ipc::error_reply_msg>(r).text : "");
        return ok ? ok->job_id : 0;
    }

    // Awaits the end of a job, retrying while assemblerd is down (restart tests).
    ipc::await_reply_msg await(std::uint64_t job, std::chrono::seconds limit = 60s) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            std::optional<ipc::message> r;
            try {
                r = call("assemblerd", ipc::await_msg{job, 500, true}, 3s);
            } catch (const std::exception&) {
            }
            if (r) {
                if (auto* a = std::get_if<ipc::await_reply_msg>(&*r)) {
                    if (a->state == ipc::job_state::done || a->state == ipc::job_state::failed ||
                        a->state == ipc::job_state::cancelled)
                        return *a;
                } else {
                    ADD_FAILURE() << "AWAIT answered with " << ipc::to_string(ipc::type_of(*r));
                    return {};
                }
            } else {
                std::this_thread::sleep_for(50ms);
            }
        }
        ADD_FAILURE() << "job " << job << " did not finish within " << limit.count() << " s\n" << status_text();
        return {};
    }

    std::string status_text() const {
        auto r = call("assemblerd", ipc::status_request_msg{}, 2s);
        return r && std::holds_alternative<ipc::status_reply_msg>(*r) ? std::get<ipc::status_reply_msg>(*r).json
                                                                       : "(assemblerd does not answer)";
    }

    // Every partition proof verifies against its own public inputs, and fails against another partition's.
    void expect_valid(const ipc::await_reply_msg& r, const std::string& circuit, std::uint32_t partitions,
                      std::uint64_t seed) const {
        ASSERT_EQ(r.state, ipc::job_state::done) << r.error;
        ASSERT_EQ(r.proof.size(), std::size_t{partitions} * ipc::partition_proof_bytes);
        const auto vk = groth16::read_vk(daemon::vk_path(config_.gpud.params_dir, circuit));
        const auto pvk = groth16::prepare_verifying_key(vk);
        const daemon::test_job_input in{circuit, partitions, seed};
        for (std::uint32_t p = 0; p < partitions; ++p) {
            const auto pi = groth16::proof_from_bytes(std::span(
                reinterpret_cast<const std::uint8_t*>(r.proof.data()) + p * ipc::partition_proof_bytes,
                ipc::partition_proof_bytes));
            const auto inputs = circuits::make_circuit(in.partition_spec(p))->public_inputs();
            EXPECT_TRUE(groth16::verify_proof(pvk, pi, inputs)) << "job " << r.job_id << " partition " << p;
            const auto other = circuits::make_circuit(in.partition_spec(p + 1))->public_inputs();
            EXPECT_FALSE(groth16::verify_proof(pvk, pi, other)) << "partition " << p << " verifies for p+1";
        }
    }

    ipc::partition_ring open_ring() const {
        return ipc::partition_ring::open(named(config_.ring.name));
    }
    std::size_t slots_in(ipc::slot_state s) const {
        std::size_t n = 0;
        for (const auto& snap : open_ring().snapshot()) n += snap.state == s;
        return n;
    }

    std::string log_of(const std::string& stage) const {
        std::ifstream in(dir_ / (stage + ".log"));
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    void dump_logs() const {
        std::set<std::string> names{"assemblerd", "synthd", "gpud"};
        names.insert(started_.begin(), started_.end());
        for (const auto& s : names) {
            const auto text = log_of(s);
            std::fprintf(stderr, "---- %s.log (last 4000 bytes) ----\n%s\n", s.c_str(),
                         text.substr(text.size() > 4000 ? text.size() - 4000 : 0).c_str());
        }
    }

    // Polls |pred| every 10 ms up to |limit|.
    template <class F>
    static bool wait_for(F&& pred, std::chrono::milliseconds limit = 20s) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!pred()) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(10ms);
        }
        return true;
    }

private:
    pipeline_options options_;
    std::string tag_;
    fs::path dir_, config_path_;
    daemon::config config_;
    std::map<std::string, pid_t> pids_;
    std::set<std::string> started_;  // every instance started, for dump_logs
    std::set<int> gpus_{0};          // the GPUs whose lock segment is removed at the end
};

}  // namespace cuzk::test
