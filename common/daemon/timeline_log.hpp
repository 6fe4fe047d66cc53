// Reading and analysing TIMELINE lines (timeline.hpp) from the logs of all daemons: the per-partition
// waterfall, the gaps between GPU_END and the next GPU_START on one GPU, and GPU efficiency, with the
// warm-up separated from the steady state. `cuzk timeline` prints what analyze() returns.
//
// Definitions (the report and its JSON use these words):
// - A line is a TIMELINE line when "TIMELINE," occurs in it at the start or after a character that is
//   not a letter, digit or '_'; whatever precedes it (spdlog, journald prefixes) is ignored.
// - GPU: the gpu= field of GPU_PICKUP/LOCK_WAIT/GPU_START/GPU_END; "0" when absent (one GPU).
// - Busy time: GPU_START..GPU_END of one partition (the work under the CUDA lock). Span: first
//   GPU_START to last GPU_END. Efficiency = busy / span, per GPU; for several GPUs, the sum of busy
//   over the sum of spans.
// - Gap: from a GPU_END to the next GPU_START on the same GPU. Buckets: < 50 ms, 50-500 ms (both
//   ends included), > 500 ms. A gap is a synthesis stall when, at the GPU_END opening it, no other
//   partition was ready for that GPU: none READY in the ring and unclaimed (SLOT_READY seen, GPU_PICKUP
//   not yet), and none claimed by a worker of that GPU and not yet under the lock (GPU_PICKUP seen,
//   GPU_START not yet). Otherwise work was there and the gap is per-partition overhead (hand-off, prep,
//   lock hand-over).
// - Warm-up: the first N jobs to reach the GPU (ordered by their first GPU_START; N = 1 by default).
//   It ends at the last GPU_END of those jobs (the cutoff); on each GPU the warm-up window is
//   [first GPU_START, cutoff] and the steady window [cutoff, last GPU_END]. Busy time is clipped to
//   each window; a gap belongs to the window its opening GPU_END falls in. Jobs rather than a number
//   of partitions, because the pipeline fills per job: the first job's synthesis cannot overlap any
//   earlier GPU work, every later job's can.
// - A partition proved more than once (a stage restarted) shows the latest occurrence of each event,
//   and its attempts count; each completed GPU_START/GPU_END pair counts as GPU work.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuzk::timeline {

struct record {
    std::int64_t ms = 0;
    std::string event;
    std::string job;
    std::vector<std::pair<std::string, std::string>> fields;
    std::string source;     // file name as given
    std::size_t line = 0;   // 1-based
    std::size_t order = 0;  // position in the merged input, to keep ties stable

    const std::string* find(std::string_view key) const;
};

struct problem {
    std::string source;
    std::size_t line = 0;
    std::string message;
};

struct log_set {
    std::vector<record> records;
    std::vector<problem> problems;  // malformed TIMELINE lines and events that contradict each other
    std::vector<std::string> sources;
    std::size_t lines = 0;
};

// One line of a log. No TIMELINE: nullopt. A malformed TIMELINE line: |error| says why and the
// result holds no record.
struct parsed_line {
    std::optional<record> rec;
    std::string error;
    bool is_timeline = false;
};
parsed_line parse_line(std::string_view text);

void read_log(std::istream& in, const std::string& source, log_set& out);
// "-" reads standard input. A file that cannot be opened throws cuzk::input_error naming it.
void read_log_file(const std::string& path, log_set& out);

struct analysis_options {
    int warmup_jobs = 1;
};

struct partition_row {
    std::string job;
    std::int64_t partition = 0;
    std::string gpu, worker, slot;
    int attempts = 0;
    std::optional<std::int64_t> synth_start, synth_end, slot_ready, pickup, gpu_start, gpu_end, tail_end, done;
    std::optional<std::int64_t> lock_wait_ms;  // the ms= of LOCK_WAIT, else GPU_START - LOCK_WAIT time
    bool warmup = false;
};

struct job_row {
    std::string job;
    std::optional<std::int64_t> submit, done, first_gpu_start;
    std::size_t partitions = 0;
    bool warmup = false;
};

struct gpu_interval {
    std::string gpu, job;
    std::int64_t partition = 0;
    std::int64_t start = 0, end = 0;
    // Kernels run without the CUDA lock, beside its holder (GPU_START's beside=lock: a WinningPoSt's, gpud's side
    // lane): busy time like any other, but its overlap with the holder's interval is expected, not a problem.
    bool beside_lock = false;
};

struct gap {
    std::string gpu;
    std::int64_t from = 0, to = 0;  // the GPU_END and the next GPU_START
    std::string after_job;
    std::int64_t after_partition = 0;
    bool stall = false;
    bool warmup = false;
    std::int64_t ms() const { return to - from; }
};

struct phase_stats {
    std::int64_t busy_ms = 0, span_ms = 0;
    std::size_t gaps_under_50 = 0, gaps_50_to_500 = 0, gaps_over_500 = 0;
    std::size_t stalls = 0, overheads = 0;
    std::int64_t stall_ms = 0, overhead_ms = 0;
    std::optional<double> efficiency() const;  // nullopt for an empty span
    void add(const phase_stats& other);
};

struct gpu_stats {
    std::string gpu;
    std::size_t intervals = 0;
    phase_stats all, warmup, steady;
};

struct analysis {
    std::optional<std::int64_t> origin_ms;  // the first event
    std::optional<std::int64_t> last_ms;
    std::vector<partition_row> partitions;
    std::vector<job_row> jobs;
    std::vector<gpu_interval> intervals;
    std::vector<gap> gaps;
    std::vector<gpu_stats> gpus;
    phase_stats all, warmup, steady;
    int warmup_jobs_requested = 1;
    std::vector<std::string> warmup_jobs;
    std::optional<std::int64_t> warmup_end_ms;
    std::vector<std::string> unknown_events;  // event names this version does not analyse
};

// Merges |logs| on the one clock and computes everything above. Contradictions (GPU_END without
// GPU_START, busy intervals overlapping on one GPU) are appended to logs.problems.
analysis analyze(log_set& logs, const analysis_options& options = {});

nlohmann::json to_json(const analysis& a, const log_set& logs);
void print_report(std::ostream& out, const analysis& a, const log_set& logs);

}  // namespace cuzk::timeline
