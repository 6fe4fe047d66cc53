// `cuzk timeline` end to end: two daemons' logs in files, the JSON and text reports, malformed lines
// on stderr as file:line while the report still comes out, and exit 2 naming a missing file.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct cli_result {
    int exit_code = -1;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class timeline_cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cuzk-timeline-cli-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        // GPU 0: A/0 [1000,1100], A/1 [1120,1220], B/0 [1800,1900]; busy 300 of a 900 ms span.
        // Gap 1100->1120 = 20 ms: A/1 READY since 1050 -> overhead. Gap 1220->1800 = 580 ms: B/0 READY
        // only at 1700 -> synthesis stall. Warm-up = job A until 1220.
        write("gpud.log",
              "[info] gpud ready\n"
              "TIMELINE,1000,GPU_START,A,partition=0\n"
              "TIMELINE,1100,GPU_END,A,partition=0\n"
              "TIMELINE,1120,GPU_START,A,partition=1\n"
              "TIMELINE,1220,GPU_END,A,partition=1\n"
              "TIMELINE,oops\n"
              "TIMELINE,1800,GPU_START,B,partition=0\n"
              "TIMELINE,1900,GPU_END,B,partition=0\n");
        write("synthd.log",
              "TIMELINE,1050,SLOT_READY,A,partition=1\n"
              "TIMELINE,1700,SLOT_READY,B,partition=0\n");
        write("empty.log", "[info] nothing to see\n");
    }
    void TearDown() override { fs::remove_all(dir_); }

    void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    cli_result run(const std::string& args) {
        fs::path out = dir_ / "stdout", err = dir_ / "stderr";
        std::string cmd = std::string(CUZK_CLI_PATH) + " " + args + " >" + out.string() + " 2>" + err.string();
        int status = std::system(cmd.c_str());
        cli_result r;
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }

    fs::path dir_;
};

}  // namespace

TEST_F(timeline_cli, json_report) {
    cli_result r = run("timeline --json " + path("gpud.log") + " " + path("synthd.log"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["events"], 8);
    EXPECT_EQ(j["all"]["busy_ms"], 300);
    EXPECT_EQ(j["all"]["span_ms"], 900);
    EXPECT_EQ(j["all"]["gaps"]["under_50ms"], 1);
    EXPECT_EQ(j["all"]["gaps"]["50_to_500ms"], 0);
    EXPECT_EQ(j["all"]["gaps"]["over_500ms"], 1);
    EXPECT_EQ(j["all"]["synthesis_stalls"]["ms"], 580);
    EXPECT_EQ(j["all"]["overhead"]["ms"], 20);
    EXPECT_EQ(j["warmup_phase"]["busy_ms"], 200);
    EXPECT_EQ(j["warmup_phase"]["span_ms"], 220);
    EXPECT_EQ(j["steady"]["busy_ms"], 100);
    EXPECT_EQ(j["steady"]["span_ms"], 680);
    // The malformed line is reported and skipped, not fatal.
    EXPECT_NE(r.err.find(path("gpud.log") + ":6: malformed TIMELINE line"), std::string::npos) << r.err;
}

TEST_F(timeline_cli, text_report) {
    cli_result r = run("timeline " + path("synthd.log") + " " + path("gpud.log"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Waterfall"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("33.3% (300 of 900 ms)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("90.9% (200 of 220 ms)"), std::string::npos) << r.out;  // warm-up
    EXPECT_NE(r.out.find("14.7% (100 of 680 ms)"), std::string::npos) << r.out;  // steady state
}

TEST_F(timeline_cli, dash_reads_standard_input) {
    // As in `journalctl -u 'cuzk-*' -o cat | cuzk timeline -`.
    cli_result r = run("timeline --json - " + path("synthd.log") + " < " + path("gpud.log"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["all"]["busy_ms"], 300);
    EXPECT_EQ(j["sources"][0], "<stdin>");
    EXPECT_NE(r.err.find("<stdin>:6: malformed TIMELINE line"), std::string::npos) << r.err;
}

TEST_F(timeline_cli, missing_file_exits_2_naming_it) {
    cli_result r = run("timeline " + path("gpud.log") + " " + path("no-such.log"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(path("no-such.log")), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(timeline_cli, logs_without_timeline_lines_exit_2) {
    cli_result r = run("timeline " + path("empty.log"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no well-formed TIMELINE lines in " + path("empty.log")), std::string::npos) << r.err;
}

TEST_F(timeline_cli, no_files_is_a_usage_error) {
    EXPECT_EQ(run("timeline").exit_code, 2);
    EXPECT_EQ(run("timeline --warmup-jobs -1 " + path("gpud.log")).exit_code, 2);
}
