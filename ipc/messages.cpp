#include "ipc/messages.hpp"

#include <fmt/format.h>

namespace cuzk::ipc {
namespace {

constexpr std::byte magic0{0x43};  // 'C'
constexpr std::byte magic1{0x5A};  // 'Z'

constexpr std::size_t id_limit = 256;
constexpr std::size_t path_limit = 4096;
constexpr std::size_t text_limit = 64 * 1024;
constexpr std::size_t json_limit = 16 * 1024 * 1024;
constexpr std::size_t proof_limit = 64 * 1024;
constexpr std::uint32_t partition_list_limit = 65536;

template <typename E>
E get_enum(wire_reader& in, const char* field, std::underlying_type_t<E> first, std::underlying_type_t<E> last) {
    const auto offset = in.offset();
    const auto raw = in.get<std::underlying_type_t<E>>(field);
    if (raw < first || raw > last) in.fail(field, offset, fmt::format("has unknown value {} (valid: {}..{})", raw, first, last));
    return static_cast<E>(raw);
}

template <typename E>
void put_enum(wire_writer& out, E value) {
    out.put(static_cast<std::underlying_type_t<E>>(value));
}

// ---- payloads: one write/read pair per message, fields in declaration order ----

void write(wire_writer& out, const job_msg& m) {
    out.put(m.job_id);
    put_enum(out, m.kind);
    out.put(m.priority);
    out.put(m.partition_count);
    out.put(static_cast<std::uint32_t>(m.partitions.size()));
    for (auto p : m.partitions) out.put(p);
    out.put_string(m.spool_path);
}
void read(wire_reader& in, job_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.kind = get_enum<proof_kind>(in, "kind", 1, 5);
    m.priority = in.get<std::int32_t>("priority");
    m.partition_count = in.get<std::uint32_t>("partition_count");
    const auto offset = in.offset();
    const auto count = in.get<std::uint32_t>("partitions");
    if (count > partition_list_limit) {
        in.fail("partitions", offset, fmt::format("lists {} entries, the limit is {}", count, partition_list_limit));
    }
    m.partitions.resize(count);
    for (auto& p : m.partitions) p = in.get<std::uint32_t>("partitions[]");
    m.spool_path = in.get_string("spool_path", path_limit);
}

void write(wire_writer& out, const slot_ready_msg& m) {
    out.put(m.job_id);
    out.put(m.partition);
    out.put(m.slot);
    out.put(m.generation);
    out.put(m.payload_bytes);
    out.put(m.num_inputs);
    out.put(m.num_aux);
    out.put(m.num_constraints);
    out.put(m.synth_us);
}
void read(wire_reader& in, slot_ready_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.partition = in.get<std::uint32_t>("partition");
    m.slot = in.get<std::uint32_t>("slot");
    m.generation = in.get<std::uint32_t>("generation");
    m.payload_bytes = in.get<std::uint64_t>("payload_bytes");
    m.num_inputs = in.get<std::uint64_t>("num_inputs");
    m.num_aux = in.get<std::uint64_t>("num_aux");
    m.num_constraints = in.get<std::uint64_t>("num_constraints");
    m.synth_us = in.get<std::uint64_t>("synth_us");
}

void write(wire_writer& out, const partition_proof_msg& m) {
    out.put(m.job_id);
    out.put(m.partition);
    out.put_raw(m.proof);
    const auto& t = m.timings;
    out.put(t.queue_us);
    out.put(t.prep_us);
    out.put(t.lock_wait_us);
    out.put(t.gpu_us);
    out.put(t.tail_us);
    out.put(t.params_load_us);
    out.put(t.gpu);
    out.put(t.worker);
}
void read(wire_reader& in, partition_proof_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.partition = in.get<std::uint32_t>("partition");
    const auto proof = in.get_raw(partition_proof_bytes, "proof");
    std::copy(proof.begin(), proof.end(), m.proof.begin());
    auto& t = m.timings;
    t.queue_us = in.get<std::uint64_t>("timings.queue_us");
    t.prep_us = in.get<std::uint64_t>("timings.prep_us");
    t.lock_wait_us = in.get<std::uint64_t>("timings.lock_wait_us");
    t.gpu_us = in.get<std::uint64_t>("timings.gpu_us");
    t.tail_us = in.get<std::uint64_t>("timings.tail_us");
    t.params_load_us = in.get<std::uint64_t>("timings.params_load_us");
    t.gpu = in.get<std::uint32_t>("timings.gpu");
    t.worker = in.get<std::uint32_t>("timings.worker");
}

void write(wire_writer& out, const partition_failed_msg& m) {
    out.put(m.job_id);
    out.put(m.partition);
    out.put_bool(m.retryable);
    out.put_string(m.error);
}
void read(wire_reader& in, partition_failed_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.partition = in.get<std::uint32_t>("partition");
    m.retryable = in.get_bool("retryable");
    m.error = in.get_string("error", text_limit);
}

void write(wire_writer& out, const cancel_msg& m) { out.put(m.job_id); }
void read(wire_reader& in, cancel_msg& m) { m.job_id = in.get<std::uint64_t>("job_id"); }

void write(wire_writer&, const status_request_msg&) {}
void read(wire_reader&, status_request_msg&) {}

void write(wire_writer& out, const status_reply_msg& m) { out.put_string(m.json); }
void read(wire_reader& in, status_reply_msg& m) { m.json = in.get_string("json", json_limit); }

void write(wire_writer& out, const submit_msg& m) {
    out.put_string(m.client_request_id);
    out.put_string(m.request_digest);
    put_enum(out, m.kind);
    out.put(m.priority);
    put_enum(out, m.source);
    out.put_string(m.c1_path);
    out.put_bytes(m.input);
}
void read(wire_reader& in, submit_msg& m) {
    m.client_request_id = in.get_string("client_request_id", id_limit);
    m.request_digest = in.get_string("request_digest", id_limit);
    m.kind = get_enum<proof_kind>(in, "kind", 1, 5);
    m.priority = in.get<std::int32_t>("priority");
    m.source = get_enum<c1_source>(in, "source", 1, 3);
    m.c1_path = in.get_string("c1_path", path_limit);
    const auto input = in.get_bytes("input", submit_input_limit);
    m.input.assign(input.begin(), input.end());
}

void write(wire_writer& out, const submit_reply_msg& m) {
    out.put_string(m.client_request_id);
    out.put(m.job_id);
    out.put_bool(m.duplicate);
    out.put(m.queue_position);
}
void read(wire_reader& in, submit_reply_msg& m) {
    m.client_request_id = in.get_string("client_request_id", id_limit);
    m.job_id = in.get<std::uint64_t>("job_id");
    m.duplicate = in.get_bool("duplicate");
    m.queue_position = in.get<std::uint32_t>("queue_position");
}

void write(wire_writer& out, const await_msg& m) {
    out.put(m.job_id);
    out.put(m.timeout_ms);
    out.put_bool(m.fetch);
}
void read(wire_reader& in, await_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.timeout_ms = in.get<std::uint32_t>("timeout_ms");
    m.fetch = in.get_bool("fetch");
}

void write(wire_writer& out, const await_reply_msg& m) {
    out.put(m.job_id);
    put_enum(out, m.state);
    out.put(m.partitions_done);
    out.put(m.partitions_total);
    out.put_bytes(m.proof);
    out.put_string(m.result_path);
    out.put_string(m.error);
    const auto& t = m.timings;
    for (auto v : {t.queue_wait_ms, t.params_load_ms, t.synthesis_ms, t.gpu_ms, t.total_ms}) out.put(v);
    out.put_bool(m.was_running);
}
void read(wire_reader& in, await_reply_msg& m) {
    m.job_id = in.get<std::uint64_t>("job_id");
    m.state = get_enum<job_state>(in, "state", 1, 6);
    m.partitions_done = in.get<std::uint32_t>("partitions_done");
    m.partitions_total = in.get<std::uint32_t>("partitions_total");
    const auto proof = in.get_bytes("proof", proof_limit);
    m.proof.assign(proof.begin(), proof.end());
    m.result_path = in.get_string("result_path", path_limit);
    m.error = in.get_string("error", text_limit);
    auto& t = m.timings;
    t.queue_wait_ms = in.get<std::uint64_t>("timings.queue_wait_ms");
    t.params_load_ms = in.get<std::uint64_t>("timings.params_load_ms");
    t.synthesis_ms = in.get<std::uint64_t>("timings.synthesis_ms");
    t.gpu_ms = in.get<std::uint64_t>("timings.gpu_ms");
    t.total_ms = in.get<std::uint64_t>("timings.total_ms");
    m.was_running = in.get_bool("was_running");
}

void write(wire_writer& out, const error_reply_msg& m) {
    put_enum(out, m.code);
    out.put(m.request_type);
    out.put_string(m.text);
}
void read(wire_reader& in, error_reply_msg& m) {
    m.code = get_enum<error_code>(in, "code", 1, 8);
    m.request_type = in.get<std::uint8_t>("request_type");
    m.text = in.get_string("text", text_limit);
}

void write(wire_writer& out, const stage_hello_msg& m) {
    put_enum(out, m.from);
    out.put(m.pid);
    out.put(m.started_ms);
}
void read(wire_reader& in, stage_hello_msg& m) {
    m.from = get_enum<stage>(in, "from", 1, 2);
    m.pid = in.get<std::int32_t>("pid");
    m.started_ms = in.get<std::uint64_t>("started_ms");
}

void write(wire_writer& out, const params_request_msg& m) {
    put_enum(out, m.action);
    out.put_string(m.circuit);
}
void read(wire_reader& in, params_request_msg& m) {
    m.action = get_enum<params_action>(in, "action", 1, 2);
    m.circuit = in.get_string("circuit", id_limit);
}

void write(wire_writer& out, const params_reply_msg& m) {
    out.put_bool(m.was_loaded);
    out.put(m.load_ms);
    out.put(m.freed_bytes);
}
void read(wire_reader& in, params_reply_msg& m) {
    m.was_loaded = in.get_bool("was_loaded");
    m.load_ms = in.get<std::uint64_t>("load_ms");
    m.freed_bytes = in.get<std::uint64_t>("freed_bytes");
}

template <typename T>
message read_as(wire_reader& in) {
    T m;
    read(in, m);
    in.expect_end();
    return m;
}

}  // namespace

std::string_view to_string(message_type type) noexcept {
    switch (type) {
        case message_type::job: return "JOB";
        case message_type::slot_ready: return "SLOT_READY";
        case message_type::partition_proof: return "PARTITION_PROOF";
        case message_type::partition_failed: return "PARTITION_FAILED";
        case message_type::cancel: return "CANCEL";
        case message_type::status_request: return "STATUS_REQUEST";
        case message_type::status_reply: return "STATUS_REPLY";
        case message_type::submit: return "SUBMIT";
        case message_type::submit_reply: return "SUBMIT_REPLY";
        case message_type::await: return "AWAIT";
        case message_type::await_reply: return "AWAIT_REPLY";
        case message_type::error_reply: return "ERROR_REPLY";
        case message_type::stage_hello: return "STAGE_HELLO";
        case message_type::params_request: return "PARAMS_REQUEST";
        case message_type::params_reply: return "PARAMS_REPLY";
    }
    return "UNKNOWN";
}

std::string_view to_string(proof_kind kind) noexcept {
    switch (kind) {
        case proof_kind::porep_c2: return "porep-c2";
        case proof_kind::winning_post: return "winning-post";
        case proof_kind::window_post: return "window-post";
        case proof_kind::snap_update: return "snap-update";
        case proof_kind::test_circuit: return "test-circuit";
    }
    return "unknown";
}

std::string_view to_string(job_state state) noexcept {
    switch (state) {
        case job_state::queued: return "queued";
        case job_state::running: return "running";
        case job_state::done: return "done";
        case job_state::failed: return "failed";
        case job_state::cancelled: return "cancelled";
        case job_state::unknown: return "unknown";
    }
    return "unknown";
}

std::string_view to_string(error_code code) noexcept {
    switch (code) {
        case error_code::bad_request: return "bad_request";
        case error_code::unsupported_version: return "unsupported_version";
        case error_code::unknown_job: return "unknown_job";
        case error_code::queue_full: return "queue_full";
        case error_code::cancelled: return "cancelled";
        case error_code::internal: return "internal";
        case error_code::unavailable: return "unavailable";
        case error_code::permission_denied: return "permission_denied";
    }
    return "unknown";
}

std::string_view to_string(stage s) noexcept {
    switch (s) {
        case stage::synthd: return "synthd";
        case stage::gpud: return "gpud";
    }
    return "unknown";
}

std::string_view to_string(params_action a) noexcept {
    switch (a) {
        case params_action::preload: return "preload";
        case params_action::evict: return "evict";
    }
    return "unknown";
}

message_type type_of(const message& m) noexcept {
    return std::visit([](const auto& body) { return std::decay_t<decltype(body)>::type; }, m);
}

std::vector<std::byte> encode(const message& m) {
    wire_writer out;
    out.put_raw(std::array{magic0, magic1, std::byte{protocol_version}, std::byte{static_cast<std::uint8_t>(type_of(m))}});
    out.put<std::uint32_t>(0);  // payload length, patched below
    std::visit([&](const auto& body) { write(out, body); }, m);
    auto& bytes = out.bytes();
    const auto payload = static_cast<std::uint32_t>(bytes.size() - frame_header_bytes);
    std::memcpy(bytes.data() + 4, &payload, sizeof payload);
    return std::move(bytes);
}

std::uint8_t peek_type(std::span<const std::byte> frame) noexcept {
    if (frame.size() < frame_header_bytes || frame[0] != magic0 || frame[1] != magic1) return 0;
    return std::to_integer<std::uint8_t>(frame[3]);
}

message decode(std::span<const std::byte> frame) {
    if (frame.size() < frame_header_bytes) {
        throw protocol_error(fmt::format("frame is truncated: {} bytes, the header alone is {}", frame.size(),
                                         frame_header_bytes));
    }
    if (frame[0] != magic0 || frame[1] != magic1) {
        throw protocol_error(fmt::format("frame does not start with the cuzk magic 'CZ' (found 0x{:02x} 0x{:02x}): "
                                         "not a cuzk control message",
                                         std::to_integer<unsigned>(frame[0]), std::to_integer<unsigned>(frame[1])));
    }
    const auto version = std::to_integer<unsigned>(frame[2]);
    if (version != protocol_version) {
        throw protocol_error(fmt::format("frame has protocol version {}, this build speaks version {}: run the same "
                                         "cuzk version on every stage and client",
                                         version, protocol_version));
    }
    const auto type_byte = std::to_integer<unsigned>(frame[3]);
    std::uint32_t payload_bytes = 0;
    std::memcpy(&payload_bytes, frame.data() + 4, sizeof payload_bytes);
    if (payload_bytes != frame.size() - frame_header_bytes) {
        throw protocol_error(fmt::format("frame of type {} declares a {}-byte payload but carries {} bytes{}",
                                         type_byte, payload_bytes, frame.size() - frame_header_bytes,
                                         payload_bytes > frame.size() - frame_header_bytes ? " (truncated)" : ""));
    }
    const auto type = static_cast<message_type>(type_byte);
    wire_reader in(frame.subspan(frame_header_bytes), std::string(to_string(type)), frame_header_bytes);
    switch (type) {
        case message_type::job: return read_as<job_msg>(in);
        case message_type::slot_ready: return read_as<slot_ready_msg>(in);
        case message_type::partition_proof: return read_as<partition_proof_msg>(in);
        case message_type::partition_failed: return read_as<partition_failed_msg>(in);
        case message_type::cancel: return read_as<cancel_msg>(in);
        case message_type::status_request: return read_as<status_request_msg>(in);
        case message_type::status_reply: return read_as<status_reply_msg>(in);
        case message_type::submit: return read_as<submit_msg>(in);
        case message_type::submit_reply: return read_as<submit_reply_msg>(in);
        case message_type::await: return read_as<await_msg>(in);
        case message_type::await_reply: return read_as<await_reply_msg>(in);
        case message_type::error_reply: return read_as<error_reply_msg>(in);
        case message_type::stage_hello: return read_as<stage_hello_msg>(in);
        case message_type::params_request: return read_as<params_request_msg>(in);
        case message_type::params_reply: return read_as<params_reply_msg>(in);
    }
    throw protocol_error(fmt::format("frame has unknown message type {} (this build knows 1..15)", type_byte));
}

}  // namespace cuzk::ipc
