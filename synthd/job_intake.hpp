// JOB messages received and not yet read. Reading a job's input is the slow part of taking it (a 32 GiB PoRep
// C1 parsed, a WindowPoSt partition's ~58 MB of vanilla proofs decoded: hundreds of ms), so it runs on a thread
// of its own, not on the loop thread, which keeps answering STATUS and CANCEL and receiving the next JOB.
// Highest priority first, then arrival; synthd reads with two threads, one of them for PoSt priorities only
// (pop's |min_priority|), so a WinningPoSt's JOB is read at once even while a PoRep C1 is being parsed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include <zmq.hpp>

#include "common/util/priority_fifo.hpp"
#include "ipc/messages.hpp"

namespace cuzk::synthd {

struct pending_job {
    std::vector<zmq::message_t> envelope;  // the sender, to answer if the input is refused
    ipc::job_msg job;
};

class job_intake {
public:
    void push(pending_job p);
    // The first in line once it is of at least |min_priority|; std::nullopt after |wait| or once closed.
    std::optional<pending_job> pop(std::chrono::milliseconds wait,
                                   std::int32_t min_priority = priority_fifo<pending_job>::any_priority);
    // Drops the JOBs of |job_id| not yet read (a cancel); returns how many.
    std::size_t drop_job(std::uint64_t job_id);
    void close();
    std::size_t waiting() const;

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    priority_fifo<pending_job> queue_;
    bool closed_ = false;
};

}  // namespace cuzk::synthd
