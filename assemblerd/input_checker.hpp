// Job inputs read and checked off the main loop. A 32 GiB PoRep C1 is ~40 MB of JSON and takes about a second
// to parse and check: on the loop, a batch of submissions starved every other client (awaits and status went
// unanswered for tens of seconds on the H200 machine). A few threads, inputs taken highest priority first, then in
// arrival order, and one more thread for WinningPoSt's priority alone, so that a WinningPoSt (a block reward lost
// if late by seconds) is checked at once, not after the C1s submitted just before it; the loop hands a
// submission in (its job, where its input is) and takes it back spooled and checked, then journals it and
// answers; a refused input leaves nothing in the spool.
// A checked PoRep input leaves its public inputs beside it in the spool (spool::load_input), so a restart
// reads those instead of parsing the C1 again.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "assemblerd/job.hpp"
#include "assemblerd/spool.hpp"
#include "common/util/priority_fifo.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class input_checker {
public:
    struct outcome {
        job checked;        // with its input loaded where |error| is empty
        std::string error;  // the input_error's text (the client's fault), else empty
        bool internal = false;  // the error is the service's own (not an input_error)
    };

    static constexpr unsigned threads = 4;  // a batch of 32 GiB C1s is answered ~4x sooner than by one
    // The extra thread's floor: jobs of this priority or above (the API's WinningPoSt).
    static constexpr std::int32_t urgent_priority = ipc::winning_post_priority;

    // |check_circuit|: PoRep C1s are checked against the circuit too (spool::load_input). |before_check| (tests):
    // called on the checking thread before each submission is spooled, to hold some up.
    input_checker(spool& s, bool check_circuit, std::function<void(const job&)> before_check = {});
    ~input_checker();
    input_checker(const input_checker&) = delete;
    input_checker& operator=(const input_checker&) = delete;

    // Spools the input (spool::take_input) and reads it (spool::load_input); |name| as the client named it (the
    // spool file, or for inline bytes the client's own file name, quoted in errors and never opened).
    void submit(job j, ipc::c1_source source, std::string name, std::vector<std::byte> input);
    std::vector<outcome> take();
    std::size_t busy() const;  // submissions queued or being checked

private:
    void loop(std::int32_t min_priority);

    struct task {
        job j;
        ipc::c1_source source;
        std::string name;
        std::vector<std::byte> input;  // inline bytes, freed once spooled
    };

    spool& spool_;
    const bool check_circuit_;
    const std::function<void(const job&)> before_check_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    priority_fifo<task> tasks_;
    std::vector<outcome> done_;
    std::size_t running_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;  // last: they start after the members they use
};

}  // namespace cuzk::assemblerd
