// Progress of long commands when stderr is not a terminal (a pipe here, as under systemd or `| tee log`):
// separate lines with the elapsed time, printed on each change and every --progress-interval seconds while
// nothing changes, never carriage-return updates (which a log keeps as one unreadable line) and never silence.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

// The lines of |text| that start with |prefix|.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (l.rfind(prefix, 0) == 0) out.push_back(l);
    return out;
}

}  // namespace

TEST(PipelineCliProgress, SetupPrintsStepsAndHeartbeatsAsLinesWhenPiped) {
    const auto dir = std::filesystem::temp_directory_path() / ("cuzk-progress-" + std::to_string(::getpid()));
    // sha256:2 takes about 2 s on two cores: at 1-second intervals the step shows again while it runs.
    const auto r = test::run_command(std::string(CUZK_CLI_PATH) + " setup --circuit sha256:2 --out " + dir.string() +
                                     " --progress-interval 1 2>&1 >/dev/null | cat");
    std::filesystem::remove_all(dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find('\r'), std::string::npos) << "no carriage returns in a log:\n" << r.output;
    const auto lines = lines_starting(r.output, "setup sha256:2: ");
    const std::regex line(R"(setup sha256:2: (started|generating the parameters|writing .*sha256_2\.params|done), )"
                          R"(\d+\.\d s elapsed)");
    for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
    ASSERT_GE(lines.size(), 4u) << r.output;
    EXPECT_NE(lines.front().find("started"), std::string::npos) << r.output;
    EXPECT_NE(lines.back().find("done"), std::string::npos) << r.output;
    // A heartbeat while the step runs, where it ran long enough for one (about 2 s on two cores; a large host
    // may be done within the second).
    const double took = std::stod(lines.back().substr(lines.back().find(", ") + 2));
    if (took >= 1.5) {
        EXPECT_GE(lines_starting(r.output, "setup sha256:2: generating the parameters").size(), 2u) << r.output;
    }
}

TEST(PipelineCliProgress, ProveThroughTheServicePrintsALinePerChangeWhenPiped) {
    pipeline sut;
    sut.start_all();
    const auto proof = (sut.dir() / "proof.bin").string();
    const auto r = test::run_command(std::string(CUZK_CLI_PATH) + " prove --config " + sut.config_path().string() +
                                     " --circuit mul:4096 --partitions 4 --out " + proof +
                                     " --progress-interval 1 2>&1 >/dev/null | cat");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find('\r'), std::string::npos) << r.output;
    const auto lines = lines_starting(r.output, "job ");
    const std::regex line(R"(job \d+ submitted|job \d+: (queued|running|done), [0-4]/4 partitions proved, )"
                          R"(\d+\.\d s elapsed)");
    for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
    ASSERT_GE(lines.size(), 2u) << r.output;  // submitted, done
    EXPECT_NE(lines.front().find(" submitted"), std::string::npos) << r.output;
    EXPECT_NE(lines.back().find(": done, 4/4 partitions proved, "), std::string::npos) << r.output;
    // A state on the way, where the job ran long enough to be seen running at the 1-second interval (about 2 s
    // on two cores; under 1 s on a fast or idle host, seen once in CI, whose first answer is then "done").
    const double took = std::stod(lines.back().substr(lines.back().find("proved, ") + 8));
    if (took >= 1.5) {
        EXPECT_GE(lines.size(), 3u) << r.output;
    }
}
