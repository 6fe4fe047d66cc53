// Verification of assembled proofs, off the main loop (a PoRep job of 10 partitions takes a while: the API
// and the stages' results keep flowing meanwhile). One thread, jobs in completion order; the verifying keys
// stay prepared per shape. The loop hands a copy of the job in and takes outcomes back.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "assemblerd/job.hpp"
#include "common/groth16/verifier.hpp"

namespace cuzk::assemblerd {

class proof_verifier {
public:
    struct outcome {
        std::uint64_t job_id = 0;
        std::vector<std::uint32_t> invalid;  // partitions whose proof does not verify
        std::string error;                   // verification could not run (vk missing or unfit, ...)
    };

    explicit proof_verifier(std::filesystem::path params_dir);
    ~proof_verifier();
    proof_verifier(const proof_verifier&) = delete;
    proof_verifier& operator=(const proof_verifier&) = delete;

    void submit(job j);
    std::vector<outcome> take();
    std::size_t busy() const;  // jobs queued or being verified

private:
    void loop();
    // Partitions whose proof does not verify against their own public inputs.
    std::vector<std::uint32_t> verify(const job& j);

    const std::filesystem::path params_dir_;
    std::map<std::string, groth16::prepared_verifying_key> pvks_;  // verifier thread only
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<job> tasks_;
    std::vector<outcome> done_;
    std::size_t running_ = 0;
    bool stop_ = false;
    std::thread thread_;  // last: starts after the members it uses
};

}  // namespace cuzk::assemblerd
