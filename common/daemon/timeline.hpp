// TIMELINE lines: one event of a job's life per line, written by every daemon on the one clock
// (CLOCK_REALTIME, ms since the epoch), so the logs of all stages merge into one waterfall
// (docs/DESIGN.md section 6; `cuzk timeline` reads them, common/daemon/timeline_log.hpp).
//
//   TIMELINE,<ms>,<EVENT>,<job>,k=v,k=v
//
// The separators ',' and '=' and line breaks cannot appear inside a job id, key or value: emit()
// replaces them with '_' so that one line always parses as one event.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace cuzk::timeline {

struct field {
    std::string_view key;
    std::string value;
};

// Event names, in the order a partition meets them. GPU_START and GPU_END bracket exactly the work
// done while holding the CUDA lock; LOCK_WAIT carries the time spent waiting for it (ms=).
namespace event {
inline constexpr std::string_view job_submit = "JOB_SUBMIT";
inline constexpr std::string_view synth_start = "SYNTH_START";
inline constexpr std::string_view synth_end = "SYNTH_END";
inline constexpr std::string_view slot_ready = "SLOT_READY";
inline constexpr std::string_view gpu_pickup = "GPU_PICKUP";
inline constexpr std::string_view lock_wait = "LOCK_WAIT";
inline constexpr std::string_view gpu_start = "GPU_START";
inline constexpr std::string_view gpu_end = "GPU_END";
inline constexpr std::string_view tail_end = "TAIL_END";
inline constexpr std::string_view partition_done = "PARTITION_DONE";
inline constexpr std::string_view job_done = "JOB_DONE";
}  // namespace event

// CLOCK_REALTIME in milliseconds since the epoch: the one clock every process shares.
std::int64_t now_ms();

// Writes one line "TIMELINE,<now_ms()>,<EVENT>,<job>,k=v,k=v\n" to stderr in a single write(2), so
// lines written by several threads never interleave (writes to a pipe of at most PIPE_BUF bytes are
// atomic, and the journal reads stderr through a pipe or socket).
void emit(std::string_view event, std::string_view job, std::initializer_list<field> fields = {});

// The same line stamped |ms| (a now_ms() read earlier). For an event that another process can observe before
// this one gets to write its line: read the time before the step that publishes the event, write the line after.
// synthd's SLOT_READY is one: its commit wakes gpud, whose GPU_PICKUP could otherwise be stamped first, and
// `cuzk timeline` showed a negative ring wait.
void emit_at(std::int64_t ms, std::string_view event, std::string_view job, std::initializer_list<field> fields = {});

// The line emit() writes, without the trailing newline; |ms| is the timestamp to put in it.
std::string format_line(std::int64_t ms, std::string_view event, std::string_view job,
                        std::initializer_list<field> fields);

// Redirects emit() to |sink| (receives the line with its newline); an empty function restores stderr.
// For tests that check what a component emits.
using line_sink = std::function<void(std::string_view line)>;
void set_sink(line_sink sink);

}  // namespace cuzk::timeline
