// A partition's work on the CUDA backend, from prepare to finish: the prepared partition, the host ranges its
// kernels copy from and their page locks (host_pinning.hpp), the kernels' results, B_G2 (a CPU thread's or the
// GPU's), and its offer of B_G2's scalars to the lock holder (b_g2_prestage.hpp); or, for a compact partition,
// the compact witness alone.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <span>

#include "common/groth16/prover_stages.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/pinned_pool.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/host_expansion.hpp"

namespace cuzk::gpud {

struct cuda_work final : partition_work {
    // The host ranges the kernels copy from, in the order the kernels copy them.
    enum range { row_a, row_b, row_c, aux, a_scalars, b_scalars, ranges };
    static constexpr const char* range_names[ranges] = {"row a", "row b", "row c", "aux (L scalars)", "A scalars",
                                                         "B scalars"};

    explicit cuda_work(std::shared_ptr<cuda::pinned_pool> pool)
        : scalar_pool(std::move(pool)),
          prepared(scalar_pool ? static_cast<std::pmr::memory_resource*>(scalar_pool.get())
                               : std::pmr::get_default_resource()) {}

    const groth16::parameters* params = nullptr;
    // A compact partition with B_G2 on the GPU (prepare_compact): its inputs and compact aux where synthd wrote
    // them (gpud: the ring slot), read by run_kernels alone (compact_sequence.cpp), which makes the rows and
    // scalars on the device; |prepared| then holds log_m alone, and nothing is pinned, offered or owned.
    std::optional<compact_partition> compact;
    // A compact partition made whole on the host (host_expansion.hpp), which the ranges below point into; declared
    // before them and the page locks, so it outlives both.
    std::unique_ptr<expanded_partition> expanded;
    // Where the A and B scalar vectors live (page-locked buffers reused across partitions), or null; declared
    // before |prepared| so it outlives the vectors it holds.
    std::shared_ptr<cuda::pinned_pool> scalar_pool;
    // Without rows (prepare_partition_without_rows): the kernels copy rows a, b, c from the witness, where
    // they are (the ring slot in gpud), padded with zeros on the device.
    groth16::prepared_partition prepared;
    std::span<const ff::fr_t> rows[3];
    // Rows a, b, c, the inputs and aux back to back in memory (as in a ring slot), or empty: then one
    // registration covers them all (separate ones would overlap at the pages they share and be refused).
    std::span<const ff::fr_t> witness_block;
    // Page locks on the ranges of |prepared| (and on the witness's aux, which it borrows). Declared after
    // |prepared|, so even the implicit member destruction unregisters them before its vectors are freed;
    // release_host does it explicitly.
    cuda::host_pin pins[ranges];
    std::shared_ptr<cuda_backend::pin_counters> counters;
    groth16::kernel_results kernels;
    bool kernels_done = false;
    ec::g2_jacobian_t b2_acc;  // B_G2 when it ran on the GPU
    uint64_t serial = 0;       // unique in its backend (resident_params::g2_scalars_of), from 1
    // The board its B_G2 scalars were offered on, or null; withdrawn from it before they are freed.
    std::shared_ptr<cuda_backend::b_g2_board> board;
    // Declared last: destroyed first, so a work dropped without finish() waits for its B_G2 thread
    // before the scalars that thread reads go away (the destructor also waits for it explicitly).
    std::future<ec::g2_jacobian_t> b_g2;

    ~cuda_work() override;

    std::span<const ff::fr_t> host_range(int i) const;
    // The vector behind a range, or null for the witness's rows and aux (not ours to free).
    groth16::scalar_buffer* owned(int i);

    // Unpins every range, then (all unpinned) frees the rows and scalars; the B_G2 thread, if any, must be done.
    // A vector whose range could not be unpinned is leaked rather than freed: freed, its address range could be
    // handed out again by the allocator while the driver still holds it registered. Never throws.
    void release_host() noexcept;
};

cuda_work& as_cuda(partition_work& w);

}  // namespace cuzk::gpud
