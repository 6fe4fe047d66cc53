// The B_G2 prestage: a partition prepared and waiting for the CUDA lock offers its B_G2 scalars on the backend's
// board (prestage_board.hpp); the lock holder's B_G2 thread, once its own B_G2 MSM and the H transforms are done,
// takes the oldest offer of the same parameters and copies those scalars into the G2 MSM context, under the G1
// MSMs, and that partition's row a into the NTT context's spare slot, where the device had room for one
// (device_memory_plan.hpp). The taken partition's kernels then start its B_G2 MSM and its H transforms at once
// instead of after the copies. On an H200 at the 32 GiB shape that saves it the ~26 ms copy of B_G2's scalars
// at the start of its lock, and ~25 ms of the wait for row a's ~80 ms copy, which its B_G2 and B_G1 MSMs fill
// only in part (docs/benchmarks-history.md).
#pragma once

#include <atomic>
#include <cstdint>

#include "common/groth16/keys.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/prestage_board.hpp"

namespace cuzk::gpud {

struct cuda_work;

struct cuda_backend::b_g2_board : prestage_board<cuda_work, groth16::parameters> {
    std::atomic<uint64_t> copied{0}, used{0};
    std::atomic<uint64_t> row_a_copied{0}, row_a_used{0};
    std::atomic<bool> announced{false}, row_a_announced{false};
};

// The holder's window over its kernels (prestage_board::begin, open, close), closed on every way out so a B_G2
// thread waiting for an offer is let go. No board (B_G2 on the CPU): nothing.
class b_g2_prestage_window {
public:
    explicit b_g2_prestage_window(cuda_backend::b_g2_board* board) : board_(board) {
        if (board_) board_->begin();
    }
    ~b_g2_prestage_window() { close(); }
    b_g2_prestage_window(const b_g2_prestage_window&) = delete;
    b_g2_prestage_window& operator=(const b_g2_prestage_window&) = delete;
    void open() {
        if (board_) board_->open();
    }
    void close() {
        if (board_) board_->close();
    }

private:
    cuda_backend::b_g2_board* board_;
};

}  // namespace cuzk::gpud
