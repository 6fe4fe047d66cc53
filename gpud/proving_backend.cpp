#include "gpud/proving_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/errors.hpp"
#include "gpud/cpu_backend.hpp"
#ifdef CUZK_GPUD_HAVE_CUDA
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"
#endif

namespace cuzk::gpud {

params_placement parse_params_placement(std::string_view text) {
    if (text == "auto") return params_placement::automatic;
    if (text == "device") return params_placement::device;
    if (text == "host") return params_placement::host;
    if (text == "split") return params_placement::split;
    throw input_error(
        fmt::format("[gpud] params_memory must be \"auto\", \"device\", \"host\" or \"split\", not \"{}\"", text));
}

const char* to_string(params_placement p) {
    switch (p) {
        case params_placement::automatic: return "auto";
        case params_placement::device: return "device";
        case params_placement::host: return "host";
        case params_placement::split: return "split";
    }
    return "?";
}

std::unique_ptr<proving_backend> make_backend(std::string_view name, int gpu, const cuda_settings& cuda) {
    if (name == "cpu") return std::make_unique<cpu_backend>();
#ifdef CUZK_GPUD_HAVE_CUDA
    auto make_cuda = [&] {
        return std::make_unique<cuda_backend>(gpu, cuda);
    };
    if (name == "cuda") return make_cuda();  // strict: throws cuda_error without the GPU
    if (name == "auto") {
        std::string why;
        const int n = cuda::device_count(&why);
        if (gpu >= 0 && gpu < n) {
            spdlog::info("[gpud] backend auto: CUDA GPU {} found ({} device(s)): using the CUDA backend", gpu, n);
            return make_cuda();
        }
        if (n == 0) {
            spdlog::info("[gpud] backend auto: no CUDA device: {}: using the CPU backend",
                         why.empty() ? "none found" : why);
        } else {
            spdlog::info("[gpud] backend auto: no CUDA GPU {} ({} device(s): 0..{}): using the CPU backend", gpu, n,
                         n - 1);
        }
        return std::make_unique<cpu_backend>();
    }
    throw input_error(fmt::format("[gpud] backend '{}' is not available in this build (available: auto, cpu, cuda)",
                                  name));
#else
    (void)gpu;
    (void)cuda;
    if (name == "auto") {
        spdlog::info("[gpud] backend auto: no CUDA device: this build has no CUDA backend (built without nvcc): "
                     "using the CPU backend");
        return std::make_unique<cpu_backend>();
    }
    throw input_error(fmt::format(
        "[gpud] backend '{}' is not available in this build (available: auto, cpu; built without CUDA)", name));
#endif
}

}  // namespace cuzk::gpud
