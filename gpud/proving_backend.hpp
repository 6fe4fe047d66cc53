// What a gpud worker drives, in the three steps of the interlock: prepare (CPU, before the CUDA lock),
// run_kernels (the only step under the lock: H's NTTs and the H, L, A, B_G1 multi-exponentiations),
// finish (CPU after the lock: B_G2 multi-exponentiation, blinding, the proof). A backend object is shared by
// the workers of one gpud; each partition's state lives in its own partition_work.
// The CPU backend is the reference and fallback; a CUDA backend implements the same interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/groth16/keys.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover_stages.hpp"
#include "common/groth16/randomness.hpp"
#include "common/r1cs/r1cs_matrices.hpp"
#include "common/witness/compact_vector.hpp"

namespace cuzk::gpud {

// One partition in flight in a backend (device buffers, host scalars, ...).
class partition_work {
public:
    virtual ~partition_work() = default;
};

// A partition as synthd hands it over (daemon/partition_witness.hpp): the public inputs in full, the aux values
// compact, and its circuit's matrices, from which a backend computes the rows a = A.z, b = B.z, c = C.z and takes
// the densities. Sizes are checked against the matrices by prepare_compact.
struct compact_partition {
    std::span<const ff::fr_t> inputs;  // inputs[0] == ONE
    witness::compact_vector_view aux;
    const r1cs::r1cs_matrices* matrices = nullptr;
};

// The device a backend proves on, for gpud's status.
struct device_info {
    std::string name;               // "NVIDIA H200"
    std::uint64_t total_bytes = 0;  // device memory
    std::uint64_t free_bytes = 0;   // free now (0 when the device could not be asked)
};

// Page-locked host memory a backend holds, for gpud's status.
struct pinned_memory {
    std::uint64_t bytes = 0;        // page-locked now
    std::uint64_t limit_bytes = 0;  // the backend's cap (0: none)
};

class proving_backend {
public:
    virtual ~proving_backend() = default;
    virtual std::string_view name() const = 0;
    // |w| and |params| must stay valid until finish returns. Throws std::invalid_argument on a mismatch.
    virtual std::unique_ptr<partition_work> prepare(const groth16::witness_view& w,
                                                    const groth16::parameters& params) = 0;
    // The same from a compact partition (gpud's path); |w|'s memory, its matrices and |params| must stay valid until
    // finish returns. Throws input_error when the witness does not fit the matrices.
    virtual std::unique_ptr<partition_work> prepare_compact(const compact_partition& w,
                                                            const groth16::parameters& params) = 0;
    virtual void run_kernels(partition_work& work) = 0;
    // Whether |work| may run its kernels without the CUDA lock, beside whatever holds it, through
    // run_kernels_beside_lock: gpud asks it for WinningPoSt's priority class alone, whose proof is late by seconds
    // (a lost block reward) while the lock's holder may run a 32 GiB partition's kernels for a second. True only
    // where the backend keeps such work apart from the holder's: nothing of the holder's state touched, no
    // device memory taken from under its plan. The CPU backend's works share nothing: always true there.
    virtual bool can_run_beside_lock(const partition_work& /*work*/) const { return false; }
    // run_kernels without the CUDA lock, for a work can_run_beside_lock accepted (the CUDA backend throws
    // std::logic_error for another). By default run_kernels itself, as for works that share nothing.
    virtual void run_kernels_beside_lock(partition_work& work) { run_kernels(work); }
    virtual groth16::proof finish(partition_work& work, groth16::rng_fn& rng) = 0;
    // Host memory the witnesses will live in for the backend's lifetime (gpud: the ring's mapping), told once
    // before the first prepare; a backend that copies to a device may page-lock it here, once, instead of per
    // partition. Never throws: a region it cannot use is logged and ignored.
    virtual void register_host_region(std::span<const std::byte> /*region*/) {}
    // Asked after a step threw a device_error: empty while the device still works, else why not. A lost
    // device (a CUDA context spoiled by a sticky error: illegal address, launch failure, ...) fails every later
    // partition, so gpud then exits for systemd to start it afresh. Called from a worker without the CUDA lock,
    // possibly while another worker runs kernels; never throws. The CPU backend has no device to lose.
    virtual std::string device_lost() { return {}; }
    // Cumulative counters for gpud's status (`cuzk status`: gpud.backend_counters), name and value; none by
    // default. Called from the status thread while workers run: an implementation reads atomics or locks.
    virtual std::vector<std::pair<std::string, std::uint64_t>> counters() const { return {}; }
    // |params| is about to be freed and no partition uses it any more (gpud: its last user is gone after an
    // evict): whatever the backend keeps for it (a device copy of its points) goes now. Any thread; never throws.
    virtual void forget(const groth16::parameters& /*params*/) {}
    // |params| (and the R1CS matrices of its circuit, where known) were just loaded by a PreloadSRS: a backend with
    // a device makes them resident there now, so that no partition waits for the upload. Called from a preload
    // thread while workers may run; throws what the upload throws (the preload's reply names it). None by default.
    virtual void preload(const groth16::parameters& /*params*/, const r1cs::r1cs_matrices* /*matrices*/) {}
    // After preload, for a set whose partitions run beside the lock (gpud: WinningPoSt's, with [gpud]
    // winning_post_beside_lock): the backend may run that path once on a made-up witness of the circuit, its result
    // dropped, so that its first real partition finds what the path makes on first use (the CUDA backend's side
    // lane: its NTT context and witness buffers, the kernels' first launches). Never throws: a warm-up that fails
    // is logged. None by default.
    virtual void warm_side_lane(const groth16::parameters& /*params*/, const r1cs::r1cs_matrices& /*matrices*/) {}
    // The device proved on; nullopt for the CPU backend. Called from the status thread; never throws.
    virtual std::optional<device_info> device() const { return std::nullopt; }
    // Page-locked host memory now and the cap; none for the CPU backend. Called from the status thread.
    virtual pinned_memory pinned() const { return {}; }
};

// Where the CUDA backend keeps the parameters' points ([gpud] params_memory): "device" resident in GPU memory,
// "host" in page-locked host memory streamed to the GPU per MSM, "auto" the device where they fit with the NTTs
// and the least MSM scratch beside them, else the host; "split" as "auto", but a big set alone on the GPU that
// does not fit keeps as many of its points on the device as fit beside the streaming (cuda_backend.hpp).
enum class params_placement { automatic, device, host, split };
// "auto", "device", "host", "split" -> the placement; anything else throws input_error naming the key and the
// choices.
params_placement parse_params_placement(std::string_view text);
const char* to_string(params_placement p);

// The CUDA backend's settings, most of them [gpud] keys (cuda_backend.hpp says what each does); tests name the
// ones they change, e.g. cuda_backend(0, {.pin_min_bytes = 0, .placement = params_placement::host}). The CPU
// backend has none.
struct cuda_settings {
    std::uint64_t pinned_cache_bytes = std::uint64_t(16) << 30;  // [gpud] pinned_cache_mib: free A/B buffers kept
    std::uint64_t pin_min_bytes = std::uint64_t(32) << 20;       // smaller host ranges are copied pageable
    bool b_g2_on_gpu = true;                                     // else on the CPU, beside the GPU work
    params_placement placement = params_placement::automatic;   // [gpud] params_memory
    bool release_host_points = false;  // [gpud] release_host_points (gpud's default is true; cuda_backend says why)
    bool sparse_streaming = false;     // [gpud] sparse_streaming (gpud's default is true; tests choose it here)
    unsigned side_lane_max_log = 22;   // the side lane takes compact partitions of domain <= 2^this
};

// "cpu" (always); "cuda" (builds with CUDA; throws cuda::cuda_error when GPU |gpu| is not usable); "auto": the
// CUDA backend when this build has it and cuda::device_count() finds GPU |gpu|, else the CPU backend, with an
// info line saying which and why. Other names throw input_error naming what this build offers.
std::unique_ptr<proving_backend> make_backend(std::string_view name, int gpu, const cuda_settings& cuda = {});

}  // namespace cuzk::gpud
