// gpud's backend names ([gpud] backend): "auto" takes the CUDA backend only when this build has it and the
// configured GPU is present, else the CPU backend, and says which and why in an info line; "cpu" always;
// "cuda" is strict. Runs in every build (with or without nvcc) and on machines without a GPU (CI).
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

#include "common/util/errors.hpp"
#include "gpud/proving_backend.hpp"
#ifdef CUZK_GPUD_HAVE_CUDA
#include "gpud/cuda/cuda_error.hpp"
#endif

using namespace cuzk;

namespace {

// Number of CUDA devices this process sees (0 in a build without CUDA), and why none.
int gpus_here(std::string* why) {
#ifdef CUZK_GPUD_HAVE_CUDA
    return cuda::device_count(why);
#else
    *why = "built without CUDA";
    return 0;
#endif
}

// make_backend(name, gpu) with the log lines it wrote.
struct made {
    std::unique_ptr<gpud::proving_backend> backend;
    std::string log;
};

made make_logged(std::string_view name, int gpu) {
    std::ostringstream out;
    auto previous = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
    made m;
    try {
        m.backend = gpud::make_backend(name, gpu);
    } catch (...) {
        spdlog::set_default_logger(previous);
        throw;
    }
    spdlog::set_default_logger(previous);
    m.log = out.str();
    return m;
}

}  // namespace

// Without the configured GPU, auto is the CPU backend and the log says why: no CUDA device at all on a machine
// without one (CI), or the index past the last GPU where there are GPUs.
TEST(GpudBackendSelection, AutoIsTheCpuBackendWithoutTheConfiguredGpuAndSaysWhy) {
    std::string why;
    const int n = gpus_here(&why);
    const int gpu = n > 0 ? n + 2 : 0;
    const auto m = make_logged("auto", gpu);
    ASSERT_TRUE(m.backend);
    EXPECT_EQ(m.backend->name(), "cpu");
    const std::string reason =
        n > 0 ? "backend auto: no CUDA GPU " + std::to_string(gpu) + " (" : std::string("backend auto: no CUDA device: ");
    EXPECT_NE(m.log.find(reason), std::string::npos) << m.log;
    EXPECT_NE(m.log.find("using the CPU backend"), std::string::npos) << m.log;
}

TEST(GpudBackendSelection, AutoTakesCudaExactlyWhenTheConfiguredGpuIsPresent) {
    std::string why;
    const int n = gpus_here(&why);
    const auto m = make_logged("auto", 0);
    EXPECT_EQ(m.backend->name(), n > 0 ? "cuda" : "cpu") << why;
    EXPECT_NE(m.log.find(n > 0 ? "using the CUDA backend" : "using the CPU backend"), std::string::npos) << m.log;
    // A GPU index beyond the devices present falls back to the CPU, on any machine.
    const auto beyond = make_logged("auto", n + 7);
    EXPECT_EQ(beyond.backend->name(), "cpu");
    EXPECT_NE(beyond.log.find("using the CPU backend"), std::string::npos) << beyond.log;
}

TEST(GpudBackendSelection, CpuIsAlwaysTheCpuBackend) {
    EXPECT_EQ(gpud::make_backend("cpu", 0)->name(), "cpu");
    EXPECT_EQ(gpud::make_backend("cpu", 12)->name(), "cpu");
}

TEST(GpudBackendSelection, CudaIsStrictWithoutTheGpu) {
    std::string why;
    const int n = gpus_here(&why);
    try {
        (void)gpud::make_backend("cuda", n + 3);
        FAIL() << "make_backend(\"cuda\") without GPU " << n + 3 << " returned a backend";
    } catch (const std::exception& e) {
#ifdef CUZK_GPUD_HAVE_CUDA
        EXPECT_NE(dynamic_cast<const cuda::cuda_error*>(&e), nullptr) << e.what();
        EXPECT_NE(std::string(e.what()).find("GPU " + std::to_string(n + 3)), std::string::npos) << e.what();
#else
        EXPECT_NE(dynamic_cast<const input_error*>(&e), nullptr) << e.what();
        EXPECT_NE(std::string(e.what()).find("built without CUDA"), std::string::npos) << e.what();
#endif
    }
}

TEST(GpudBackendSelection, UnknownNamesAreRefusedNamingTheChoices) {
    try {
        (void)gpud::make_backend("opencl", 0);
        FAIL() << "make_backend(\"opencl\") returned a backend";
    } catch (const input_error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("backend 'opencl'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("auto, cpu"), std::string::npos) << msg;
    }
}

TEST(GpudBackendSelection, ParamsPlacementNamesRoundTripAndOthersAreRefused) {
    using gpud::params_placement;
    for (auto p : {params_placement::automatic, params_placement::device, params_placement::host, params_placement::split})
        EXPECT_EQ(gpud::parse_params_placement(gpud::to_string(p)), p);
    EXPECT_EQ(gpud::parse_params_placement("auto"), params_placement::automatic);
    try {
        (void)gpud::parse_params_placement("gpu");
        FAIL() << "\"gpu\" parsed";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("[gpud] params_memory must be \"auto\", \"device\", \"host\" or \"split\", not \"gpu\""),
                  std::string::npos)
            << e.what();
    }
}
