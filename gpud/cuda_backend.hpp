// The CUDA proving backend (built where nvcc is found, cuzk_cuda): the kernels of a partition on one GPU.
//   prepare      CPU: groth16::prepare_partition (rows padded, A/B scalars compacted by density); with B_G2 on
//                the CPU, its multi-exponentiation starts on a CPU thread here, overlapping the wait for the
//                CUDA lock and the kernels; then the host ranges the kernels copy from (rows a, b, c, the
//                witness's aux as the L scalars, the A and B scalars) are page-locked (cuda::host_pin), so
//                their copies under the lock go by DMA at the link's rate: the pinning's CPU cost is paid
//                here, outside the lock. A range the driver refuses to pin (or one under pin_min_bytes) is
//                copied from pageable memory as before; the first refusal is logged as a warning. Last,
//                with B_G2 on the GPU, the work offers its B scalars to the partition holding the lock
//                (cuda_backend/b_g2_prestage.hpp); it withdraws the offer when its own kernels start or it is dropped.
//   run_kernels  GPU, under the CUDA lock: the parameters' points are made resident on first use (h, l, a,
//                b_g1 back to back in one G1 MSM context, so the four MSMs share one set of scratch buffers;
//                b_g2 in a G2 context when B_G2 is on the GPU; one upload per parameters object). B_G2's
//                scalars are copied first, alone (unless the previous holder copied them already, below),
//                and its MSM (on the GPU) starts from a second host thread, so its kernels run while the
//                rows are copied; B_G1's MSM runs then too, reading the same scalars in the G2 context.
//                The rows go to the device on the NTT context's copy stream (each input's transforms start
//                as its copy lands), H by the device NTTs, its coefficients read by the H MSM where they
//                are, in an NTT slot; the L and A scalars are copied into the freed NTT slots beside the H
//                MSM, so their MSMs follow it reading them there (no host upload, no device-to-device copy;
//                B_G1's go into H's slot after it where B_G2 is not on the GPU). Where A uses every aux
//                variable (not the PoRep circuits: they leave a few out), A's aux part is L's scalars: L
//                and A run as one MSM over them (one classification and sort, two accumulations) and A's
//                slot is not filled. Once its own B_G2 MSM and the H transforms are done, the B_G2 thread
//                copies the B_G2 scalars of a partition prepared and waiting for the lock (same parameters;
//                b_g2_prestage.hpp) into the G2 context, under the G1 MSMs, and its row a into the NTT
//                context's spare slot (where the device had room for one beside every G1 window's scratch:
//                4 GiB at 2^27); that partition then skips both copies, its slot 0 being the spare's buffer.
//                The B_G2 thread is joined before the lock is left, as every copy is waited for. Nothing is
//                unpinned or freed here.
//   finish       CPU: B_G2 from the GPU or the CPU thread, blinding with r and s, the proof
//                (groth16::blind_proof, as the CPU backend does: both give the same proof for the same draws);
//                then the ranges are unpinned and the rows and scalars freed (a work dropped without finish
//                does the same when destroyed). A range is always unpinned before its memory is freed.
// A compact partition (prepare_compact: the inputs in full, the aux values compact, the circuit's R1CS matrices)
// takes another way through the same steps where B_G2 is on the GPU:
//   prepare      CPU: its sizes checked against the matrices and the parameters (as prepare's), log_m; no
//                expansion, nothing pinned (gpud's ring, which holds it, is page-locked once) or offered.
//   run_kernels  the matrices resident beside the points (once per parameters object, uploaded before the
//                points and the MSM scratch plan, so both leave room for them), then ~100 MB of witness copied
//                instead of ~17 GB at the 32 GiB shape: B's scalars gathered on the device and B_G2's MSM
//                started on them, the rows a, b, c evaluated into the NTT slots, H's transforms with B_G1 beside
//                them, A's scalars gathered into slot 1 once they are done, then the H, L and A MSMs
//                (cuda_backend/compact_sequence.cpp). Every copy is synchronous: nothing reads the ring slot
//                after run_kernels.
//   finish       as above.
// With B_G2 on the CPU (its thread reads B's scalars in host memory) a compact partition is made whole on the
// host (host_expansion.hpp: ~17 GB at the 32 GiB shape) and proved as a full witness.
// Where the device memory left beside the parameters cannot hold every window's sorted pairs of the largest
// MSM at once, the MSM contexts process windows in passes under limits (plan_msm_scratch, logged once per
// parameters set: cuda_backend/device_memory_plan.hpp); on an H200 the 32 GiB shape needs none.
// B_G2 goes to the GPU by default: for a synthetic 32 GiB-shape partition on an H200 it took 255 ms there
// against ~15 s on 16 CPU threads (docs/benchmarks-history.md).
// Every CUDA failure throws cuda::cuda_error; the gpud worker fails the partition with its message, retryable
// (a device_error), and asks device_lost() whether the context survived. A compact witness or matrices the
// device finds inconsistent throw std::invalid_argument (not retried: the input is wrong, not the device).
// The parts, in cuda_backend/: partition_work (a partition's work from prepare to finish), host_pinning (its
// ranges' page locks), resident_params (the points on the device, resident_for), device_memory_plan (the MSM
// scratch limits and the spare NTT slot), b_g2_prestage (the waiting partition's inputs copied by the holder's
// B_G2 thread), kernel_sequence (run_kernels), compact_checks (prepare_compact's checks), compact_sequence
// (run_kernels for a compact partition, and the matrices made resident), sequence_guards (what both sequences
// wait for on their way out) and side_lane (a small compact partition's kernels beside the CUDA lock's holder).
// The side lane: a compact partition of a set whose domain is at most 2^side_lane_max_log (a WinningPoSt's, 2^19)
// may run its kernels without the CUDA lock (gpud does so for WinningPoSt's priority class alone), beside the
// holder's: with an NTT context and compact witness buffers of its own, the set's own MSM contexts (each set has
// its own), every stream of them high-priority (cuda/stream_priority.hpp), and none of the holder's state touched.
// Its device memory (a few hundred MB) comes out of the plans' reserve. Such a set's kernels under the lock take
// the side lane's mutex too, so one set's contexts serve one partition at a time.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <string>

#include "gpud/proving_backend.hpp"

namespace cuzk::cuda {
class host_pin;
class pinned_pool;
class ntt_context;
class r1cs_witness;
class device_out_of_memory;
template <class F>
class msm_context;
struct msm_stream_totals;
}  // namespace cuzk::cuda

namespace cuzk::gpud {

struct scratch_plan;
struct cuda_work;

// The MSM scratch limits the CUDA backend sets for a parameters set on GPU |gpu| before its first kernels
// (scratch_plan.hpp): free device memory now, plus |held_scratch| (what its MSM contexts hold) and
// |ntt_held| (its NTT context's), less what the NTTs at 2^log_m need and a 1 GiB reserve, shared between
// G1 (largest G1 query of |g1_points|, every scalar random at worst) and G2 (|g2_points|, 0 with B_G2 on
// the CPU). cuzk_bench_gpu --partition --device-gib plans with it too.
// |margin|: device memory kept out of the plan beyond the reserve, learnt from allocations that failed
// (cuda_backend::run_kernels).
scratch_plan plan_msm_scratch(int gpu, size_t g1_points, size_t g2_points, unsigned log_m, size_t held_scratch,
                              size_t ntt_held, size_t margin = 0);

class cuda_backend final : public proving_backend {
public:
    // Throws cuda::cuda_error when |gpu| is not a usable device. The settings (cuda_settings, proving_backend.hpp):
    //   pin_min_bytes        host ranges smaller than this are copied from pageable memory without being pinned
    //                        (registration is a system call and a page walk; small copies gain nothing). 0 pins
    //                        every range, SIZE_MAX none (the copies of the backend before pinning). The default,
    //                        32 MiB, is glibc's largest mmap threshold: a vector that size or more has pages of
    //                        its own, so its registration cannot collide with a neighbour's (smaller heap blocks
    //                        may share a page, and registrations may not overlap). The A and B scalar vectors of
    //                        this size and more are built in page-locked buffers reused from partition to
    //                        partition (none when SIZE_MAX).
    //   pinned_cache_bytes   free page-locked A/B scalar buffers kept for reuse (cuda::pinned_pool): with two
    //                        workers a 32 GiB PoRep partition holds ~5.6 GB of them per partition in flight; the
    //                        cache keeps what the next ones reuse.
    //   b_g2_on_gpu          B_G2's MSM on the GPU (the default), else on a CPU thread beside the GPU work.
    //   placement            [gpud] params_memory: where the parameters' points live (proving_backend.hpp).
    //   release_host_points  [gpud] release_host_points: the pages of a set's host point vectors go back to the
    //                        kernel once the points are on the device or packed for streaming (those B_G2 reads
    //                        on the CPU excepted): the caller must not read them again while the set is resident
    //                        (a read faults; gpud never does). Off by default here, where tests compare the
    //                        backend's proofs with the CPU's over the same parameters object.
    //   sparse_streaming     [gpud] sparse_streaming: the sets placed in host memory have their host copy
    //                        page-locked and mapped into the device's address space, and a streamed segment whose
    //                        MSM reads at most 3/4 of its points (those with a scalar other than 0: about half of
    //                        PoRep's L, A and B) gets those alone, gathered by a kernel reading the copy in place,
    //                        instead of the whole segment over the copy engine (msm_context::set_sparse_streaming;
    //                        counters streamed_segments and sparse_segments). Only where the MSM runs alone on the
    //                        GPU (L, A; B_G1 where it runs last): B_G1 beside H's transforms and B_G2 on its own
    //                        thread copy whole (msm_options::sparse_gather). Off by default here, on in gpud.
    //   side_lane_max_log    the side lane's largest domain (below).
    explicit cuda_backend(int gpu, const cuda_settings& settings = {});
    ~cuda_backend() override;
    // TEST FACILITY: with the "auto" or "split" placement, the next sets made resident keep |g1_points| of their G1
    // points on the device (clamped to the set's; l, a, b_g1, then h's) and stream the rest, B_G2's kept whole,
    // as on a GPU whose free memory splits them so (choose_points_split, tested apart), whatever this one has
    // free; std::nullopt: the free memory decides again.
    void split_points_for_test(std::optional<size_t> g1_points) { forced_g1_resident_ = g1_points; }
    std::string_view name() const override { return "cuda"; }
    std::unique_ptr<partition_work> prepare(const groth16::witness_view& w, const groth16::parameters& params) override;
    std::unique_ptr<partition_work> prepare_compact(const compact_partition& w,
                                                    const groth16::parameters& params) override;
    void run_kernels(partition_work& work) override;
    // The side lane (above; cuda_backend/side_lane.cpp): compact works of domain <= 2^side_lane_max_log (the
    // settings'; 2^22 by default: WinningPoSt's 2^19 in, every other Filecoin proof's 2^27 out), while no
    // run on the side lane has failed on the device (then every work goes under the lock, with a warning).
    bool can_run_beside_lock(const partition_work& work) const override;
    void run_kernels_beside_lock(partition_work& work) override;
    groth16::proof finish(partition_work& work, groth16::rng_fn& rng) override;
    // Page-locks |region| once (gpud: the whole ring): ranges inside it are then copied without a registration
    // per partition. A registration blocks the CUDA calls of other threads while it runs (an H200 measured the
    // lock holder's kernels 48x slower beside a thread pinning in a loop; docs/benchmarks-history.md), so one at start
    // beats one per partition beside the other worker's kernels. One region; a second call replaces it.
    void register_host_region(std::span<const std::byte> region) override;
    // The sticky error of GPU |gpu|'s context, or empty (cuda::context_error): no lock, not even the backend's.
    std::string device_lost() override;
    // host_pin_stats, b_g2_prestage, l_a_msm_shared (partitions whose L and A MSMs ran as one),
    // compact_partitions (proved from a compact witness on the device), compact_uploaded_bytes (their
    // witnesses' bytes copied to the device), host_points_released_bytes (the resident sets' host point
    // pages given back to the kernel now), prepares_making_resident (prepares that took the kernels' mutex
    // to make a set resident or plan its memory: once per set, not per partition), beside_lock_partitions
    // (kernels run on the side lane), side_lane_warm_ups (warm_side_lane's runs) and side_lane_off (1 once a side
    // run failed on the device), streamed_segments and sparse_segments (MSM segments of points in host memory
    // streamed, and of them those gathered sparse: sparse_streaming), by name. Never waits for
    // kernels: gpud's main loop, which sends the finished proofs, answers status requests with it.
    std::vector<std::pair<std::string, std::uint64_t>> counters() const override;
    // Frees |params|' points on the device (or their page-locked host copy), waiting for the kernels running
    // now: those of other parameters (no partition uses |params| any more, proving_backend.hpp), and the points
    // of a set are used only under |mu_| (cuda_backend/resident_params.cpp).
    void forget(const groth16::parameters& params) override;
    // The name and memory size read at construction; free memory asked now (cudaMemGetInfo, 0 when that fails).
    std::optional<device_info> device() const override;
    // Page-locked now: the registered region, the partitions' registered ranges, the scalar pool's buffers
    // (handed out and cached) and the parameters' host copies where streamed. The limit is the pool's cap on
    // cached free buffers ([gpud] pinned_cache_mib), the one cap the backend has.
    pinned_memory pinned() const override;
    // Bytes of the registered region (0 when none or refused).
    size_t host_region_bytes() const;

    // Parameter sets resident on the device now, and their points' bytes (for logs and tests).
    size_t resident_sets() const;
    size_t resident_bytes() const;
    // Device bytes of the R1CS matrices resident with them, and of the compact witness's buffers (z, the A and
    // B scalars, the uploaded compact arrays: kept while some set holds matrices).
    size_t resident_matrix_bytes() const;
    // Host bytes of the resident sets' point vectors given back to the kernel ([gpud] release_host_points);
    // an atomic read, no wait for kernels.
    size_t host_points_released_bytes() const;
    size_t compact_witness_bytes() const;

    // The host ranges of the partitions prepared so far (cumulative, except pinned_now_bytes).
    struct pin_stats {
        uint64_t pinned_ranges = 0, pinned_bytes = 0;      // page-locked in prepare
        uint64_t pageable_ranges = 0, pageable_bytes = 0;  // copied from pageable memory (small or refused)
        uint64_t refused_ranges = 0;                       // of those, refused by the driver
        uint64_t unpin_failures = 0;                       // cudaHostUnregister failed (logged)
        uint64_t pinned_now_bytes = 0;                     // pinned by works not yet finished or destroyed
        uint64_t pooled_ranges = 0, pooled_bytes = 0;      // A/B scalars already in reused page-locked buffers
        uint64_t pool_locked_new = 0, pool_reused = 0;     // the pool's buffers obtained / requests reusing one
        uint64_t pool_refused = 0, pool_locked_bytes = 0;  // requests the driver refused; page-locked bytes held
        double pin_seconds = 0, unpin_seconds = 0;         // CPU time of registering and unregistering
    };
    pin_stats host_pin_stats() const;
    struct pin_counters;

    // B_G2's scalars copied early (b_g2_board): by the lock holder's B_G2 thread for a partition waiting for
    // the lock (copied), and found there by that partition's kernels (used: its B_G2 MSM started at once);
    // likewise its row a, into the NTT context's spare slot (where the device has room for one).
    struct b_g2_prestage_stats {
        uint64_t copied = 0, used = 0;
        uint64_t row_a_copied = 0, row_a_used = 0;
    };
    b_g2_prestage_stats b_g2_prestage() const;
    struct b_g2_board;

    struct resident_params;

private:
    struct kernel_sequence;   // run_kernels' steps (cuda_backend/kernel_sequence.cpp)
    struct compact_sequence;  // the same for a compact partition (cuda_backend/compact_sequence.cpp)

    // Under |mu_|: the memory planned, kernel_sequence run (a full witness).
    void run_full_kernels(cuda_work& w);
    // Under |mu_|: the matrices resident, the memory planned, compact_sequence run.
    void run_compact_kernels(cuda_work& w);
    // Under |mu_|, after an allocation of |w|'s kernels failed for want of device memory: logs what holds the
    // device's memory, adds the refused size to |oom_margin_|, frees every set's MSM scratch and marks their
    // plans stale, so the next kernels plan with less (cuda_backend/device_memory_plan.cpp).
    void plan_after_out_of_memory(const cuda_work& w, const cuda::device_out_of_memory& e);
    // Under |mu_|: |msm_scratch_bytes_| from every set's MSM contexts.
    void note_scratch_held();
    // After |r|'s kernels (under |mu_|, or |side_mu_| on the side lane): the segments they streamed, beyond
    // |before| (r.streamed_totals() as they started), added to the counters.
    void note_streamed(const resident_params& r, const cuda::msm_stream_totals& before);
    // The matrices of |w| resident in |r| (uploaded unless |r| holds them; then |r|'s MSM scratch is planned
    // again, without the spare NTT slot, whose row a a compact partition has no use for) and the compact witness's
    // buffers reserved for |w| (cuda_backend/compact_sequence.cpp).
    void make_matrices_resident(resident_params& r, const compact_partition& w, unsigned log_m);

    // prepare's work on a whole witness (a compact one expanded on the host first).
    void prepare_into(cuda_work& work, const groth16::witness_view& w, const groth16::parameters& params);

    // The points of |params| on the device, uploaded on first use (cuda_backend/resident_params.cpp). With
    // |compact|, its matrices too (make_matrices_resident), before the points of a new set: their placement
    // ([gpud] params_memory = "auto") then counts the memory the matrices and the witness take.
    resident_params& resident_for(const groth16::parameters& params, const compact_partition* compact = nullptr,
                                  unsigned log_m = 0);
    // A set whose points were split between the device and host memory (resident_params::g1_resident > 0) streams
    // them all from its host copy from now on, its device points freed: before another big set is placed, and
    // after an allocation refused in the kernels. Under |mu_|, so no kernels of the set run.
    void stream_whole(resident_params& r);
    // The MSM scratch limits and, with |row_a_spare| (full-witness partitions), the spare NTT slot, before the
    // first kernels on |r|'s points at 2^log_m (cuda_backend/device_memory_plan.cpp).
    void plan_device_memory(resident_params& r, unsigned log_m, bool row_a_spare);
    // In prepare, before the CUDA lock: resident_for and plan_device_memory for a set not yet resident, so that the
    // first partition of a set does not upload its points and matrices under the lock (13.2 s for a 32 GiB PoRep
    // set on the H200: the GPU idle for the other gpuds of a machine, the other worker waiting). Under |mu_|,
    // so never beside this process's kernels (their memory plan stays true); a set already resident and
    // planned (|ready_|) costs a lookup, no wait on |mu_|.
    void make_resident_before_lock(const groth16::parameters& params, const compact_partition* compact,
                                   unsigned log_m, bool row_a_spare);

public:
    // PreloadSRS: the set, its matrices and its scratch plan on the device now (make_resident_before_lock, the
    // compact witness's buffers sized for the matrices; the first partition grows them to its staged copy).
    void preload(const groth16::parameters& params, const r1cs::r1cs_matrices* matrices) override;
    // For a preloaded set the side lane takes (domain <= 2^side_lane_max_log, B_G2 on the GPU, the lane on): one
    // run of its kernels on the side lane over a made-up witness of the circuit (zeros, ones and full values, as a
    // PoSt's), its sums dropped and not counted as a partition (counters(): side_lane_warm_ups). A WinningPoSt
    // after a preload took 91 ms on an H100's side lane against 33 ms for later ones (the lane's NTT context and
    // witness buffers made, every kernel's first launch). A failure on the device turns the side lane off, as a
    // failed side run does, and is logged; nothing is thrown (cuda_backend/side_lane.cpp).
    void warm_side_lane(const groth16::parameters& params, const r1cs::r1cs_matrices& matrices) override;

private:
    // CPU, in prepare: page-locks the host ranges |w|'s kernels copy from (cuda_backend/host_pinning.cpp).
    void pin_host_ranges(cuda_work& w);
    // The B_G2 prestage (cuda_backend/b_g2_prestage.cpp). In prepare: |w|'s B_G2 scalars offered on the board.
    // Under the lock: |w|'s B_G2 scalars into |r|'s G2 context, unless an earlier holder copied them there;
    // its row a adopted as NTT slot 0 where an earlier holder copied it into the spare slot (true). On the
    // holder's B_G2 thread, after its MSM: the oldest waiting partition of |params| has its inputs copied.
    void offer_b_g2_scalars(cuda_work& w, const groth16::parameters& params);
    void b_g2_scalars_to_device(resident_params& r, const cuda_work& w);
    bool adopt_prestaged_row_a(const cuda_work& w);
    void prestage_waiting_partition(b_g2_board& board, resident_params& r, const groth16::parameters* params);

    // The side lane's run of |w| on |r| (resident, its matrices in, planned): its own NTT context and witness
    // buffers, made on first use. Under |side_mu_|. |counted|: false for warm_side_lane's run, which counts as
    // neither a partition beside the lock nor a compact partition.
    void run_on_side_lane(cuda_work& w, resident_params& r, bool counted = true);
    // |z| reserved for |w|'s witness on |r|'s matrices (cuda_backend/compact_sequence.cpp).
    static void reserve_witness(cuda::r1cs_witness& z, const resident_params& r, const compact_partition& w,
                                unsigned log_m);
    // The set make_resident_before_lock made resident and planned for |params| (with its matrices when
    // |with_matrices|), or null; under |ready_mu_|.
    resident_params* ready_set(const groth16::parameters& params, bool with_matrices) const;

    // Removes a resident set, its device memory (or pinned host copy) freed; under |mu_| (takes |side_mu_|).
    void drop_resident(std::map<const groth16::parameters*, std::unique_ptr<resident_params>>::iterator it);

    int gpu_;
    std::string device_name_;
    uint64_t device_total_bytes_ = 0;
    bool b_g2_on_gpu_;
    params_placement placement_;
    std::optional<size_t> forced_g1_resident_;  // split_points_for_test
    bool release_host_points_;
    bool sparse_streaming_;
    unsigned side_lane_max_log_;
    size_t pin_min_bytes_;
    std::shared_ptr<pin_counters> pins_;  // shared with the works, which may outlive a call into the backend
    std::unique_ptr<cuda::host_pin> region_;  // register_host_region's, or null
    std::shared_ptr<cuda::pinned_pool> scalar_pool_;  // shared with the works (whose vectors it holds), or null
    size_t scalar_cache_bytes_;
    mutable std::mutex mu_;  // kernels of one partition at a time (the CUDA lock already orders workers)
    std::unique_ptr<cuda::ntt_context> ntt_;
    // Shared with the works, which withdraw from it when destroyed (null with B_G2 on the CPU).
    std::shared_ptr<b_g2_board> b_g2_board_;
    std::atomic<uint64_t> next_serial_{1};
    // The sets make_resident_before_lock made resident and planned, each with whether its matrices came too
    // (dropped with the set): only a hint, the kernels look their set up again under |mu_|. Every set, not the
    // last one only: with one hint, a prepare of the other set of two in turn (a WinningPoSt's between PoRep
    // partitions) waited on |mu_| for the kernels running, a whole partition's, before it could queue for the
    // lock. Under |ready_mu_|, held for a lookup only; taken after |mu_| where both are held, never before it.
    // The side lane finds its set here, not in |resident_|, which it never reads.
    struct ready_entry {
        resident_params* set = nullptr;
        bool with_matrices = false;
    };
    mutable std::mutex ready_mu_;
    std::map<const groth16::parameters*, ready_entry> ready_;
    // The side lane's: its NTT context and compact witness (high-priority streams), made on first use. |side_mu_|
    // orders a small set's runs (side lane or under |mu_|) and guards what makes a small set resident or frees it
    // (make_resident_before_lock, drop_resident), replans every set (plan_after_out_of_memory) or reads their
    // scratch (note_scratch_held); a big set's upload or drop never takes it. Taken after |mu_| where both are
    // held, never before it. Recursive: those steps nest inside a small set's run under |mu_|.
    mutable std::recursive_mutex side_mu_;
    std::unique_ptr<cuda::ntt_context> side_ntt_;
    std::unique_ptr<cuda::r1cs_witness> side_witness_;
    std::atomic<bool> side_lane_refused_{false};           // a side run failed on the device
    std::atomic<uint64_t> beside_lock_partitions_{0};      // kernels run on the side lane (counters())
    std::atomic<uint64_t> side_lane_warm_ups_{0};          // warm_side_lane runs done (counters())
    std::atomic<uint64_t> prepares_making_resident_{0};  // make_resident_before_lock calls that took |mu_|
    // MSM segments streamed from host memory and of them gathered sparse, by the kernels under |mu_| or on the side
    // lane (counters()).
    std::atomic<uint64_t> streamed_segments_{0}, sparse_segments_{0};
    // The sum of the resident sets' released_bytes(), for counters() (a status request), which must not wait
    // on |mu_|: gpud's main loop answers it, the loop that sends finished proofs.
    std::atomic<size_t> host_points_released_{0};
    // The serial of the work whose row a the NTT context's spare slot holds (copied by an earlier holder's B_G2
    // thread), or 0. Written by that thread and read by the next holder, both under |mu_|'s succession.
    uint64_t spare_row_a_of_ = 0;
    // Device memory every scratch plan leaves out beyond device_reserve: the sum of the allocations refused so
    // far (plan_after_out_of_memory), for what the plans' estimates do not see. Under |mu_|.
    size_t oom_margin_ = 0;
    std::atomic<uint64_t> oom_replans_{0};  // plan_after_out_of_memory calls (counters())
    // The MSM contexts' scratch held after the last kernels, over every set (counters(): read without |mu_|).
    std::atomic<uint64_t> msm_scratch_bytes_{0};
    std::atomic<uint64_t> l_a_shared_{0};  // partitions whose L and A ran as one MSM run (counters())
    std::atomic<uint64_t> compact_partitions_{0}, compact_uploaded_bytes_{0};  // counters()
    // The compact partitions' witness on the device, used under |mu_| alone; made with the first matrices,
    // freed with the last (drop_resident).
    std::unique_ptr<cuda::r1cs_witness> compact_witness_;
    std::map<const groth16::parameters*, std::unique_ptr<resident_params>> resident_;
    std::atomic<uint64_t> params_pinned_bytes_{0};  // page-locked host copies of |resident_|'s points (pinned())
};

}  // namespace cuzk::gpud
