// The configuration shared by the three daemons and the `cuzk up` launcher: one TOML file (every stage reads
// the same file and takes its own section plus the shared ones), then command-line flags on top. Every key
// has a working default, so the stages start with no file at all (the development and demo setup).
// daemon/config_schema.cpp lists every key with its range and meaning; docs/configuration.md, the reference,
// is generated from it (`cuzk config-reference`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cuzk::daemon {

struct runtime_section {
    std::filesystem::path dir;        // sockets; empty: ipc::default_runtime_dir()
    std::filesystem::path spool_dir;  // jobs, journal, results, test parameters; empty: <dir>/spool
    std::string log_level = "info";   // trace, debug, info, warn, error
};

struct ring_section {
    std::string name = "cuzk-ring";   // shared-memory segment name (one ring per pipeline)
    std::uint32_t slots = 4;
    std::uint64_t slot_bytes = 256ull << 20;  // a 32 GiB PoRep partition's compact witness: ~95 MB
    std::filesystem::path shm_dir;    // empty: POSIX shared memory (/dev/shm)
    std::string group;                // non-empty: segment mode 0660 with this group
};

struct assemblerd_section {
    std::uint32_t max_pending_jobs = 64;     // queued + running; more submissions get queue_full
    bool verify = true;                      // verify every assembled proof before answering
    double partition_timeout_s = 600;        // a partition with no news for this long is dispatched again
    double result_ttl_s = 24 * 3600;         // results never fetched are dropped after this
    std::uint32_t dispatch_window = 0;       // partitions handed to synthd and not synthesized yet; 0: threads + lookahead
    std::uint32_t max_partition_attempts = 3;  // retryable failures (a GPU's) of one partition before its job fails
    std::uint64_t journal_compact_kib = 64 * 1024;  // journal growth that makes a running assemblerd compact it
    std::optional<int> numa_node;
    std::string cpus;
};

struct synthd_section {
    std::uint32_t threads = 2;
    std::optional<int> numa_node;
    std::string cpus;                        // CPU list, e.g. "0-7,16"
    std::uint64_t memory_budget_mib = 4096;  // synthesized witnesses held in memory while the ring is full
    std::uint32_t lookahead = 2;             // partitions queued beyond the busy threads (across jobs)
};

struct gpud_section {
    std::string backend = "auto";            // "auto": CUDA when built with it and GPU |gpu| is present, else CPU;
                                             // "cpu" (reference and fallback); "cuda" (fails without the GPU)
    std::uint32_t workers = 2;
    int gpu = 0;
    std::optional<int> numa_node;
    std::string cpus;
    std::filesystem::path params_dir;        // .params/.vk files; empty: <spool_dir>/params
    std::string lock_name;                   // CUDA lock segment; empty: ipc::cuda_lock::segment_name(gpu);
                                             // "{gpu}" in it stands for the GPU index (resolve_defaults)
    bool lock_per_gpu = false;               // set by resolve_defaults where lock_name was empty or held {gpu}
    std::uint64_t pinned_cache_mib = 16384;  // CUDA backend: free page-locked A/B scalar buffers kept for reuse
    std::uint64_t pin_min_mib = 32;          // CUDA backend: smaller host ranges are copied without pinning
    bool b_g2_on_gpu = true;                 // CUDA backend: B_G2's MSM on the GPU, else on the CPU beside it
    std::string params_memory = "auto";      // CUDA backend: the parameters' points on the "device", in "host"
                                             // memory (streamed per MSM), or "auto" (the device where they fit)
    bool release_host_points = true;         // CUDA backend: a set's host point vectors given back to the kernel
                                             // once on the device (or packed for streaming)
    bool sparse_streaming = true;            // CUDA backend: streamed segments send only the points whose scalar
                                             // is not 0 (a gather from the mapped host copy), where few enough
                                             // and the MSM runs alone on the GPU
    bool winning_post_beside_lock = true;    // a WinningPoSt's kernels beside the CUDA lock's holder where the
                                             // backend keeps them apart (the CUDA backend's side lane)
    std::string preload;                     // comma-separated circuit ids or specs loaded as gpud starts
    bool synthetic_params = false;           // TEST FACILITY: a missing PoRep or PoSt .params file is replaced by random
                                             // points of its sizes, in memory; their proofs are not valid
};

// The gRPC API (cuzk.v1.ProvingEngine), served by assemblerd: what Curio connects to.
struct api_section {
    std::string listen;          // "unix://<path>" or "host:port"; empty: unix://<runtime dir>/cuzk.sock
    std::string allow_from;      // comma-separated CIDRs of TCP clients; required for a non-loopback listen
    std::filesystem::path tls_cert, tls_key;  // both or neither: TLS instead of plaintext
    std::filesystem::path tls_client_ca;      // with TLS: clients must present a certificate signed by it
};

// Prometheus metrics and the status JSON over HTTP (assemblerd).
struct metrics_section {
    std::string listen;  // "host:port"; empty (the default: no TCP port is opened unless asked for): off
};

struct config {
    runtime_section runtime;
    api_section api;
    metrics_section metrics;
    ring_section ring;
    assemblerd_section assemblerd;
    synthd_section synthd;
    gpud_section gpud;

    // Fills the empty paths and names with their defaults (runtime dir, spool dir, params dir, lock name).
    void resolve_defaults();
    std::filesystem::path socket_path(std::string_view socket_name) const;
    std::string endpoint(std::string_view socket_name) const;  // "ipc://<runtime.dir>/<name>.sock"
    std::string api_listen() const;  // [api] listen, or its default (after resolve_defaults)
    std::uint32_t effective_dispatch_window() const;
};

// Reads |path| (TOML). Throws input_error naming the file, line and column, or the key, for syntax errors,
// unknown sections or keys (a typo must not silently fall back to a default), wrong types and bad values.
config load_config(const std::filesystem::path& path);
// The defaults, or |path| when given.
config load_config_or_defaults(const std::optional<std::filesystem::path>& path);

// Checks values that no single key can (e.g. slot sizes); throws input_error.
void validate(const config& c);

// [gpud] preload as circuit specs, each once, in the order gpud loads them (and synthd sizes their circuits):
// WinningPoSt's first (seconds to load, and a block reward waits on them), then the others as listed. Throws
// input_error naming the key and an unknown id.
std::vector<std::string> gpud_preload_specs(const config& c);

}  // namespace cuzk::daemon
