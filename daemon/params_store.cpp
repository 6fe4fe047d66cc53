#include "daemon/params_store.hpp"
#include "daemon/params_files.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <tbb/task_arena.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <optional>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/setup.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/r1cs/matrix_file.hpp"
#include "common/r1cs/matrix_recorder.hpp"
#include "common/util/errors.hpp"
#include "daemon/synthetic_params.hpp"

namespace cuzk::daemon {

namespace {

using steady = std::chrono::steady_clock;

std::uint64_t us_since(steady::time_point t0) {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - t0).count());
}

// An exclusive flock on |path| (created if missing) for the life of the object; waits for it.
class file_lock {
public:
    explicit file_lock(const std::filesystem::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
        if (fd_ < 0) throw input_error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::close(fd_);
            throw input_error(fmt::format("cannot lock {}: {}", path.string(), std::strerror(error)));
        }
    }
    ~file_lock() { ::close(fd_); }
    file_lock(const file_lock&) = delete;
    file_lock& operator=(const file_lock&) = delete;

private:
    int fd_;
};

std::filesystem::path matrix_path(const params_files& files) {
    auto p = files.params;
    return p.replace_extension(".r1cs");
}

std::uint64_t bits_set(const std::vector<std::uint64_t>& words) {
    std::uint64_t n = 0;
    for (auto w : words) n += static_cast<std::uint64_t>(std::popcount(w));
    return n;
}

// The matrices are of the circuit the parameters were made for: the query lengths follow from the counts and
// densities (bellperson's generator), so a file of another circuit (or version) shows here, not as bad proofs.
void check_fit(const r1cs::r1cs_matrices& m, const groth16::parameters& p, const std::filesystem::path& matrices,
               const std::filesystem::path& params) {
    auto refuse = [&](std::string_view what, std::uint64_t in_matrices, std::uint64_t in_params) {
        throw input_error(fmt::format("R1CS matrix file {} does not fit the parameters {}: {} {} against {} (remove "
                                      "it to have it recorded again)",
                                      matrices.string(), params.string(), what, in_matrices, in_params));
    };
    if (m.num_inputs != p.vk.ic.size()) refuse("inputs", m.num_inputs, p.vk.ic.size());
    if (m.num_aux != p.l.size()) refuse("aux variables (L points)", m.num_aux, p.l.size());
    if (m.num_inputs + bits_set(m.a_aux_density) != p.a.size())
        refuse("A query length", m.num_inputs + bits_set(m.a_aux_density), p.a.size());
    if (bits_set(m.b_input_density) + bits_set(m.b_aux_density) != p.b_g1.size())
        refuse("B query length", bits_set(m.b_input_density) + bits_set(m.b_aux_density), p.b_g1.size());
}

// The shapes published parameters exist for (PoRep, PoSt, SnapDeals), which synthetic parameters may stand in for.
bool has_official_files(const std::string& shape) { return has_published_params(shape); }

}  // namespace

std::uint64_t params_bytes(const groth16::parameters& p) {
    return (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) * sizeof(ec::g1_affine_t) +
           p.b_g2.size() * sizeof(ec::g2_affine_t);
}

// Freed with its last user; |on_free_| hears of it first (a backend's device copy goes before the host one).
std::shared_ptr<const groth16::parameters> params_store::own(groth16::parameters&& p) const {
    return std::shared_ptr<const groth16::parameters>(new groth16::parameters(std::move(p)),
                                                      [hook = on_free_](const groth16::parameters* q) {
                                                          if (hook) hook(*q);
                                                          delete q;
                                                      });
}

params_files params_store::files_of(const std::string& shape) const {
    try {
        return resolve_params_files(dir_, shape);
    } catch (const input_error&) {
        if (missing_official_ != missing_official::synthetic || !has_official_files(shape)) throw;
        return official_params_files(dir_, shape);
    }
}

bool params_store::synthesizes(const std::string& shape, const params_files& files) const {
    return missing_official_ == missing_official::synthetic && has_official_files(shape) &&
           !std::filesystem::exists(files.params);
}

void params_store::check_host_room(const std::string& shape, const std::filesystem::path& file, std::uint64_t bytes,
                                   const char* what) const {
    const std::optional<std::uint64_t> available = memory_probe_ ? memory_probe_() : std::nullopt;
    if (host_memory_fits(bytes, available)) return;
    constexpr double gb = 1e9;
    throw std::runtime_error(fmt::format(
        "parameters for {} ({}): {} takes {:.1f} GB of host memory and {:.1f} GB is available (MemAvailable, "
        "{:.1f} GB kept free): not done, as the kernel would kill this process while writing them; free host memory "
        "(`cuzk api evict` other parameter sets, a smaller ring: [ring] slots x slot_bytes) or add memory",
        shape, file.string(), what, double(bytes) / gb, double(*available) / gb, double(HOST_MEMORY_RESERVE) / gb));
}

std::shared_ptr<const groth16::parameters> params_store::synthesize(const std::string& shape,
                                                                    const params_files& files,
                                                                    const r1cs::r1cs_matrices& matrices) {
    const auto t0 = steady::now();
    const auto counts = parameter_counts_of(matrices);
    check_host_room(shape, files.params,
                    counts.g1_points() * sizeof(ec::g1_affine_t) + counts.g2_points() * sizeof(ec::g2_affine_t),
                    "building its synthetic points");
    auto params = own(synthetic_parameters(counts, std::hash<std::string>{}(shape), stopping_.get_token()));
    spdlog::warn("no {}: SYNTHETIC parameters for {} built in memory ([gpud] synthetic_params, a test facility): "
                 "{} G1 and {} G2 pseudo-random points of the circuit's exact sizes ({} bytes) in {} ms on {} "
                 "threads; proofs made with them are NOT valid (set [assemblerd] verify = false)",
                 files.params.string(), shape, counts.g1_points(), counts.g2_points(), params_bytes(*params),
                 us_since(t0) / 1000, tbb::this_task_arena::max_concurrency());
    return params;
}

std::shared_ptr<const groth16::parameters> params_store::load(const std::string& shape, const params_files& files) {
    auto read = [&] {
        // The points take at least the file's bytes in memory (96 and 192 bytes a point there).
        std::error_code size_ec;
        const auto file_bytes = std::filesystem::file_size(files.params, size_ec);
        if (!size_ec) check_host_room(shape, files.params, file_bytes, "reading the file");
        auto params = own(groth16::read_parameters(files.params, ec::subgroup_check::unchecked, stopping_.get_token()));
        spdlog::info("parameters for {} loaded from {}", shape, files.params.string());
        return params;
    };
    if (std::filesystem::exists(files.params)) return read();
    if (has_published_params(shape))  // resolve_params_files found the .vk only
        throw input_error(fmt::format("no parameters for {}: {} exists but {} does not", shape, files.vk.string(),
                                      files.params.string()));
    std::unique_ptr<circuits::circuit> circuit;
    try {
        circuit = circuits::make_circuit(shape);
    } catch (const std::invalid_argument& e) {
        throw input_error(e.what());
    }
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw input_error(fmt::format("cannot create the params directory {}: {}", dir_.string(), ec.message()));
    // Several gpuds (one per GPU) can miss the same shape at once: one generates under <stem>.lock and the others
    // load its files, so every partition is proved (and verified) with one key.
    auto lock_file = files.params;
    file_lock generating(lock_file.replace_extension(".lock"));
    if (std::filesystem::exists(files.params)) return read();
    spdlog::warn("no {}: generating parameters for {} from random toxic waste (test circuits only, insecure)",
                 files.params.string(), shape);
    auto setup = groth16::generate_random_parameters(*circuit);
    const auto tmp = files.vk.string() + ".tmp";
    groth16::write_vk(tmp, setup.params.vk);
    std::filesystem::rename(tmp, files.vk);
    groth16::write_parameters(files.params, setup.params);
    return own(std::move(setup.params));
}

std::shared_ptr<const r1cs::r1cs_matrices> params_store::load_matrices(const std::string& shape,
                                                                       const params_files& files,
                                                                       const groth16::parameters* params) {
    const auto path = matrix_path(files);
    auto read = [&] {
        auto m = std::make_shared<const r1cs::r1cs_matrices>(r1cs::read_matrix_file(path, shape));
        if (params) check_fit(*m, *params, path, files.params);
        spdlog::info("R1CS matrices for {} loaded from {} ({} terms)", shape, path.string(),
                     m->a.non_zeros() + m->b.non_zeros() + m->c.non_zeros());
        return m;
    };
    if (std::filesystem::exists(path)) return read();
    // Recorded by one process at a time (the gpuds of several GPUs may miss it at once); the others read its file.
    std::optional<file_lock> recording;
    try {
        auto lock_file = files.params;
        recording.emplace(lock_file.replace_extension(".r1cs.lock"));
    } catch (const input_error& e) {
        spdlog::warn("{}: recording the matrices without the lock", e.what());
    }
    if (std::filesystem::exists(path)) return read();
    spdlog::info("no {}: recording the R1CS matrices of {} (one blank synthesis of the circuit)", path.string(),
                 shape);
    const auto t0 = steady::now();
    std::shared_ptr<const r1cs::r1cs_matrices> m;
    try {
        m = std::make_shared<const r1cs::r1cs_matrices>(
            shape.starts_with("porep:")
                ? r1cs::record_porep_matrices(porep::registered_proof_by_name(shape.substr(6)), stopping_.get_token())
                : r1cs::record_matrices(*circuits::make_circuit(shape), stopping_.get_token()));
    } catch (const std::invalid_argument& e) {
        throw input_error(e.what());
    }
    if (params) check_fit(*m, *params, path, files.params);
    spdlog::info("R1CS matrices of {} recorded in {} ms", shape, us_since(t0) / 1000);
    // Where the disk lacks the room, the file is left out rather than filled to the last byte (7.7 GB at 32 GiB).
    const auto file_bytes = r1cs::matrix_file_bytes(r1cs::sizes_of(*m), shape.size());
    std::error_code space_error;
    const auto room = std::filesystem::space(path.parent_path(), space_error);
    if (!space_error && room.available < file_bytes + (std::uint64_t(1) << 30)) {
        spdlog::warn("{} not written: it takes {} bytes and {} has {} available (1 GiB kept free); the matrices stay "
                     "in memory only (recorded again by the next process)",
                     path.string(), file_bytes, path.parent_path().string(), room.available);
        return m;
    }
    try {
        r1cs::write_matrix_file(path, *m, shape);
    } catch (const std::exception& e) {
        spdlog::warn("could not keep the recorded matrices in {}: {}; they stay in memory only (recorded again by the "
                     "next process)",
                     path.string(), e.what());
    }
    return m;
}

std::vector<std::string> params_store::keys_of(const std::string& shape) const {
    std::vector<std::string> keys;
    if (const auto official = official_params_files(dir_, shape); !official.params.empty())
        keys.push_back(official.params.string());
    keys.push_back(params_path(dir_, shape).string());
    return keys;
}

params_store::lookup params_store::get(const std::string& spec) {
    const auto shape = circuit_shape(spec);
    std::unique_lock lock(mutex_);
    // Resident: one stat per partition, so that a file replaced since is read again (a set whose file has gone
    // stays in use); nothing else of the directory is looked at.
    for (const auto& key : keys_of(shape)) {
        auto it = sets_.find(key);
        if (it == sets_.end() || !it->second.params) continue;
        const auto now = identity_of(it->second.file);
        if (!now || !it->second.identity || *now == *it->second.identity)
            return {it->second.params, it->second.matrices, true, 0};
        spdlog::warn("{} changed since it was loaded: loading it again (partitions in flight finish with the old "
                     "copy)",
                     it->second.file.string());
        sets_.erase(it);
    }
    lock.unlock();
    const auto files = files_of(shape);
    const auto key = files.params.string();
    const auto t0 = steady::now();
    lock.lock();
    bool waited = false;
    for (auto it = sets_.find(key); it != sets_.end(); it = sets_.find(key)) {
        if (it->second.params) return {it->second.params, it->second.matrices, !waited, waited ? us_since(t0) : 0};
        refuse_if_stopping(shape);
        waited = true;
        loaded_cv_.wait(lock);  // another caller loads it; if that fails, this one tries in its turn
    }
    refuse_if_stopping(shape);
    sets_[key] = entry{shape, files.params, nullptr, nullptr, 0, 0, {}, false};
    const auto identity = identity_of(files.params);  // before reading: a write during the read shows next time
    lock.unlock();
    std::shared_ptr<const groth16::parameters> params;
    std::shared_ptr<const r1cs::r1cs_matrices> matrices;
    const bool synthetic = synthesizes(shape, files);
    try {
        if (synthetic) {  // sized from the matrices
            std::error_code ec;
            std::filesystem::create_directories(dir_, ec);  // for the matrix file; without it they stay in memory
            matrices = load_matrices(shape, files, nullptr);
            params = synthesize(shape, files, *matrices);
        } else {
            params = load(shape, files);
            refuse_if_stopping(shape);  // before minutes of recording the matrices, where their file is missing
            matrices = load_matrices(shape, files, params.get());
        }
    } catch (...) {
        lock.lock();
        sets_.erase(key);
        lock.unlock();
        loaded_cv_.notify_all();
        throw;
    }
    const auto load_us = us_since(t0);
    lock.lock();
    auto& e = sets_[key];
    e.params = params;
    e.matrices = matrices;
    e.bytes = params_bytes(*params);
    e.load_ms = load_us / 1000;
    e.identity = identity;
    e.synthetic = synthetic;
    lock.unlock();
    loaded_cv_.notify_all();
    return {params, matrices, false, load_us};
}

params_store::eviction params_store::evict(const std::string& spec) {
    const auto shape = circuit_shape(spec);
    // Not resolved against the directory: a set stays loaded under the name it was found by, even if the files
    // changed since.
    const auto keys = keys_of(shape);
    if (!shape.starts_with("porep:")) {
        try {
            circuits::check_circuit_spec(shape);  // checked without building it (a post: spec would seal a sector)
        } catch (const std::invalid_argument& e) {
            throw input_error(e.what());
        }
    }
    std::lock_guard lock(mutex_);
    for (const auto& key : keys) {
        auto it = sets_.find(key);
        if (it == sets_.end() || !it->second.params) continue;
        eviction out{true, it->second.bytes, std::move(it->second.params)};
        sets_.erase(it);
        const auto users = out.released.use_count() - 1;
        spdlog::info("parameters {} evicted ({} bytes): freed {}", key, out.freed_bytes,
                     users == 0 ? std::string("now") : fmt::format("after the {} partitions proving with them", users));
        return out;
    }
    return {};
}

std::vector<params_store::resident_set> params_store::loaded() const {
    std::lock_guard lock(mutex_);
    std::vector<resident_set> out;
    for (const auto& [key, e] : sets_) {
        if (!e.params) continue;
        out.push_back({e.circuit, e.file, e.bytes, static_cast<std::uint64_t>(e.params.use_count() - 1), e.load_ms,
                       e.synthetic});
    }
    return out;
}

void params_store::refuse_if_stopping(const std::string& shape) const {
    if (stopping_.stop_requested())
        throw abandoned_error(fmt::format("parameters for {}: not loaded, the process is stopping", shape));
}

void params_store::abandon_loads() {
    {
        std::lock_guard lock(mutex_);  // a caller about to wait sees the request, or is woken below
        stopping_.request_stop();
    }
    loaded_cv_.notify_all();
}

std::vector<std::string> params_store::loading() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [key, e] : sets_)
        if (!e.params) out.push_back(e.circuit);
    return out;
}

}  // namespace cuzk::daemon
