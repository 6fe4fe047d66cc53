// `cuzk status` against real daemons: by default a few lines (each daemon up or down with its pid and key
// numbers, jobs by state, ring slots in use, GPUs) where it printed ~270 lines of JSON for one job; --json keeps
// the whole document, in its shape ("gpud" and "gpuds" both: tests and users read either).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "ipc/shm_segment.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The line whose label (the first 14 columns) is |label|; empty when none.
std::string line_labelled(const std::vector<std::string>& lines, const std::string& label) {
    for (const auto& l : lines)
        if (l.rfind(label, 0) == 0 && l.size() > 14 && l.substr(0, 14).find_last_not_of(' ') + 1 == label.size())
            return l.substr(14);
    return "";
}

}  // namespace

TEST(PipelineCliStatus, SummaryLinesAndTheWholeDocumentWithJson) {
    cuzk::test::pipeline_options o;
    o.gpud_backend = "cpu";
    pipeline sut(o);
    sut.start_all();
    const std::string cfg = "--config " + sut.config_path().string();
    const auto id = sut.submit_ok("mul:64", 3, 1);
    ASSERT_EQ(sut.await(id).state, ipc::job_state::done);

    const auto status = test::run_command(std::string(CUZK_CLI_PATH) + " status " + cfg, false);
    ASSERT_EQ(status.exit_code, 0) << status.output;
    const auto lines = lines_of(status.output);
    EXPECT_LE(lines.size(), 8u) << status.output;
    EXPECT_EQ(status.output.find('{'), std::string::npos) << "no JSON by default:\n" << status.output;
    EXPECT_EQ(line_labelled(lines, "assemblerd").rfind(fmt::format("up    pid {}, uptime ", sut.pid("assemblerd")), 0),
              0u)
        << status.output;
    EXPECT_NE(line_labelled(lines, "assemblerd").find("0 of max 64 jobs pending"), std::string::npos) << status.output;
    EXPECT_EQ(line_labelled(lines, "synthd"),
              fmt::format("up    pid {}, 1 thread: 0 synthesizing, 0 queued, 0 waiting for a slot; 3 synthesized",
                          sut.pid("synthd")))
        << status.output;
    EXPECT_EQ(line_labelled(lines, "gpud GPU 0"),
              fmt::format("up    pid {}, backend cpu, 2 workers (0 busy), 3 proved", sut.pid("gpud")))
        << status.output;
    EXPECT_EQ(line_labelled(lines, "jobs"), "1 done") << status.output;
    EXPECT_EQ(line_labelled(lines, "ring"), sut.config().ring.name + ": 0 of 4 slots in use, 4.0 MiB each")
        << status.output;
    EXPECT_EQ(line_labelled(lines, "GPU 0"), "no GPU device (cpu backend); CUDA lock " + sut.config().gpud.lock_name +
                                                 " free, 3 acquisitions")
        << status.output;
    // The set gpud loaded for mul:64, its points' size from the status document; the CPU backend gives nothing back.
    const auto set = nlohmann::json::parse(
        test::run_command(std::string(CUZK_CLI_PATH) + " status --json " + cfg, false).output)["gpud"]["params"];
    ASSERT_EQ(set.size(), 1u) << set.dump();
    EXPECT_EQ(line_labelled(lines, "params GPU 0"),
              fmt::format("{} {}", set[0]["circuit"].get<std::string>(),
                          ipc::format_bytes(set[0]["bytes"].get<std::uint64_t>())))
        << status.output;
    EXPECT_EQ(lines.back(), "(`cuzk status --json` for every daemon's whole status)");

    // --json: the whole document as before, "gpud" (the first gpud) and "gpuds" (every one) both kept.
    const auto json = test::run_command(std::string(CUZK_CLI_PATH) + " status --json " + cfg, false);
    ASSERT_EQ(json.exit_code, 0) << json.output;
    const auto j = nlohmann::json::parse(json.output);
    EXPECT_EQ(j["assemblerd"]["jobs"].size(), 1u);
    EXPECT_EQ(j["synthd"]["stage"], "synthd");
    EXPECT_EQ(j["gpud"]["stage"], "gpud");
    ASSERT_EQ(j["gpuds"].size(), 1u);
    EXPECT_EQ(j["gpuds"][0], j["gpud"]);

    // A job waiting for synthesis is counted by state; a daemon that stopped is "down", the others still answer.
    sut.stop("gpud");
    const auto waiting = sut.submit_ok("mul:64", 2, 7);
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::ready) == 2; }));
    const auto partly = test::run_command(std::string(CUZK_CLI_PATH) + " status " + cfg, false);
    EXPECT_EQ(partly.exit_code, 0) << partly.output;
    const auto partly_lines = lines_of(partly.output);
    EXPECT_EQ(line_labelled(partly_lines, "gpud"),
              "down  (no answer on " + (sut.config().runtime.dir / "gpud-0.sock").string() + ")")
        << partly.output;
    EXPECT_EQ(line_labelled(partly_lines, "jobs"), "1 running, 1 done") << partly.output;
    EXPECT_EQ(line_labelled(partly_lines, "ring"),
              sut.config().ring.name + ": 4 slots of 4.0 MiB (which are in use: no gpud answers)")
        << partly.output;
    EXPECT_EQ(line_labelled(partly_lines, "GPU 0"), "") << "no GPU line without a gpud:\n" << partly.output;
    EXPECT_EQ(line_labelled(partly_lines, "params GPU 0"), "") << partly.output;
    sut.start("gpud");
    EXPECT_EQ(sut.await(waiting).state, ipc::job_state::done);
    const auto in_use = test::run_command(std::string(CUZK_CLI_PATH) + " status " + cfg, false);
    EXPECT_EQ(line_labelled(lines_of(in_use.output), "jobs"), "2 done") << in_use.output;

    // None answers: every daemon down, exit 3.
    sut.stop("gpud");
    sut.stop("synthd");
    sut.stop("assemblerd");
    const auto none = test::run_command(std::string(CUZK_CLI_PATH) + " status " + cfg);
    EXPECT_EQ(none.exit_code, 3) << none.output;
    const auto none_lines = lines_of(none.output);
    for (const char* stage : {"assemblerd", "synthd", "gpud"})
        EXPECT_EQ(line_labelled(none_lines, stage).rfind("down  (no answer on ", 0), 0u) << stage << "\n" << none.output;
    EXPECT_EQ(line_labelled(none_lines, "jobs"), "unknown (assemblerd does not answer)") << none.output;
}
