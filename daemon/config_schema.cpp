#include "daemon/config_schema.hpp"

#include <fmt/format.h>

#include <array>
#include <type_traits>

namespace cuzk::daemon {

namespace {

const std::int64_t max_u32 = 0xffffffffLL;

// The field |member| of a config, as a key's setter (a captureless lambda decays to config_field<T>).
#define CUZK_CONFIG_FIELD(member) +[](config& c) -> auto& { return c.member; }

const std::array<config_section, 7> sections{{
    {"runtime", "Where the daemons meet and keep state, and how much they log. Shared by every stage."},
    {"api",
     "The gRPC API Curio speaks (`cuzk.v1.ProvingEngine`), served by assemblerd. Plaintext HTTP/2 on a Unix socket "
     "by default, as Curio's client connects; TCP and TLS when configured."},
    {"metrics", "Prometheus metrics (`/metrics`) and the status JSON (`/status`) over HTTP, served by assemblerd."},
    {"ring",
     "The shared-memory ring of partition witnesses between synthd (the writer) and gpud (the prover). Every "
     "stage of one pipeline must name the same ring."},
    {"assemblerd", "The job registry, dispatcher and proof assembler (cuzk-assemblerd)."},
    {"synthd", "The synthesis daemon (cuzk-synthd): witnesses of partitions written into ring slots."},
    {"gpud",
     "The prover daemon (cuzk-gpud), one per GPU. The keys marked \"CUDA backend\" have no effect on the CPU "
     "backend."},
}};

const std::array<config_key, 44> keys{{
    // [runtime]
    {"runtime", "dir", path_key{CUZK_CONFIG_FIELD(runtime.dir)},
     "Sockets (`ipc://<dir>/<stage>.sock`), pid and lock files. Empty: `$CUZK_RUNTIME_DIR`, else "
     "`$XDG_RUNTIME_DIR/cuzk`, else `/run/cuzk` where it (or `/run`) is writable (systemd's "
     "`RuntimeDirectory=cuzk`), else `/tmp/cuzk-<uid>`. `--runtime-dir` overrides it."},
    {"runtime", "spool_dir", path_key{CUZK_CONFIG_FIELD(runtime.spool_dir)},
     "Durable job state: the journal, job inputs, results, test parameters. Empty: `<dir>/spool`. Under systemd "
     "`/var/lib/cuzk/spool` (the units' `StateDirectory=cuzk`)."},
    {"runtime", "log_level", text_key{CUZK_CONFIG_FIELD(runtime.log_level)},
     "`trace`, `debug`, `info`, `warn` or `error` (`critical` and `off` are accepted too). `--log-level` "
     "overrides it."},
    // [api]
    {"api", "listen", text_key{CUZK_CONFIG_FIELD(api.listen)},
     "`\"unix://<path>\"` or `\"host:port\"` (an IP address, or `localhost`). Empty: `unix://<runtime dir>/cuzk.sock` "
     "(mode 0660). A TCP address other than loopback is refused unless `allow_from` is set. Curio's `[Cuzk] "
     "Address` names the same place."},
    {"api", "allow_from", text_key{CUZK_CONFIG_FIELD(api.allow_from)},
     "Comma-separated client networks (CIDR, e.g. `\"10.0.0.0/8, 192.168.1.7/32\"`) allowed to call over TCP; "
     "calls from other addresses are refused (PERMISSION_DENIED) and logged. Loopback clients are always allowed."},
    {"api", "tls_cert", path_key{CUZK_CONFIG_FIELD(api.tls_cert)},
     "PEM certificate chain: with `tls_key`, the API speaks TLS instead of plaintext (Curio's own client is "
     "plaintext: leave both empty for it)."},
    {"api", "tls_key", path_key{CUZK_CONFIG_FIELD(api.tls_key)}, "PEM private key of `tls_cert`."},
    {"api", "tls_client_ca", path_key{CUZK_CONFIG_FIELD(api.tls_client_ca)},
     "With TLS: PEM CA certificates; clients must present a certificate signed by one of them."},
    // [metrics]
    {"metrics", "listen", text_key{CUZK_CONFIG_FIELD(metrics.listen)},
     "`\"host:port\"` of the HTTP endpoint (`/metrics`, `/status`); empty (the default, so that the service opens "
     "no TCP port unless asked): off; the example configuration sets `\"127.0.0.1:9821\"`. A port that cannot be "
     "bound is logged as an error and the service runs on without metrics."},
    // [ring]
    {"ring", "name", text_key{CUZK_CONFIG_FIELD(ring.name)},
     "The shared-memory segment's name (one ring per pipeline); must not be empty."},
    {"ring", "slots", integer_key{CUZK_CONFIG_FIELD(ring.slots), 1, 65536},
     "Ring slots: partitions synthesized and waiting for, or being proved by, gpud. With 3 or more, PoRep and "
     "test partitions leave one free for PoSt ones, so that a WinningPoSt never waits for a slot."},
    {"ring", "slot_bytes", integer_key{CUZK_CONFIG_FIELD(ring.slot_bytes), 4096, std::int64_t{1} << 40},
     "Payload bytes per slot: one partition witness, compact (inputs, aux values as bits or in full with their "
     "positions). A 32 GiB PoRep partition needs about 95 MB (91 MiB), a 2 KiB one about 2 MB; the default, 256 "
     "MiB, fits every PoRep size. Reserved up front in `shm_dir`: `slots` x `slot_bytes`."},
    {"ring", "shm_dir", path_key{CUZK_CONFIG_FIELD(ring.shm_dir)},
     "Empty: POSIX shared memory (`/dev/shm`); else a directory on a tmpfs or hugetlbfs mount large enough for "
     "`slots` x `slot_bytes`."},
    {"ring", "group", text_key{CUZK_CONFIG_FIELD(ring.group)},
     "Non-empty: the segment is created with mode 0660 and this group."},
    // [assemblerd]
    {"assemblerd", "max_pending_jobs", integer_key{CUZK_CONFIG_FIELD(assemblerd.max_pending_jobs), 1, 1 << 20},
     "Jobs queued and running; more submissions are refused with `queue_full`."},
    {"assemblerd", "verify", boolean_key{CUZK_CONFIG_FIELD(assemblerd.verify)},
     "Verify every assembled proof before answering (with the `.vk` found as gpud finds the `.params`). Off, no "
     "`.vk` is read: for runs with `[gpud] synthetic_params`, whose proofs are not valid."},
    {"assemblerd", "partition_timeout_s", number_key{CUZK_CONFIG_FIELD(assemblerd.partition_timeout_s), 0.1, 1e7},
     "Seconds: a partition with no news for this long is dispatched again."},
    {"assemblerd", "result_ttl_s", number_key{CUZK_CONFIG_FIELD(assemblerd.result_ttl_s), 1, 1e9},
     "Seconds: results never fetched are removed after this."},
    {"assemblerd", "dispatch_window", integer_key{CUZK_CONFIG_FIELD(assemblerd.dispatch_window), 0, max_u32},
     "Partitions handed to synthd and not synthesized yet; 0: synthd's `threads` + `lookahead`."},
    {"assemblerd", "max_partition_attempts",
     count_key{CUZK_CONFIG_FIELD(assemblerd.max_partition_attempts), 1 << 20,
               "the first attempt counts: 1 fails a job at its partition's first device failure, the default 3 tries "
               "a partition three times"},
     "A partition whose attempts fail retryably (a GPU error) this often fails its job: `partition P failed N "
     "times; last error: ...`. The count is kept in memory and starts again when assemblerd restarts."},
    {"assemblerd", "journal_compact_kib",
     integer_key{CUZK_CONFIG_FIELD(assemblerd.journal_compact_kib), 4, std::int64_t{1} << 30},
     "KiB: the journal (`<spool_dir>/journal`) is rewritten with the records of the jobs kept at every start, and "
     "while running each time it has grown by this much since: 64 MiB by default (a 32 GiB PoRep job adds ~5 "
     "KiB), so a service up for weeks replays its live jobs at the next start, not every record of those weeks."},
    {"assemblerd", "numa_node", optional_integer_key{CUZK_CONFIG_FIELD(assemblerd.numa_node), 0, 4095},
     "Run on this NUMA node's CPUs and allocate from its memory. `--numa-node` overrides it."},
    {"assemblerd", "cpus", text_key{CUZK_CONFIG_FIELD(assemblerd.cpus)},
     "CPU list, e.g. `\"0-7,16\"`; empty: no CPU pinning. `--cpus` overrides it."},
    // [synthd]
    {"synthd", "threads", integer_key{CUZK_CONFIG_FIELD(synthd.threads), 1, 4096},
     "Synthesis threads: partitions synthesized at once. One more thread takes only PoSt partitions (WindowPoSt "
     "and WinningPoSt start at once, whatever PoRep work holds the others), and a PoSt partition's sectors are "
     "synthesized in parallel on this many threads."},
    {"synthd", "numa_node", optional_integer_key{CUZK_CONFIG_FIELD(synthd.numa_node), 0, 4095},
     "Run on this NUMA node's CPUs and allocate from its memory. `--numa-node` overrides it."},
    {"synthd", "cpus", text_key{CUZK_CONFIG_FIELD(synthd.cpus)},
     "CPU list, e.g. `\"0-47,96-143\"`; empty: no CPU pinning. `--cpus` overrides it."},
    {"synthd", "memory_budget_mib", integer_key{CUZK_CONFIG_FIELD(synthd.memory_budget_mib), 1, std::int64_t{1} << 30},
     "MiB of synthesized witnesses held in memory while the ring is full."},
    {"synthd", "lookahead", integer_key{CUZK_CONFIG_FIELD(synthd.lookahead), 0, 4096},
     "Partitions queued beyond the busy threads, across jobs."},
    // [gpud]
    {"gpud", "backend", text_key{CUZK_CONFIG_FIELD(gpud.backend)},
     "`\"auto\"`: CUDA when this build has it and GPU `gpu` is found, else the CPU (gpud logs which and why); "
     "`\"cpu\"`: the reference, always available; `\"cuda\"`: gpud exits with an error when the build has no "
     "CUDA or the GPU is missing."},
    {"gpud", "workers", integer_key{CUZK_CONFIG_FIELD(gpud.workers), 1, 64},
     "Workers per GPU: one prepares on the CPU while another holds the GPU (the CUDA lock). One more worker takes "
     "only WinningPoSt partitions: it prepares one at once and queues for the lock ahead of every PoRep partition, "
     "so a WinningPoSt waits only for the kernels running when it arrives."},
    {"gpud", "gpu", integer_key{CUZK_CONFIG_FIELD(gpud.gpu), 0, 1023},
     "The GPU's index. `--gpu` overrides it (the systemd unit `cuzk-gpud@N` passes `--gpu N`)."},
    {"gpud", "numa_node", optional_integer_key{CUZK_CONFIG_FIELD(gpud.numa_node), 0, 4095},
     "Run on this NUMA node's CPUs and allocate from its memory (the GPU's node). `--numa-node` overrides it."},
    {"gpud", "cpus", text_key{CUZK_CONFIG_FIELD(gpud.cpus)},
     "CPU list, e.g. `\"0-7,16\"`; empty: no CPU pinning. `--cpus` overrides it."},
    {"gpud", "params_dir", path_key{CUZK_CONFIG_FIELD(gpud.params_dir)},
     "`.params`/`.vk` files; empty: `<spool_dir>/params`. PoRep: the published "
     "`v28-stacked-proof-of-replication-...` files of the sector size, by their official names (point it at "
     "Curio's `FIL_PROOFS_PARAMETER_CACHE`), else `porep_<registered proof>.params`/`.vk` from `cuzk setup`; "
     "never generated by gpud. A set is read into host memory (51 GB for a 32 GiB PoRep): one the host's available "
     "memory (MemAvailable) cannot hold with 2 GiB to spare is refused, failing the partition with both sizes, "
     "rather than read until the kernel kills gpud."},
    {"gpud", "lock_name", text_key{CUZK_CONFIG_FIELD(gpud.lock_name)},
     "The CUDA lock's segment. Empty: `cuzk-cuda-lock-gpu<gpu>`, one per GPU. A name here is one lock for "
     "every gpud that reads this file, whatever its GPU, unless it holds `{gpu}`, the GPU's index "
     "(`\"mylock-{gpu}\"` is one per GPU)."},
    {"gpud", "pinned_cache_mib", integer_key{CUZK_CONFIG_FIELD(gpud.pinned_cache_mib), 0, std::int64_t{1} << 30},
     "CUDA backend: MiB of free page-locked A/B scalar buffers kept for the next partitions (a 32 GiB PoRep "
     "partition's A and B scalars take ~5.2 GB); 0 keeps none."},
    {"gpud", "pin_min_mib", integer_key{CUZK_CONFIG_FIELD(gpud.pin_min_mib), 0, std::int64_t{1} << 30},
     "CUDA backend: host ranges smaller than this many MiB are copied from pageable memory (page-locking them "
     "costs more than it saves)."},
    {"gpud", "b_g2_on_gpu", boolean_key{CUZK_CONFIG_FIELD(gpud.b_g2_on_gpu)},
     "CUDA backend: B_G2's MSM on the GPU (48 ms per 32 GiB partition on an H200), or false: on the CPU, "
     "overlapped with the GPU work (the B_G2 points, ~5.9 GiB at 32 GiB, then stay out of GPU memory)."},
    {"gpud", "params_memory", text_key{CUZK_CONFIG_FIELD(gpud.params_memory)},
     "CUDA backend: where the parameters' points live: `\"device\"` (resident in GPU memory, ~44 GiB at 32 GiB), "
     "`\"host\"` (page-locked host memory, streamed to the GPU per MSM in segments: for GPUs without room), "
     "`\"auto\"` (the device where they fit beside the NTTs and the least MSM scratch, else the host), "
     "`\"split\"` (as `\"auto\"`, but a big set alone on the GPU that does not fit keeps as many of its points "
     "on the device as fit beside the streaming and 12 GiB for the MSM scratch, streams the rest, and streams them "
     "all once another big set comes or the kernels run out of device memory: not yet measured to gain, see "
     "docs/gpu-backend.md)."},
    {"gpud", "release_host_points", boolean_key{CUZK_CONFIG_FIELD(gpud.release_host_points)},
     "CUDA backend: once a parameter set's points are on the GPU (or packed into the page-locked copy streamed "
     "from), the pages of their host copy go back to the kernel (~48 GiB for a 32 GiB PoRep set; those of B_G2 "
     "stay where `b_g2_on_gpu = false` reads them), so gpud's memory is not the parameters' twice over; false "
     "keeps them (never read again)."},
    {"gpud", "sparse_streaming", boolean_key{CUZK_CONFIG_FIELD(gpud.sparse_streaming)},
     "CUDA backend, points streamed from host memory (`params_memory` `\"host\"` or `\"split\"`, or `\"auto\"` "
     "on a GPU without room): the host copy is page-locked and mapped into the GPU's address space, and a "
     "segment whose MSM reads at most 3/4 of its points (those with a scalar other than 0: about half of PoRep's "
     "L, A and B) gets those alone, gathered by a kernel, instead of the whole segment over the copy engine "
     "where the MSM runs alone on the GPU (L and A; B_G1 and B_G2, which run beside other kernels, copy whole). "
     "On an H100 with every point streamed, gpud's sequence for a 32 GiB PoRep partition took 1,602 ms against "
     "1,652 without (docs/gpu-backend.md). Sets whose points are on the device are not affected."},
    {"gpud", "winning_post_beside_lock", boolean_key{CUZK_CONFIG_FIELD(gpud.winning_post_beside_lock)},
     "A WinningPoSt's kernels run beside the CUDA lock's holder, without waiting for its partition (up to ~1 s at "
     "32 GiB on an H200), where the backend keeps them apart: the CUDA backend's side lane (sets of domain up to "
     "2^22: WinningPoSt's; high-priority streams, buffers of its own, turned off by its first device failure), "
     "the CPU backend always; false: it queues for the lock ahead of the other classes."},
    {"gpud", "preload", text_key{CUZK_CONFIG_FIELD(gpud.preload)},
     "Comma-separated parameter sets gpud loads as it starts, as a PreloadSRS of each would (which Curio never "
     "sends): Curio's circuit ids (`porep-32g`, `wpost-32g`, `winning-32g`, `snap-32g`, ...) or circuit specs "
     "(`post:StackedDrgWinning32GiBV1`). They load once gpud has reported ready, so it serves from the start, one "
     "after another on a thread of their own: WinningPoSt's first, then the others in the order given (a 32 GiB "
     "set takes its size in host memory while it loads, 51 GB for PoRep and 65 GB for WindowPoSt, given back once "
     "on a GPU with room for it: two at once would need the sum). A partition of a set still loading waits for "
     "that load; one of a set not yet started loads it. With the CUDA backend a loaded set goes to the device at "
     "once (and a WinningPoSt set's side lane is warmed, [gpud] winning_post_beside_lock); synthd sizes their "
     "circuits as it starts (one blank counting synthesis each, which their first partition would wait for: 4.2 s "
     "for the 32 GiB PoRep circuit). Empty: the first partition of each set loads it (for a WinningPoSt "
     "that is its proof's latency; minutes for a 32 GiB PoRep or WindowPoSt set). A set that fails to load is "
     "logged as an error, and the first partition that needs it tries again."},
    {"gpud", "synthetic_params", boolean_key{CUZK_CONFIG_FIELD(gpud.synthetic_params)},
     "TEST FACILITY, for timing real sizes without the published files: a PoRep or PoSt shape whose `.params` file is "
     "missing gets parameters of its exact sizes made of pseudo-random points, built in memory on every core (a "
     "32 GiB set, 51 GB, in well under a minute on 16 cores; never written to disk, no `.vk`). Proofs made with them are NOT valid: set "
     "`[assemblerd] verify = false`. The circuit's matrices are recorded as for real parameters."},
}};

#undef CUZK_CONFIG_FIELD

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
// Spelled out for clang before 17, which does not deduce an aggregate's template arguments (C++20's P1816).
template <class... F>
overloaded(F...) -> overloaded<F...>;

std::string toml_string(const std::string& s) { return fmt::format("\"{}\"", s); }

}  // namespace

std::span<const config_section> config_sections() { return sections; }
std::span<const config_key> config_schema() { return keys; }

std::string expected_value(const key_value& value) {
    return std::visit(overloaded{
                          [](const text_key&) -> std::string { return "a string"; },
                          [](const path_key&) -> std::string { return "a string"; },
                          [](const boolean_key&) -> std::string { return "true or false"; },
                          [](const number_key& k) { return fmt::format("a number in {}..{}", k.lo, k.hi); },
                          [](const integer_key& k) { return fmt::format("an integer in {}..{}", k.lo, k.hi); },
                          [](const count_key& k) { return fmt::format("an integer in 1..{}", k.hi); },
                          [](const optional_integer_key& k) {
                              return fmt::format("an integer in {}..{}", k.lo, k.hi);
                          },
                      },
                      value);
}

std::string default_value(const config_key& key) {
    config defaults;
    return std::visit(overloaded{
                          [&](const text_key& k) { return toml_string(k.field(defaults)); },
                          [&](const path_key& k) { return toml_string(k.field(defaults).string()); },
                          [&](const boolean_key& k) -> std::string { return k.field(defaults) ? "true" : "false"; },
                          [&](const number_key& k) { return fmt::format("{}", k.field(defaults)); },
                          [&](const integer_key& k) {
                              return std::visit([&](auto field) { return fmt::format("{}", field(defaults)); },
                                                k.field);
                          },
                          [&](const count_key& k) { return fmt::format("{}", k.field(defaults)); },
                          [&](const optional_integer_key& k) -> std::string {
                              const auto& v = k.field(defaults);
                              return v ? fmt::format("{}", *v) : "unset";
                          },
                      },
                      key.value);
}

}  // namespace cuzk::daemon
