#include "assemblerd/spool.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "common/util/errors.hpp"
#include "daemon/porep_job_input.hpp"
#include "daemon/porep_input_check.hpp"
#include "daemon/porep_public_inputs_file.hpp"
#include "daemon/post_job_input.hpp"
#include "daemon/test_job_input.hpp"
#include "daemon/update_job_input.hpp"

namespace cuzk::assemblerd {

namespace fs = std::filesystem;

namespace {

// Written to <path>.tmp, fsync'd, renamed: a crash leaves the old file or the whole new one.
void write_durably(const fs::path& path, std::span<const std::byte> data) {
    const auto tmp = path.string() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "creating " + tmp);
    std::size_t done = 0;
    while (done < data.size()) {
        const auto n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            std::error_code ec;
            fs::remove(tmp, ec);  // a full disk keeps no half-written file
            throw std::system_error(err, std::generic_category(), "writing " + tmp);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        std::error_code ec;
        fs::remove(tmp, ec);
        throw std::system_error(err, std::generic_category(), "fsync of " + tmp);
    }
    ::close(fd);
    fs::rename(tmp, path);
}

}  // namespace

spool::spool(fs::path root) : root_(std::move(root)) {
    for (const auto* sub : {"", "incoming", "jobs", "results"}) {
        std::error_code ec;
        fs::create_directories(root_ / sub, ec);
        if (ec)
            throw input_error(fmt::format("cannot create the spool directory {}: {}; set [runtime] spool_dir",
                                          (root_ / sub).string(), ec.message()));
    }
}

fs::path spool::result_path(std::uint64_t job) const { return root_ / "results" / fmt::format("{}.proof", job); }

std::string spool::take_input(std::uint64_t job, ipc::c1_source source, const std::string& name,
                              std::span<const std::byte> input) {
    if (source == ipc::c1_source::path)
        throw input_error(fmt::format("SUBMIT: an input named by its path ('{}') is not taken: the service reads no "
                                      "file a client names; send the input's bytes (source inline_bytes, as "
                                      "`cuzk submit` does) or use the gRPC API",
                                      name));
    if (source == ipc::c1_source::inline_bytes && input.empty())
        throw input_error(fmt::format("SUBMIT: the job input{} is empty", name.empty() ? "" : " " + name));
    if (source == ipc::c1_source::spool && name.empty())
        throw input_error("SUBMIT: field 'c1_path' is empty: name the job's input file in the spool");
    const auto dir = root_ / "jobs" / std::to_string(job);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto rel = fmt::format("jobs/{}/input", job);
    if (source == ipc::c1_source::spool) {
        if (name.find('/') != std::string::npos || name == "." || name == "..")
            throw input_error(fmt::format("SUBMIT: spool input '{}' must be a plain file name inside {}", name,
                                          (root_ / "incoming").string()));
        const auto from = root_ / "incoming" / name;
        if (!fs::is_regular_file(from))
            throw input_error(fmt::format("SUBMIT: spool input {} does not exist", from.string()));
        fs::rename(from, root_ / rel);
    } else {
        write_durably(root_ / rel, input);
    }
    return rel;
}

void spool::write_result(std::uint64_t job, std::span<const std::byte> proof) { write_durably(result_path(job), proof); }

void spool::remove_job(std::uint64_t job) {
    std::error_code ec;
    fs::remove_all(root_ / "jobs" / std::to_string(job), ec);
    fs::remove(result_path(job), ec);
}

void spool::load_input(job& j, const std::string& source, bool check_circuit) const {
    const auto path = root_ / j.input;
    if (j.kind == ipc::proof_kind::porep_c2) {
        // Parsed once: what the check derived stays beside the input, for a restart and the verification.
        const auto kept = path.parent_path() / "public_inputs";
        if (auto in = daemon::read_porep_public_inputs(kept)) {
            j.porep = std::move(*in);
            return;
        }
        // The first parse is the submission's: the C1 is kept only while its first challenges are checked.
        auto in = daemon::read_porep_job_input(path, source, check_circuit);
        if (check_circuit) daemon::check_first_challenges(in, source);
        in.c1.reset();
        j.porep = std::move(in);
        try {
            daemon::write_porep_public_inputs(kept, *j.porep);
        } catch (const std::exception& e) {
            spdlog::warn("job {}: {}; the C1 is parsed again after a restart", j.id, e.what());
        }
    } else if (j.kind == ipc::proof_kind::window_post || j.kind == ipc::proof_kind::winning_post) {
        j.post = daemon::read_post_job_input(path, source, false);
        const bool winning = j.post->proof->kind == post::post_kind::winning;
        if (winning != (j.kind == ipc::proof_kind::winning_post))
            throw input_error(fmt::format("{}: {} is a {} proof, submitted as a {} job", source, j.post->proof->name,
                                          winning ? "WinningPoSt" : "WindowPoSt", ipc::to_string(j.kind)));
    } else if (j.kind == ipc::proof_kind::snap_update) {
        // Decoded and checked natively (openings, challenges, encoding) at submission and after a restart alike;
        // only the public inputs of each partition are kept, for the verification.
        j.update = daemon::read_update_job_input(path, source, false);
    } else {
        try {
            j.test_input = daemon::read_test_job_input(path);
        } catch (const input_error& e) {
            if (source == path.string()) throw;
            throw input_error(fmt::format("{} (submitted as {})", e.what(), source));
        }
    }
}

}  // namespace cuzk::assemblerd
