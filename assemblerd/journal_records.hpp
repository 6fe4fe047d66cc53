// What each line of the journal says, typed (journal.hpp holds the file: appending, replay, compaction).
// encode and decode are inverses. decode checks a record's own shape (type, field count, numbers, hex, proof
// size) and throws std::runtime_error saying what is wrong; whether the job it names exists is the job
// table's check.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "assemblerd/journal.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd::journal_records {

// NEXT <next job id>
struct next_job_id {
    std::uint64_t id = 0;
};
// SUBMIT <job> <priority> <kind> <partitions> <created_ms> <request id, hex or -> <input, relative to spool>
//        <request digest, hex or -> (the digest is absent from journals written before it existed: read as -)
struct submitted {
    std::uint64_t job = 0;
    std::int32_t priority = 0;
    ipc::proof_kind kind = ipc::proof_kind::test_circuit;
    std::uint64_t partitions = 0;
    std::uint64_t created_ms = 0;
    std::string request_id;
    std::string input;
    std::string request_digest;
    std::optional<std::uint32_t> owner_uid;  // "-" when not known (and absent from records written before it)
};
// PROOF <job> <partition> <192-byte partition proof, hex>
struct partition_proved {
    std::uint64_t job = 0;
    std::uint64_t partition = 0;
    std::array<std::byte, ipc::partition_proof_bytes> proof{};
};
// DONE <job> <ms>   CANCELLED <job> <ms>   FAILED <job> <ms> <error, hex or ->
struct finished {
    std::uint64_t job = 0;
    ipc::job_state state = ipc::job_state::done;  // done, cancelled or failed
    std::uint64_t at_ms = 0;
    std::string error;  // failed only
};
// FETCHED <job> <ms>
struct fetched {
    std::uint64_t job = 0;
    std::uint64_t at_ms = 0;
};
// EXPIRED <job>
struct expired {
    std::uint64_t job = 0;
};

using record = std::variant<next_job_id, submitted, partition_proved, finished, fetched, expired>;

journal_record encode(const record& r);
record decode(const journal_record& r);

std::string hex(std::string_view bytes);
std::string unhex(std::string_view hex);  // throws std::invalid_argument

}  // namespace cuzk::assemblerd::journal_records
