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

std::unique_ptr<proving_backend> make_backend(std::string_view name, int gpu) {
    if (name == "cpu") return std::make_unique<cpu_backend>();
#ifdef CUZK_GPUD_HAVE_CUDA
    if (name == "cuda") return std::make_unique<cuda_backend>(gpu);
    if (name == "auto") {
        std::string why;
        const int n = cuda::device_count(&why);
        if (gpu >= 0 && gpu < n) return std::make_unique<cuda_backend>(gpu);
        spdlog::info("[gpud] backend auto: no CUDA GPU {} ({} device(s){}{}): using the CPU backend", gpu, n,
                     why.empty() ? "" : ": ", why);
        return std::make_unique<cpu_backend>();
    }
    throw input_error(fmt::format("[gpud] backend '{}' is not available in this build (available: cpu, cuda, auto)",
                                  name));
#else
    (void)gpu;
    if (name == "auto") {
        spdlog::info("[gpud] backend auto: this build has no CUDA backend: using the CPU backend");
        return std::make_unique<cpu_backend>();
    }
    throw input_error(fmt::format(
        "[gpud] backend '{}' is not available in this build (available: cpu, auto; built without CUDA)", name));
#endif
}

}  // namespace cuzk::gpud
