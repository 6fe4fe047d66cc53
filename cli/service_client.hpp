// What the service commands (submit, await, prove through the service, status, cancel, bench, up, down)
// share: the flags that say where the service runs, the endpoints derived from them, and submit / await with
// the errors a user sees (exit 3 when the service does not answer, 5 when it is busy, 6 when this user may not
// reach its socket).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/progress_lines.hpp"
#include "common/util/errors.hpp"
#include "daemon/config.hpp"
#include "ipc/messages.hpp"

namespace cuzk::cli {

struct service_options {
    std::string config_path;  // the daemons' TOML (for the runtime directory)
    std::string runtime_dir;  // overrides [runtime] dir

    void add_to(CLI::App& cmd);
    daemon::config load() const;
};

using cuzk::service_unavailable;  // the CLI exits 3 (exit_unavailable)

// Sends |m| to a daemon's socket; throws permission_denied when this user may not connect to it,
// service_unavailable on no reply, service_busy for a queue_full reply, input_error for a bad_request /
// unknown_job error reply (text from the daemon), std::runtime_error for other error replies.
ipc::message call(const daemon::config& c, std::string_view socket_name, const ipc::message& m,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10));

struct job_request {
    std::string c1_path;          // a C1 file (proof kind porep-c2), or empty
    std::string circuit;          // a test circuit, or empty
    std::string post;             // a registered PoSt proof (window-post / winning-post job), or empty
    std::string update;           // a registered update proof (snap-update job), or empty
    std::vector<std::string> vanilla;  // PoSt: one file per sector, ascending sector numbers; update: per partition
    std::string randomness;            // PoSt: its randomness, 64 hex digits
    std::string comm_r_old, comm_d_new, comm_r_new;  // update: 64 hex digits each, the 32 bytes as stored
    std::string h;                                   // update: its h (empty: the sector size's default)
    std::uint32_t partitions = 1;
    std::uint64_t seed = 1;
    std::int32_t priority = 0;
    std::string request_id;
    void add_to(CLI::App& cmd);
};

std::uint64_t submit_job(const daemon::config& c, const job_request& r);

// Waits for the job to end (riding through a restart of assemblerd). With |progress|, prints the job's state
// and partitions proved to stderr (cli/progress_lines.hpp: in place on a terminal, as lines in a log).
// |timeout| 0: forever. |fetch|: the reply carries the proof, and fetching it counts as its delivery (the
// service then keeps the result only a grace period, not [assemblerd] result_ttl_s).
ipc::await_reply_msg await_job(const daemon::config& c, std::uint64_t job, std::chrono::seconds timeout,
                               const progress_options* progress, bool fetch);

// Prints a job's outcome and writes its proof to |out| (when given): exit_ok (0) when done, exit_negative (1)
// when failed or cancelled.
int report_outcome(const ipc::await_reply_msg& r, const std::string& out);

}  // namespace cuzk::cli
