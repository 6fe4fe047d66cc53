// Where prepared partitions waiting for the CUDA lock offer an input to the partition holding it, so the
// holder's kernels can hide that input's copy to the GPU (cuda_backend/b_g2_prestage.hpp: B_G2's scalars and
// row a, copied by the holder's B_G2 thread once its own B_G2 MSM and the H transforms are done, while the
// G1 MSMs leave the bus idle). The next holder then starts its B_G2 MSM at once instead of after a copy.
//
// The holder's window bounds when a take may happen: begin() at the start of its kernels (takes wait),
// open() once its own copies that the taken copy would slow are done (takes return an offer as soon as one
// is there), close() when its kernels end, and on every way out (takes return at once: an offer if there
// is one, else nothing; a copy taken then may outlast the holder's kernels by its own length, which the
// next holder no longer spends, so nothing is lost). A work is taken at most once; withdraw() removes an
// offer and waits while the work is being copied from, so the work may be destroyed right after it
// returns. Works are matched to the holder by a key (the parameters object: the copy goes into that
// object's context). Thread-safe; pure host code, so its rules are tested without a GPU.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace cuzk::gpud {

template <class Work, class Key>
class prestage_board {
public:
    // |w| (prepared, waiting for the lock) may be taken by a holder with the same |key|; oldest offers first.
    void offer(Work* w, const Key* key) {
        std::lock_guard lk(mu_);
        offers_.push_back({w, key});
        cv_.notify_all();
    }

    // Removes |w|'s offer, if any, and waits until no holder is copying from it: the board does not touch
    // |w| after this returns.
    void withdraw(Work* w) {
        std::unique_lock lk(mu_);
        std::erase_if(offers_, [w](const entry& e) { return e.work == w; });
        cv_.wait(lk, [&] { return taken_ != w; });
    }

    // The holder's window: begin() at the start of its kernels, open() when takes may start, close() when
    // takes must not wait any more (idempotent; also on a failure, so a waiting take returns).
    void begin() {
        std::lock_guard lk(mu_);
        open_ = closed_ = false;
    }
    void open() {
        std::lock_guard lk(mu_);
        open_ = true;
        cv_.notify_all();
    }
    void close() {
        std::lock_guard lk(mu_);
        closed_ = true;
        cv_.notify_all();
    }

    // Waits until the window is open and an offer of |key| is there, or the window is closed; returns the
    // oldest such offer (removed, taken until done()), or nullptr when there is none. One take at a time.
    Work* take(const Key* key) {
        std::unique_lock lk(mu_);
        auto match = [&] {
            return std::find_if(offers_.begin(), offers_.end(), [key](const entry& e) { return e.key == key; });
        };
        cv_.wait(lk, [&] { return closed_ || (open_ && match() != offers_.end()); });
        const auto it = match();
        if (it == offers_.end()) return nullptr;
        Work* w = it->work;
        offers_.erase(it);
        taken_ = w;
        return w;
    }

    // The copy from the work take() returned is over (done or failed): a withdraw() waiting on it returns.
    void done() {
        std::lock_guard lk(mu_);
        taken_ = nullptr;
        cv_.notify_all();
    }

    size_t offers() const {
        std::lock_guard lk(mu_);
        return offers_.size();
    }

private:
    struct entry {
        Work* work;
        const Key* key;
    };
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<entry> offers_;
    Work* taken_ = nullptr;
    bool open_ = false, closed_ = true;
};

}  // namespace cuzk::gpud
