// A job as the assembler keeps it: identity and input (journaled), per-partition progress (in memory; only
// proofs are journaled), and the outcome.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "assemblerd/journal_records.hpp"
#include "daemon/porep_job_input.hpp"
#include "daemon/post_job_input.hpp"
#include "daemon/test_job_input.hpp"
#include "daemon/update_job_input.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

enum class partition_state { pending, dispatched, synthesized, proved };

struct partition_progress {
    partition_state state = partition_state::pending;
    std::uint64_t since_ms = 0;  // last news of it (dispatch, SLOT_READY): the re-dispatch timeout runs from here
    std::uint32_t dispatches = 0;
    // Retryable PARTITION_FAILED reports (a device failure, a ring slot taken away): at [assemblerd]
    // max_partition_attempts the job fails. In memory only, like the rest of the progress (not journaled): after
    // an assemblerd restart the count starts again at 0, so a partition that keeps failing gets up to that many
    // attempts again. Accepted: restarts are rare next to the failures the cap is for, and the job still ends.
    std::uint32_t failed_attempts = 0;
    std::optional<std::array<std::byte, ipc::partition_proof_bytes>> proof;
    bool journaled = true;  // false: proved, its PROOF record not written yet (a full disk): retried
};

// What the pipeline measured of a job's partitions (in memory: restarts from 0 with assemblerd).
struct job_measurements {
    std::uint64_t first_dispatch_ms = 0;  // 0: nothing dispatched yet
    std::uint64_t synth_us = 0;
    std::uint64_t params_load_us = 0;
    std::uint64_t gpu_us = 0;
    std::uint64_t lock_wait_us = 0;  // the partitions' waits for the CUDA lock, summed (logged when the job ends)
};

struct job {
    std::uint64_t id = 0;
    std::string request_id;
    std::string request_digest;  // with request_id, what makes a resubmission the same request
    std::optional<std::uint32_t> owner_uid;  // the submitting user (assemblerd/job_access.hpp); none: open to all
    ipc::proof_kind kind = ipc::proof_kind::test_circuit;
    std::int32_t priority = 0;
    std::uint64_t created_ms = 0;
    std::string input;  // relative to the spool directory
    daemon::test_job_input test_input;           // kind test_circuit
    std::optional<daemon::porep_job_input> porep;  // kind porep_c2 (public inputs; the C1 is not kept)
    std::optional<daemon::post_job_input> post;    // kinds window_post, winning_post (public inputs only)
    std::optional<daemon::update_job_input> update;  // kind snap_update (public inputs per partition only)
    std::vector<partition_progress> partitions;

    ipc::job_state state = ipc::job_state::queued;
    bool verifying = false;  // all partitions proved, the assembled proof with the verifier (not journaled)
    std::string error;
    std::uint64_t finished_ms = 0;
    bool fetched = false;
    std::uint64_t expires_ms = 0;  // terminal jobs: dropped after this
    job_measurements measured;
    // Writes a full disk refused, retried each sweep until they succeed (job_completion::retry_writes): the
    // job's end as the journal must record it, and whether its result file and DONE record are still to come.
    std::optional<journal_records::finished> unwritten_end;
    bool result_unwritten = false;
    std::string write_error;  // the last such failure, for the status

    // The circuit of its partitions, e.g. "porep:StackedDrg2KiBV1_1", "update:StackedDrgUpdate32GiBV1" or
    // "mul:64" (status, logs, parameters).
    std::string circuit() const {
        return porep    ? porep->circuit()
               : post   ? post->circuit_spec()
               : update ? update->circuit_spec()
                        : test_input.circuit;
    }
    // Its partition count, from its input: 10 for a 32 GiB PoRep, 1 for a PoSt, 16 for a 32 GiB SnapDeals update.
    std::size_t partition_count() const {
        return porep ? porep->partitions() : post ? 1 : update ? update->partitions() : test_input.partitions;
    }

    bool terminal() const {
        return state == ipc::job_state::done || state == ipc::job_state::failed || state == ipc::job_state::cancelled;
    }
    // Work of it in synthesis or on a GPU (dispatched and not proved).
    bool in_flight() const {
        for (const auto& p : partitions)
            if (p.state == partition_state::dispatched || p.state == partition_state::synthesized) return true;
        return false;
    }
    bool proofs_journaled() const {
        for (const auto& p : partitions)
            if (p.proof && !p.journaled) return false;
        return true;
    }
    std::uint32_t proved() const {
        std::uint32_t n = 0;
        for (const auto& p : partitions) n += p.state == partition_state::proved;
        return n;
    }
};

}  // namespace cuzk::assemblerd
