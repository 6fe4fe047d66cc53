// The ZeroMQ control protocol between client, assemblerd, synthd and gpud: small typed frames only (ids,
// slot indices, sizes, status, a 192-byte partition proof). Bulk data never travels here: witnesses live
// in the shared-memory ring, C1 inputs and results in the spool directory.
//
// Frame (one ZeroMQ message part), all integers little-endian:
//   offset 0  u8[2]  magic "CZ" (0x43 0x5A)
//          2  u8     protocol version (protocol_version)
//          3  u8     message type (message_type)
//          4  u32    payload length: the frame size minus 8
//          8  payload: the struct's fields in declaration order; integers fixed width; bool as u8 0/1; enums
//             as their underlying type; strings and byte strings as u32 length + bytes; lists as u32 count
//             + items. Limits: identifiers 256 B, paths 4 KiB, error texts 64 KiB, status JSON 16 MiB,
//             final proofs 64 KiB, partition lists 65536 entries.
// decode() rejects another magic or version, an unknown type, a length mismatch, truncation, trailing
// bytes and out-of-range enum values with a protocol_error that names the field and byte offset.
// Any change of a payload layout bumps protocol_version (the stages are deployed together).
#pragma once

#include "ipc/wire.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cuzk::ipc {

// 2: STAGE_HELLO; 3: the gRPC front door's fields, PARAMS_*; 4: SUBMIT carries its input; 5: ERROR_REPLY's
// permission_denied.
inline constexpr std::uint8_t protocol_version = 5;
inline constexpr std::size_t frame_header_bytes = 8;
inline constexpr std::size_t partition_proof_bytes = 192;  // one Groth16 proof: A, C in G1 and B in G2, compressed
// Job priorities (assemblerd's scale: NORMAL 0, a step of 100 per API level): WindowPoSt's (HIGH) and up are
// handed on at once at every stage (outside assemblerd's dispatch window, to synthd's PoSt thread, past its memory
// budget); WinningPoSt's (CRITICAL) also gets gpud's worker kept for it.
inline constexpr std::int32_t post_priority_floor = 100;
inline constexpr std::int32_t winning_post_priority = 200;

enum class message_type : std::uint8_t {
    job = 1,               // assemblerd -> synthd
    slot_ready = 2,        // synthd -> assemblerd, for progress (gpud is woken by the ring's READY futex instead)
    partition_proof = 3,   // gpud -> assemblerd
    partition_failed = 4,  // synthd / gpud -> assemblerd
    cancel = 5,            // client -> assemblerd -> synthd, gpud
    status_request = 6,    // client -> any daemon
    status_reply = 7,
    submit = 8,            // client -> assemblerd
    submit_reply = 9,
    await = 10,            // client -> assemblerd
    await_reply = 11,
    error_reply = 12,      // any daemon -> the requester
    stage_hello = 13,      // synthd / gpud -> assemblerd, at start: what a restarted stage lost is re-dispatched
    params_request = 14,   // client -> gpud: load or free a circuit's parameters
    params_reply = 15,
};

enum class proof_kind : std::uint8_t {
    porep_c2 = 1,
    winning_post = 2,
    window_post = 3,
    snap_update = 4,
    test_circuit = 5,  // the built-in circuit split into partitions (pipeline tests and demo)
};

enum class job_state : std::uint8_t { queued = 1, running = 2, done = 3, failed = 4, cancelled = 5, unknown = 6 };

enum class c1_source : std::uint8_t {
    path = 1,          // refused from protocol 4 on: a client never names a file outside the spool for the service
    spool = 2,         // a file name inside the spool's incoming directory, where the gRPC front door put the bytes
    inline_bytes = 3,  // the job input itself, in the SUBMIT (`cuzk submit`: read with the client's own permissions)
};
inline constexpr std::size_t submit_input_limit = std::size_t(512) << 20;  // a 64 GiB C1 is ~110 MB

enum class error_code : std::uint16_t {
    bad_request = 1,          // malformed frame or invalid field: the requester's to fix
    unsupported_version = 2,  // the peer speaks another protocol version
    unknown_job = 3,
    queue_full = 4,           // max pending jobs reached: retry later
    cancelled = 5,
    internal = 6,
    unavailable = 7,          // a stage the request needs is not running
    permission_denied = 8,    // another user's job (assemblerd/job_access.hpp)
};

struct job_msg {
    static constexpr message_type type = message_type::job;
    std::uint64_t job_id = 0;
    proof_kind kind = proof_kind::porep_c2;
    std::int32_t priority = 0;  // higher first
    std::uint32_t partition_count = 0;
    std::vector<std::uint32_t> partitions;  // the ones to synthesize; empty = all partition_count
    std::string spool_path;                 // the job's C1 input
    friend bool operator==(const job_msg&, const job_msg&) = default;
};

// A partition's witness is committed READY in the ring. assemblerd marks the partition synthesized (its
// re-dispatch timeout starts again); gpud never needs it, so losing one cannot strand a slot.
struct slot_ready_msg {
    static constexpr message_type type = message_type::slot_ready;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t num_inputs = 0;
    std::uint64_t num_aux = 0;
    std::uint64_t num_constraints = 0;
    std::uint64_t synth_us = 0;  // synthesis time of the partition
    friend bool operator==(const slot_ready_msg&, const slot_ready_msg&) = default;
};

struct partition_timings {
    std::uint64_t queue_us = 0;      // READY -> picked up by a worker
    std::uint64_t prep_us = 0;       // CPU preparation before the lock
    std::uint64_t lock_wait_us = 0;
    std::uint64_t gpu_us = 0;        // under the CUDA lock
    std::uint64_t tail_us = 0;       // CPU tail after the lock
    std::uint64_t params_load_us = 0;  // loading the circuit's parameters for this partition (0: resident already)
    std::uint32_t gpu = 0;
    std::uint32_t worker = 0;
    friend bool operator==(const partition_timings&, const partition_timings&) = default;
};

struct partition_proof_msg {
    static constexpr message_type type = message_type::partition_proof;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    std::array<std::byte, partition_proof_bytes> proof{};
    partition_timings timings;
    friend bool operator==(const partition_proof_msg&, const partition_proof_msg&) = default;
};

struct partition_failed_msg {
    static constexpr message_type type = message_type::partition_failed;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    bool retryable = false;  // true: a stage problem (retry elsewhere); false: the input is bad (fail the job)
    std::string error;
    friend bool operator==(const partition_failed_msg&, const partition_failed_msg&) = default;
};

struct cancel_msg {
    static constexpr message_type type = message_type::cancel;
    std::uint64_t job_id = 0;
    friend bool operator==(const cancel_msg&, const cancel_msg&) = default;
};

struct status_request_msg {
    static constexpr message_type type = message_type::status_request;
    friend bool operator==(const status_request_msg&, const status_request_msg&) = default;
};

struct status_reply_msg {
    static constexpr message_type type = message_type::status_reply;
    std::string json;
    friend bool operator==(const status_reply_msg&, const status_reply_msg&) = default;
};

struct submit_msg {
    static constexpr message_type type = message_type::submit;
    // Idempotency: a SUBMIT with the id and digest of a known job returns that job; the same id with another
    // digest (another request) is a new job. The digest is the client's (hex SHA-256 of what it submits).
    std::string client_request_id;
    std::string request_digest;
    proof_kind kind = proof_kind::porep_c2;
    std::int32_t priority = 0;
    c1_source source = c1_source::inline_bytes;
    std::string c1_path;            // spool: the file name in the incoming directory
    std::vector<std::byte> input;   // inline_bytes: the input, at most submit_input_limit bytes
    friend bool operator==(const submit_msg&, const submit_msg&) = default;
};

struct submit_reply_msg {
    static constexpr message_type type = message_type::submit_reply;
    std::string client_request_id;
    std::uint64_t job_id = 0;
    bool duplicate = false;  // the request id was known: this is the existing job
    std::uint32_t queue_position = 0;  // live jobs ahead of it (higher priority, or same priority and earlier)
    friend bool operator==(const submit_reply_msg&, const submit_reply_msg&) = default;
};

struct await_msg {
    static constexpr message_type type = message_type::await;
    std::uint64_t job_id = 0;
    std::uint32_t timeout_ms = 0;  // 0: answer at once with the current state
    // true: the reply of a done job carries the proof, and counts as its delivery (the result is then kept only
    // a grace period). false: state and progress only; the result keeps its full time to live.
    bool fetch = false;
    friend bool operator==(const await_msg&, const await_msg&) = default;
};

// What the pipeline measured of a job, in milliseconds (sums over its partitions where it is per partition).
// In memory only: after an assemblerd restart a job's sums count the partitions proved since.
struct job_timings {
    std::uint64_t queue_wait_ms = 0;   // submission -> first partition dispatched to synthesis
    std::uint64_t params_load_ms = 0;  // parameters loaded for its partitions
    std::uint64_t synthesis_ms = 0;
    std::uint64_t gpu_ms = 0;          // under the CUDA lock
    std::uint64_t total_ms = 0;        // submission -> end (so far, while it runs)
    friend bool operator==(const job_timings&, const job_timings&) = default;
};

struct await_reply_msg {
    static constexpr message_type type = message_type::await_reply;
    std::uint64_t job_id = 0;
    job_state state = job_state::unknown;
    std::uint32_t partitions_done = 0;
    std::uint32_t partitions_total = 0;
    std::vector<std::byte> proof;  // the final proof when done (1920 bytes for a 32 GiB PoRep)
    std::string result_path;       // where the proof is kept in the spool directory
    std::string error;             // why, when failed
    job_timings timings;
    bool was_running = false;      // replies to CANCEL: work of the job was in flight when it was cancelled
    friend bool operator==(const await_reply_msg&, const await_reply_msg&) = default;
};

struct error_reply_msg {
    static constexpr message_type type = message_type::error_reply;
    error_code code = error_code::internal;
    std::uint8_t request_type = 0;  // the message_type of the request, 0 when it could not be decoded
    std::string text;               // what was wrong and what to do
    friend bool operator==(const error_reply_msg&, const error_reply_msg&) = default;
};

enum class stage : std::uint8_t { synthd = 1, gpud = 2 };

// A stage announces each start of its process. A new pid (or start time) of synthd tells the assembler that
// every partition it had dispatched but not seen come out of synthesis is gone with the old process.
struct stage_hello_msg {
    static constexpr message_type type = message_type::stage_hello;
    stage from = stage::synthd;
    std::int32_t pid = 0;
    std::uint64_t started_ms = 0;  // CLOCK_REALTIME ms of the process start
    friend bool operator==(const stage_hello_msg&, const stage_hello_msg&) = default;
};

enum class params_action : std::uint8_t { preload = 1, evict = 2 };

// Loads (preload) or frees (evict) the parameters of a circuit shape in a gpud, e.g. "porep:StackedDrg32GiBV1_1".
// A preload is answered when the parameters are loaded; an evict frees them once the partitions proving with
// them are done.
struct params_request_msg {
    static constexpr message_type type = message_type::params_request;
    params_action action = params_action::preload;
    std::string circuit;
    friend bool operator==(const params_request_msg&, const params_request_msg&) = default;
};

struct params_reply_msg {
    static constexpr message_type type = message_type::params_reply;
    bool was_loaded = false;        // loaded before the request
    std::uint64_t load_ms = 0;      // preload: time spent loading now (0 when it was loaded)
    std::uint64_t freed_bytes = 0;  // evict: the size of what was freed
    friend bool operator==(const params_reply_msg&, const params_reply_msg&) = default;
};

using message = std::variant<job_msg, slot_ready_msg, partition_proof_msg, partition_failed_msg, cancel_msg,
                             status_request_msg, status_reply_msg, submit_msg, submit_reply_msg, await_msg,
                             await_reply_msg, error_reply_msg, stage_hello_msg, params_request_msg,
                             params_reply_msg>;

std::string_view to_string(message_type type) noexcept;
std::string_view to_string(proof_kind kind) noexcept;
std::string_view to_string(job_state state) noexcept;
std::string_view to_string(error_code code) noexcept;
std::string_view to_string(stage s) noexcept;
std::string_view to_string(params_action a) noexcept;

message_type type_of(const message& m) noexcept;

std::vector<std::byte> encode(const message& m);
// Throws protocol_error; never reads outside |frame|.
message decode(std::span<const std::byte> frame);

// The type byte of a frame when it has a valid header (for an error reply to a frame that fails to decode).
std::uint8_t peek_type(std::span<const std::byte> frame) noexcept;

}  // namespace cuzk::ipc
