// Verification of assembled proofs, off the main loop (a PoRep job of 10 partitions takes a while: the API
// and the stages' results keep flowing meanwhile). One thread, jobs by priority, then in completion order (a
// WinningPoSt's proof is not held behind the PoRep proofs that completed just before it); the verifying keys
// stay prepared per shape. The loop hands a copy of the job in and takes outcomes back.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <optional>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/file_identity.hpp"
#include "assemblerd/job.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/priority_fifo.hpp"

namespace cuzk::assemblerd {

class proof_verifier {
public:
    struct outcome {
        std::uint64_t job_id = 0;
        std::vector<std::uint32_t> invalid;  // partitions whose proof does not verify
        std::string vk_file;                 // the verifying key they were checked with
        std::string error;                   // verification could not run (vk missing or unfit, ...)
    };

    // |before_verify| (tests): called on the verifying thread before each job is verified, to hold one up.
    explicit proof_verifier(std::filesystem::path params_dir, std::function<void(const job&)> before_verify = {});
    ~proof_verifier();
    proof_verifier(const proof_verifier&) = delete;
    proof_verifier& operator=(const proof_verifier&) = delete;

    void submit(job j);
    std::vector<outcome> take();
    std::size_t busy() const;  // jobs queued or being verified

private:
    void loop();
    // Partitions whose proof does not verify against their own public inputs.
    std::vector<std::uint32_t> verify(const job& j, std::string& vk_file);

    const std::filesystem::path params_dir_;
    const std::function<void(const job&)> before_verify_;
    struct loaded_vk {
        std::filesystem::path file;
        std::optional<daemon::file_identity> identity;  // read again when the file changes
        groth16::prepared_verifying_key pvk;
    };
    std::map<std::string, loaded_vk> pvks_;  // by circuit shape; verifier thread only
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    priority_fifo<job> tasks_;
    std::vector<outcome> done_;
    std::size_t running_ = 0;
    bool stop_ = false;
    std::thread thread_;  // last: starts after the members it uses
};

}  // namespace cuzk::assemblerd
