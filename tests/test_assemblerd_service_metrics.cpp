// assemblerd's Prometheus metrics rendered from a status as collect_service_status gathers it: the gauges read
// from each gpud (its parameter sets, its GPU's memory, its backend's counters), with the labels an operator's
// alerts select on, and a text Prometheus' own parser reads back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "assemblerd/service_metrics.hpp"
#include "support/prometheus_parser.hpp"
#include "support/run_command.hpp"

namespace {

// Two gpuds: GPU 0 on the CUDA backend (a device, counters; its side lane turned off), GPU 1 on the CPU backend
// (no device, no counters), as `cuzk status --json` shows them.
nlohmann::json two_gpuds() {
    auto cuda_gpud = nlohmann::json::parse(R"({
        "stage": "gpud", "gpu": 0, "backend": "cuda",
        "backend_counters": {"beside_lock_partitions": 12, "side_lane_off": 1, "out_of_memory_replans": 2,
                             "pinned_bytes": 4294967296},
        "device": {"name": "NVIDIA H200", "total_bytes": 150121218048, "free_bytes": 21474836480},
        "params": [{"circuit": "post:StackedDrgWinning32GiBV1", "bytes": 123456789}],
        "slots": [{"state": "free"}, {"state": "free"}, {"state": "proving"}]})");
    auto cpu_gpud = nlohmann::json::parse(R"({
        "stage": "gpud", "gpu": 1, "backend": "cpu", "backend_counters": {}, "device": null, "params": []})");
    nlohmann::json status;
    status["gpuds"] = nlohmann::json::array({cuda_gpud, cpu_gpud});
    return status;
}

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST(ServiceMetrics, EachGpusMemoryAndBackendCountersAreGaugesLabelledByGpu) {
    cuzk::assemblerd::service_metrics sut;
    const std::string text = sut.render(two_gpuds());
    EXPECT_TRUE(has_line(text, "cuzk_gpu_memory_bytes{gpu=\"0\",state=\"free\"} 21474836480")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_gpu_memory_bytes{gpu=\"0\",state=\"total\"} 150121218048")) << text;
    EXPECT_EQ(text.find("cuzk_gpu_memory_bytes{gpu=\"1\""), std::string::npos) << "the CPU backend has no device";
    EXPECT_TRUE(has_line(text, "cuzk_gpu_backend_counter{gpu=\"0\",counter=\"side_lane_off\"} 1")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_gpu_backend_counter{gpu=\"0\",counter=\"beside_lock_partitions\"} 12")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_gpu_backend_counter{gpu=\"0\",counter=\"out_of_memory_replans\"} 2")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_gpu_backend_counter{gpu=\"0\",counter=\"pinned_bytes\"} 4294967296")) << text;
    EXPECT_EQ(text.find("cuzk_gpu_backend_counter{gpu=\"1\""), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, "cuzk_params_resident{gpu=\"0\"} 1")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_params_resident{gpu=\"1\"} 0")) << text;
    EXPECT_TRUE(has_line(text, "cuzk_ring_slots{state=\"free\"} 2")) << text;
}

// A gpud that stopped answering drops out of the status: its series go with it at the next scrape, rather than
// showing its last values as if it still ran.
TEST(ServiceMetrics, AGpudGoneFromTheStatusLeavesNoSeriesBehind) {
    cuzk::assemblerd::service_metrics sut;
    (void)sut.render(two_gpuds());
    nlohmann::json none;
    none["gpuds"] = nlohmann::json::array();
    const std::string text = sut.render(none);
    EXPECT_EQ(text.find("cuzk_gpu_memory_bytes{"), std::string::npos) << text;
    EXPECT_EQ(text.find("cuzk_gpu_backend_counter{"), std::string::npos) << text;
}

TEST(ServiceMetrics, TheTextParsesWithPrometheusOwnParser) {
    const auto python = cuzk::test::python_with_prometheus_client();
    ASSERT_FALSE(python.empty()) << "no python3 can import prometheus_client (Debian python3-prometheus-client; "
                                    "./dev.sh installs it)";
    cuzk::assemblerd::service_metrics sut;
    const auto dir = std::filesystem::temp_directory_path() / ("cuzk-service-metrics-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "metrics.txt") << sut.render(two_gpuds());
    std::ofstream(dir / "parse.py") << R"(import sys
from prometheus_client.parser import text_string_to_metric_families
samples = {}
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in family.samples:
        samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
off = samples[("cuzk_gpu_backend_counter", (("counter", "side_lane_off"), ("gpu", "0")))]
free = samples[("cuzk_gpu_memory_bytes", (("gpu", "0"), ("state", "free")))]
print(f"side_lane_off={off:g} free={free:.0f}")
)";
    const auto parsed = cuzk::test::run_command(python + " " + (dir / "parse.py").string() + " " +
                                                (dir / "metrics.txt").string());
    std::filesystem::remove_all(dir);
    ASSERT_EQ(parsed.exit_code, 0) << parsed.output;
    EXPECT_NE(parsed.output.find("side_lane_off=1 free=21474836480"), std::string::npos) << parsed.output;
}
