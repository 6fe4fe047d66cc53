#include "gpud/cuda_backend/b_g2_prestage.hpp"

#include <spdlog/spdlog.h>

#include <exception>

#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"

namespace cuzk::gpud {

cuda_backend::b_g2_prestage_stats cuda_backend::b_g2_prestage() const {
    if (!b_g2_board_) return {};
    return {b_g2_board_->copied, b_g2_board_->used, b_g2_board_->row_a_copied, b_g2_board_->row_a_used};
}

void cuda_backend::offer_b_g2_scalars(cuda_work& w, const groth16::parameters& params) {
    if (b_g2_board_ && !w.prepared.b_scalars.empty()) {
        w.board = b_g2_board_;
        b_g2_board_->offer(&w, &params);
    }
}

void cuda_backend::b_g2_scalars_to_device(resident_params& r, const cuda_work& w) {
    if (r.g2_scalars_of == w.serial) {
        ++b_g2_board_->used;
        if (!b_g2_board_->announced.exchange(true))
            spdlog::info("GPU {}: B_G2's scalars were copied under the previous partition's kernels, so this "
                         "partition's B_G2 MSM starts at once under the lock",
                         gpu_);
    } else {
        r.g2_scalars_of = 0;  // no longer anyone's once overwritten, even by a copy that fails
        r.g2->upload_scalars(w.prepared.b_scalars);
    }
    r.g2_scalars_of = 0;  // this partition's, consumed
}

void cuda_backend::prestage_waiting_partition(b_g2_board& board, resident_params& r,
                                              const groth16::parameters* params) {
    cuda_work* next = board.take(params);
    if (!next) return;
    struct done_on_exit {
        b_g2_board& board;
        ~done_on_exit() { board.done(); }
    } taken{board};
    // A failed copy does not fail this partition, whose B_G2 is done: the next one copies its own scalars under
    // its lock, as without the board (and meets the error itself if it persists).
    try {
        r.g2->upload_scalars(next->prepared.b_scalars);
        r.g2_scalars_of = next->serial;
        ++board.copied;
    } catch (const std::exception& e) {
        spdlog::warn("CUDA backend: copying the B_G2 scalars of the partition waiting for the lock failed ({}); it "
                     "copies them under its own lock",
                     e.what());
    }
    // Then its row a into the spare NTT slot (after the scalars: B_G2's MSM is the first thing its kernels run;
    // the row is needed only after the rows' copies have been queued).
    const unsigned next_log_m = next->prepared.log_m;
    if (next_log_m > 0 && ntt_->spare_capacity() >= (size_t(1) << next_log_m)) {
        try {
            spare_row_a_of_ = 0;  // no longer anyone's once overwritten, even by a copy that fails
            ntt_->fill_spare(next->rows[0], next_log_m);
            spare_row_a_of_ = next->serial;
            ++board.row_a_copied;
        } catch (const std::exception& e) {
            spdlog::warn("CUDA backend: copying row a of the partition waiting for the lock failed ({}); it copies "
                         "it under its own lock",
                         e.what());
        }
    }
}

bool cuda_backend::adopt_prestaged_row_a(const cuda_work& w) {
    if (w.serial == 0 || spare_row_a_of_ != w.serial) return false;
    // The previous holder's kernels are all done, so nothing uses slot 0 or the spare.
    ntt_->adopt_spare(0);
    spare_row_a_of_ = 0;  // the spare is slot 0's old buffer now
    ++b_g2_board_->row_a_used;
    if (!b_g2_board_->row_a_announced.exchange(true))
        spdlog::info("GPU {}: row a was copied under the previous partition's kernels, so this partition's H "
                     "transforms start at once under the lock",
                     gpu_);
    return true;
}

}  // namespace cuzk::gpud
