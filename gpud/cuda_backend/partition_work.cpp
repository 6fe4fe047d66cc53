#include "gpud/cuda_backend/partition_work.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

#include "gpud/cuda_backend/b_g2_prestage.hpp"
#include "gpud/cuda_backend/elapsed.hpp"
#include "gpud/cuda_backend/host_pinning.hpp"

namespace cuzk::gpud {

cuda_work::~cuda_work() {
    if (b_g2.valid()) b_g2.wait();
    if (board) board->withdraw(this);  // waits while a holder's thread copies from b_scalars
    release_host();
}

std::span<const ff::fr_t> cuda_work::host_range(int i) const {
    switch (i) {
        case row_a: return rows[0];
        case row_b: return rows[1];
        case row_c: return rows[2];
        case aux: return prepared.aux;
        case a_scalars: return prepared.a_scalars;
        case b_scalars: return prepared.b_scalars;
        default: return {};
    }
}

groth16::scalar_buffer* cuda_work::owned(int i) {
    switch (i) {
        case a_scalars: return &prepared.a_scalars;
        case b_scalars: return &prepared.b_scalars;
        default: return nullptr;
    }
}

void cuda_work::release_host() noexcept {
    bool leak[ranges] = {};
    for (int i = 0; i < ranges; ++i) {
        if (!pins[i].pinned()) continue;
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t bytes = pins[i].bytes();
        try {
            pins[i].unpin();
        } catch (const std::exception& e) {
            leak[i] = true;
            if (counters) ++counters->unpin_failures;
            try {
                spdlog::warn("CUDA backend: {} ({} bytes) could not be unpinned: {}; its memory is {}",
                             range_names[i], bytes, e.what(),
                             owned(i) ? "leaked, not freed" : "the witness's (its owner frees it)");
            } catch (...) {
            }
        }
        if (counters) {
            counters->pinned_now_bytes -= bytes;
            counters->unpin_ns += ns_since(t0);
        }
    }
    for (int i = 0; i < ranges; ++i) {
        auto* v = owned(i);
        if (!v) continue;
        if (leak[i])
            v->leak();  // deliberately never given back (see above)
        else
            v->release();  // back to the pool, if pooled
    }
}

cuda_work& as_cuda(partition_work& w) { return dynamic_cast<cuda_work&>(w); }

}  // namespace cuzk::gpud
