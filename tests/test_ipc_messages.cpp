// The ZeroMQ control protocol: every message survives an encode/decode round trip, the frame layout is
// pinned, and truncated, padded, wrong-version, unknown-type, out-of-range and randomly corrupted frames are
// rejected with protocol_error (never a crash); messages and error replies travel over real ipc:// sockets.
#include <gtest/gtest.h>

#include "ipc/endpoints.hpp"
#include "ipc/message_socket.hpp"
#include "ipc/messages.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <random>
#include <set>

using namespace cuzk::ipc;

namespace {

std::vector<message> one_of_each() {
    partition_proof_msg proof;
    proof.job_id = 0x1122334455667788ull;
    proof.partition = 9;
    for (std::size_t i = 0; i < proof.proof.size(); ++i) proof.proof[i] = std::byte(static_cast<std::uint8_t>(i * 3 + 1));
    proof.timings = {11, 22, 33, 44, 55, 66, 1, 2};

    await_reply_msg done;
    done.job_id = 42;
    done.state = job_state::done;
    done.partitions_done = 10;
    done.partitions_total = 10;
    done.proof.assign(1920, std::byte{0xab});
    done.result_path = "/var/spool/cuzk/42.proof";
    done.timings = {1, 2, 3, 4, 5};
    done.was_running = true;

    return {
        job_msg{17, proof_kind::porep_c2, -3, 10, {1, 4, 9}, "/var/spool/cuzk/17.c1.json"},
        job_msg{18, proof_kind::test_circuit, 0, 2, {}, ""},
        slot_ready_msg{17, 4, 3, 12, 1ull << 33, 1, 130'000'000, 131'000'000, 95'000'000},
        proof,
        partition_failed_msg{17, 5, true, "gpud restarted: partition lost"},
        cancel_msg{17},
        status_request_msg{},
        status_reply_msg{R"({"jobs":[],"slots":{"free":4}})"},
        submit_msg{"req-\xc3\xa9-1", std::string(64, 'f'), proof_kind::window_post, 100, c1_source::spool,
                   "incoming/abc.json", {}},
        submit_msg{"", "", proof_kind::porep_c2, 0, c1_source::inline_bytes, "/home/sp/c1.json",
                   {std::byte{'{'}, std::byte{'}'}, std::byte{0}, std::byte{0xff}}},
        submit_reply_msg{"req-1", 17, true, 3},
        await_msg{17, 30000, true},
        done,
        await_reply_msg{43, job_state::failed, 3, 10, {}, "", "partition 4: invalid witness", {}, false},
        error_reply_msg{error_code::queue_full, static_cast<std::uint8_t>(message_type::submit),
                        "128 jobs pending (max_pending_jobs); retry later"},
        stage_hello_msg{stage::gpud, 4242, 1767225600000ull},
        params_request_msg{params_action::evict, "porep:StackedDrg32GiBV1_1"},
        params_reply_msg{true, 1234, 1ull << 34},
    };
}

std::span<const std::byte> as_span(const std::vector<std::byte>& v) { return {v.data(), v.size()}; }

std::string decode_error(const std::vector<std::byte>& frame) {
    try {
        (void)decode(as_span(frame));
    } catch (const protocol_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Messages, EveryTypeSurvivesARoundTrip) {
    std::set<message_type> types;
    for (const auto& original : one_of_each()) {
        const auto frame = encode(original);
        const auto decoded = decode(as_span(frame));
        EXPECT_EQ(decoded, original) << to_string(type_of(original));
        EXPECT_EQ(type_of(decoded), type_of(original));
        EXPECT_EQ(peek_type(as_span(frame)), static_cast<std::uint8_t>(type_of(original)));
        types.insert(type_of(original));
    }
    EXPECT_EQ(types.size(), 15u) << "a message type lacks a round-trip case";
}

TEST(Messages, FrameLayoutIsPinned) {
    const auto frame = encode(cancel_msg{0x0102030405060708ull});
    const std::vector<std::byte> expected{std::byte{'C'}, std::byte{'Z'}, std::byte{5},    std::byte{5},
                                          std::byte{8},   std::byte{0},   std::byte{0},    std::byte{0},
                                          std::byte{8},   std::byte{7},   std::byte{6},    std::byte{5},
                                          std::byte{4},   std::byte{3},   std::byte{2},    std::byte{1}};
    EXPECT_EQ(frame, expected);
    EXPECT_EQ(encode(status_request_msg{}).size(), frame_header_bytes);
    // JOB: 8 header + 8 id + 1 kind + 4 priority + 4 count + 4 list length + 2*4 + 4 string length + 3 chars.
    EXPECT_EQ(encode(job_msg{1, proof_kind::porep_c2, 0, 2, {0, 1}, "abc"}).size(), 8u + 8 + 1 + 4 + 4 + 4 + 8 + 4 + 3);
    // A partition proof is a fixed-size frame: ids, 192 proof bytes, timings.
    EXPECT_EQ(encode(partition_proof_msg{}).size(), 8u + 8 + 4 + 192 + 6 * 8 + 2 * 4);
}

TEST(Messages, EveryTruncationIsRejected) {
    for (const auto& original : one_of_each()) {
        const auto frame = encode(original);
        for (std::size_t size = 0; size < frame.size(); ++size) {
            std::vector<std::byte> cut(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(size));
            EXPECT_THROW((void)decode(as_span(cut)), protocol_error) << to_string(type_of(original)) << " cut at " << size;
            // Even with the length field patched to match, the payload itself is short.
            if (size > frame_header_bytes) {
                const auto payload = static_cast<std::uint32_t>(size - frame_header_bytes);
                std::memcpy(cut.data() + 4, &payload, 4);
                EXPECT_THROW((void)decode(as_span(cut)), protocol_error)
                    << to_string(type_of(original)) << " cut at " << size << " with patched length";
            }
        }
    }
    auto cancel = encode(cancel_msg{1});
    cancel.resize(12);
    const auto text = decode_error(cancel);
    EXPECT_NE(text.find("truncated"), std::string::npos) << text;
}

TEST(Messages, TruncatedFieldIsNamedWithItsOffset) {
    auto frame = encode(submit_msg{"abc", "", proof_kind::porep_c2, 1, c1_source::inline_bytes, "/x",
                                   {std::byte{1}, std::byte{2}}});
    frame.resize(frame.size() - 1);
    const std::uint32_t payload = static_cast<std::uint32_t>(frame.size() - frame_header_bytes);
    std::memcpy(frame.data() + 4, &payload, 4);
    const auto text = decode_error(frame);
    EXPECT_NE(text.find("SUBMIT"), std::string::npos) << text;
    EXPECT_NE(text.find("input"), std::string::npos) << text;
    EXPECT_NE(text.find("offset"), std::string::npos) << text;
}

TEST(Messages, TrailingBytesAreRejected) {
    auto frame = encode(cancel_msg{1});
    frame.push_back(std::byte{0});
    EXPECT_NE(decode_error(frame).find("declares"), std::string::npos);  // length field disagrees
    const std::uint32_t payload = 9;
    std::memcpy(frame.data() + 4, &payload, 4);
    EXPECT_NE(decode_error(frame).find("trailing"), std::string::npos) << decode_error(frame);
}

TEST(Messages, WrongVersionMagicAndTypeAreRejected) {
    auto frame = encode(cancel_msg{1});
    auto other_version = frame;
    other_version[2] = std::byte{1};
    EXPECT_NE(decode_error(other_version).find("protocol version 1"), std::string::npos) << decode_error(other_version);
    auto zero_version = frame;
    zero_version[2] = std::byte{0};
    EXPECT_FALSE(decode_error(zero_version).empty());

    auto not_ours = frame;
    not_ours[0] = std::byte{'{'};
    EXPECT_NE(decode_error(not_ours).find("magic"), std::string::npos);
    EXPECT_EQ(peek_type(as_span(not_ours)), 0);

    for (std::uint8_t type : {0, 16, 200, 255}) {
        auto unknown = frame;
        unknown[3] = std::byte{type};
        EXPECT_NE(decode_error(unknown).find("unknown message type"), std::string::npos) << int(type);
    }
}

TEST(Messages, OutOfRangeFieldsAreRejected) {
    auto job = encode(job_msg{1, proof_kind::porep_c2, 0, 1, {}, ""});
    job[frame_header_bytes + 8] = std::byte{9};  // kind
    EXPECT_NE(decode_error(job).find("'kind'"), std::string::npos) << decode_error(job);

    auto failed = encode(partition_failed_msg{1, 2, false, "x"});
    failed[frame_header_bytes + 12] = std::byte{2};  // retryable
    EXPECT_NE(decode_error(failed).find("retryable"), std::string::npos) << decode_error(failed);

    auto error = encode(error_reply_msg{error_code::internal, 0, ""});
    error[frame_header_bytes] = std::byte{0};  // code 0
    EXPECT_NE(decode_error(error).find("code"), std::string::npos);

    // A string declaring 4 GiB is refused by its limit, before any allocation.
    auto status = encode(status_reply_msg{"{}"});
    const std::uint32_t huge = 0xffffffffu;
    std::memcpy(status.data() + frame_header_bytes, &huge, 4);
    EXPECT_NE(decode_error(status).find("limit"), std::string::npos) << decode_error(status);

    auto list = encode(job_msg{1, proof_kind::porep_c2, 0, 1, {}, ""});
    std::memcpy(list.data() + frame_header_bytes + 17, &huge, 4);  // partitions count
    EXPECT_NE(decode_error(list).find("partitions"), std::string::npos) << decode_error(list);
}

TEST(Messages, RandomCorruptionNeverCrashesTheDecoder) {
    std::mt19937_64 rng(20240601);
    const auto samples = one_of_each();
    std::size_t rejected = 0, accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        auto frame = encode(samples[rng() % samples.size()]);
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) frame[rng() % frame.size()] = std::byte(static_cast<std::uint8_t>(rng()));
        if (rng() % 4 == 0) frame.resize(rng() % (frame.size() + 1));
        try {
            const auto m = decode(as_span(frame));
            EXPECT_EQ(encode(m), frame);  // whatever decodes re-encodes to the same bytes
            ++accepted;
        } catch (const protocol_error&) {
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 1000u);
    EXPECT_GT(accepted, 100u);
}

TEST(Endpoints, IpcEndpointsLiveInTheRuntimeDirectory) {
    EXPECT_EQ(ipc_endpoint("/run/cuzk", socket_names::api), "ipc:///run/cuzk/assemblerd.sock");
    EXPECT_EQ(ipc_socket_path("ipc:///run/cuzk/gpud.sock"), std::filesystem::path("/run/cuzk/gpud.sock"));
    EXPECT_TRUE(ipc_socket_path("tcp://127.0.0.1:5555").empty());
    EXPECT_THROW((void)ipc_endpoint("/run/cuzk", "a/b"), std::invalid_argument);
    try {
        (void)ipc_endpoint(std::filesystem::path("/tmp") / std::string(120, 'x'), "api");
        FAIL() << "a socket path longer than sun_path was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("CUZK_RUNTIME_DIR"), std::string::npos);
    }
}

TEST(Endpoints, EachGpudHasItsGpusSocketFoundInTheRuntimeDirectory) {
    EXPECT_EQ(gpud_socket_name(0), "gpud-0");
    EXPECT_EQ(ipc_endpoint("/run/cuzk", gpud_socket_name(12)), "ipc:///run/cuzk/gpud-12.sock");
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("cuzk-test-gpuds-{}", getpid());
    EXPECT_TRUE(gpud_sockets_in(dir).empty());  // no directory: no gpud
    std::filesystem::create_directories(dir);
    // Only gpud_socket_name's names count: not the locks, another stage, a name that is not a GPU index.
    for (const auto* name : {"gpud-10.sock", "gpud-2.sock", "gpud-0.sock", "gpud-0.lock", "gpud.sock", "synthd.sock",
                             "gpud-01.sock", "gpud-1x.sock", "gpud-.sock", "gpud--1.sock"})
        std::ofstream(dir / name) << "";
    EXPECT_EQ(gpud_sockets_in(dir), (std::vector<int>{0, 2, 10}));
    std::filesystem::remove_all(dir);
}

TEST(Endpoints, RuntimeDirectoryHonoursTheEnvironmentAndIsPrivate) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("cuzk-test-run-{}", getpid()) / "nested";
    ::setenv("CUZK_RUNTIME_DIR", dir.c_str(), 1);
    EXPECT_EQ(default_runtime_dir(), dir);
    ::unsetenv("CUZK_RUNTIME_DIR");
    ensure_runtime_dir(dir);
    struct stat info {};
    ASSERT_EQ(::stat(dir.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0750u);  // the group may reach the API socket; nobody else gets in
    ::chmod(dir.c_str(), 0770);
    ensure_runtime_dir(dir);  // group-writable: closed again
    ASSERT_EQ(::stat(dir.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0750u);
    ::chmod(dir.c_str(), 0777);
    EXPECT_THROW(ensure_runtime_dir(dir), std::runtime_error);  // writable by others
    std::filesystem::remove_all(dir.parent_path());
}

TEST(MessageSocket, MessagesAndErrorRepliesTravelOverIpcSockets) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("cuzk-test-zmq-{}", getpid());
    ensure_runtime_dir(dir);
    zmq::context_t context;
    {
        // PUSH/PULL, as gpud -> assemblerd.
        zmq::socket_t pull(context, zmq::socket_type::pull);
        pull.bind(ipc_endpoint(dir, socket_names::results));
        zmq::socket_t push(context, zmq::socket_type::push);
        push.connect(ipc_endpoint(dir, socket_names::results));
        for (const auto& m : one_of_each()) ASSERT_TRUE(send_message(push, m));
        for (const auto& m : one_of_each()) {
            auto got = recv_message(pull);
            ASSERT_TRUE(got);
            EXPECT_EQ(*got, m);
        }
        EXPECT_FALSE(recv_message(pull, zmq::recv_flags::dontwait));  // EAGAIN is an empty result

        // ROUTER/DEALER, as clients -> assemblerd: a malformed request gets an ERROR_REPLY, a good one its reply.
        zmq::socket_t router(context, zmq::socket_type::router);
        router.bind(ipc_endpoint(dir, socket_names::api));
        zmq::socket_t client(context, zmq::socket_type::dealer);
        client.connect(ipc_endpoint(dir, socket_names::api));
        const std::string garbage = "{\"not\":\"a frame\"}";
        ASSERT_TRUE(client.send(zmq::buffer(garbage), zmq::send_flags::none));
        ASSERT_TRUE(send_message(client, await_msg{5, 0}));

        for (int request = 0; request < 2; ++request) {
            auto in = recv_routed(router);
            ASSERT_TRUE(in);
            ASSERT_EQ(in->envelope.size(), 1u);  // the dealer's identity
            message reply;
            try {
                const auto m = decode(in->body);
                ASSERT_EQ(type_of(m), message_type::await);
                reply = await_reply_msg{std::get<await_msg>(m).job_id, job_state::unknown, 0, 0, {}, "", "no such job", {}, false};
            } catch (const protocol_error& e) {
                reply = error_reply_msg{error_code::bad_request, 0, e.what()};
            }
            ASSERT_TRUE(send_routed(router, in->envelope, reply));
        }
        auto first = recv_message(client);
        ASSERT_TRUE(first);
        ASSERT_EQ(type_of(*first), message_type::error_reply);
        EXPECT_EQ(std::get<error_reply_msg>(*first).code, error_code::bad_request);
        EXPECT_NE(std::get<error_reply_msg>(*first).text.find("magic"), std::string::npos);
        auto second = recv_message(client);
        ASSERT_TRUE(second);
        EXPECT_EQ(std::get<await_reply_msg>(*second).job_id, 5u);
    }
    context.close();
    std::filesystem::remove_all(dir);
}
