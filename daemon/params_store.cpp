#include "daemon/params_store.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/setup.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

std::string circuit_shape(const std::string& spec) { return spec.substr(0, spec.find('@')); }

namespace {
std::string stem(const std::string& spec) {
    auto s = circuit_shape(spec);
    std::replace(s.begin(), s.end(), ':', '_');
    return s;
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
}  // namespace

std::filesystem::path params_path(const std::filesystem::path& dir, const std::string& spec) {
    return dir / (stem(spec) + ".params");
}
std::filesystem::path vk_path(const std::filesystem::path& dir, const std::string& spec) {
    return dir / (stem(spec) + ".vk");
}

std::shared_ptr<const groth16::parameters> params_store::get(const std::string& spec) {
    const auto shape = circuit_shape(spec);
    // One lock over loading: the first partition of a shape pays for it, the others wait for the same copy.
    std::lock_guard lock(mutex_);
    if (auto it = loaded_.find(shape); it != loaded_.end()) return it->second;
    const auto params_file = params_path(dir_, spec), vk_file = vk_path(dir_, spec);
    std::shared_ptr<const groth16::parameters> params;
    auto load = [&] {
        params = std::make_shared<groth16::parameters>(groth16::read_parameters(params_file));
        spdlog::info("parameters for {} loaded from {}", shape, params_file.string());
    };
    if (std::filesystem::exists(params_file)) {
        load();
    } else if (shape.starts_with("porep:")) {
        // PoRep parameters are never made here (minutes and gigabytes even for 2 KiB, and a production
        // service must prove with the published ones): the partition fails, naming the file.
        throw input_error(fmt::format("no parameters for {}: {} does not exist (PoRep parameters are read from "
                                      "[gpud] params_dir as porep_<registered proof>.params and .vk; test ones "
                                      "come from `cuzk setup --circuit {} --out {}`)",
                                      shape, params_file.string(), shape, dir_.string()));
    } else {
        auto circuit = circuits::make_circuit(shape);
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec) throw input_error(fmt::format("cannot create the params directory {}: {}", dir_.string(), ec.message()));
        // Several gpuds (one per GPU) can miss the same shape at once: one generates under <stem>.lock and
        // the others load its files, so every partition is proved (and verified) with one key.
        file_lock generating(dir_ / (stem(spec) + ".lock"));
        if (std::filesystem::exists(params_file)) {
            load();
        } else {
            spdlog::warn("no {}: generating parameters for {} from random toxic waste (test circuits only, insecure)",
                         params_file.string(), shape);
            auto setup = groth16::generate_random_parameters(*circuit);
            const auto tmp = vk_file.string() + ".tmp";
            groth16::write_vk(tmp, setup.params.vk);
            std::filesystem::rename(tmp, vk_file);
            groth16::write_parameters(params_file, setup.params);
            params = std::make_shared<groth16::parameters>(std::move(setup.params));
        }
    }
    loaded_.emplace(shape, params);
    return params;
}

}  // namespace cuzk::daemon
