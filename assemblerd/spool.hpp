// The assembler's spool directory (durable, unlike the runtime directory):
//   journal                 the job journal (journal.hpp)
//   incoming/<name>         inputs a client placed for a SUBMIT with source = spool (moved into the job)
//   jobs/<job id>/input     the job's input, copied or moved here at submission (the job survives the
//                           client deleting its file)
//   jobs/<job id>/public_inputs  a PoRep job's public inputs, kept by the check of its C1
//                           (daemon/porep_public_inputs_file.hpp), so that a restart does not parse the C1 again
//   results/<job id>.proof  the assembled proof (partition proofs in order, 192 bytes each)
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "assemblerd/job.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class spool {
public:
    // Creates the directories. Throws input_error naming the directory.
    explicit spool(std::filesystem::path root);

    const std::filesystem::path& root() const noexcept { return root_; }
    std::filesystem::path journal_path() const { return root_ / "journal"; }
    std::filesystem::path result_path(std::uint64_t job) const;

    // Places the job's input under jobs/<job>/input (durably) and returns that path relative to the root: the bytes
    // of an inline_bytes SUBMIT, or the file |name| in incoming/ that the gRPC front door wrote. Throws input_error
    // for an input named by a path (nothing a client sends makes the service read outside the spool), an empty
    // input, or a spool name that is missing or has a '/'.
    std::string take_input(std::uint64_t job, ipc::c1_source source, const std::string& name,
                           std::span<const std::byte> input);
    // Reads the job's spooled input by its kind; |source| names it in errors (the client's own path at
    // submission). A PoRep C1 is parsed once: its public inputs are kept beside it and read instead after that.
    // Throws input_error.
    // |check_circuit|: a C1 read for the first time has the first challenge of each partition checked against the
    // circuit (daemon/porep_input_check.hpp); off with [assemblerd] verify = false, whose synthetic C1s would fail.
    void load_input(job& j, const std::string& source, bool check_circuit = false) const;
    void write_result(std::uint64_t job, std::span<const std::byte> proof);
    void remove_job(std::uint64_t job);

private:
    std::filesystem::path root_;
};

}  // namespace cuzk::assemblerd
