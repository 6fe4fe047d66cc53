// The load check of the API: 50 concurrent Prove calls (each its own request, a small test circuit) through the
// daemons on the CPU backend: every call completes, no job or proof is handed to two calls, and the latency
// percentiles are printed (BENCHMARKS.md keeps the figures of `cuzk api load`).
#include <gtest/gtest.h>

#include <string>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using cuzk::test::pipeline;

TEST(PipelineApiLoad, FiftyConcurrentProveCallsAllCompleteOnce) {
    pipeline sut({.synth_threads = 2, .gpud_workers = 2, .gpud_backend = "cpu"});
    sut.start_all();
    const auto r = cuzk::test::run_cuzk("api load --config " + (sut.dir() / "cuzk.toml").string() +
                                        " --calls 50 --circuit mul:64");
    std::printf("%s", r.output.c_str());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("50 completed, 50 distinct jobs, 50 distinct proofs, 0 failed"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("latency ms: p50"), std::string::npos) << r.output;
}
