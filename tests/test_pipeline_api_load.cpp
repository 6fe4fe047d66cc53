// The load check of the API: 50 concurrent Prove calls (each its own request, a small test circuit) through the
// daemons on the CPU backend: every call completes, no job or proof is handed to two calls, and the latency
// percentiles are printed (BENCHMARKS.md keeps the figures of `cuzk api load`). Then the service's metrics,
// read through the API as a scraper would, parse with Prometheus' own parser and count those 50 proofs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/pipeline.hpp"
#include "support/prometheus_parser.hpp"
#include "support/run_command.hpp"

using cuzk::test::pipeline;

TEST(PipelineApiLoad, FiftyConcurrentProveCallsAllCompleteOnce) {
    pipeline sut({.synth_threads = 2, .gpud_workers = 2, .gpud_backend = "cpu"});
    sut.start_all();
    const std::string cfg = " --config " + (sut.dir() / "cuzk.toml").string();
    const auto r = cuzk::test::run_cuzk("api load" + cfg + " --calls 50 --circuit mul:64");
    std::printf("%s", r.output.c_str());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("50 completed, 50 distinct jobs, 50 distinct proofs, 0 failed"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("latency ms: p50"), std::string::npos) << r.output;

    const auto python = cuzk::test::python_with_prometheus_client();
    ASSERT_FALSE(python.empty()) << "no python3 can import prometheus_client (Debian python3-prometheus-client; "
                                    "./dev.sh installs it)";
    const auto metrics = cuzk::test::run_command(std::string(CUZK_CLI_PATH) + " api metrics" + cfg, false);
    ASSERT_EQ(metrics.exit_code, 0) << metrics.output;
    const auto text = sut.dir() / "metrics.txt";
    std::ofstream(text) << metrics.output;
    const auto script = sut.dir() / "parse.py";
    std::ofstream(script) << R"(import sys
from prometheus_client.parser import text_string_to_metric_families
samples = {}
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in family.samples:
        samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
completed = samples[("cuzk_proofs_completed_total", (("proof_kind", "test_circuit"),))]
proved = samples[("cuzk_cuda_lock_hold_seconds_count", (("proof_kind", "test_circuit"),))]
slots = sum(v for (name, labels), v in samples.items() if name == "cuzk_ring_slots")
print(f"completed={completed:g} partitions={proved:g} slots={slots:g}")
)";
    const auto parsed = cuzk::test::run_command(python + " " + script.string() + " " + text.string());
    ASSERT_EQ(parsed.exit_code, 0) << parsed.output << metrics.output;
    EXPECT_NE(parsed.output.find("completed=50 partitions=50 slots=4"), std::string::npos) << parsed.output;
}
