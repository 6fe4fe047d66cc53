// TIMELINE line writing: the exact format, separators inside tokens neutralised, the one clock, and
// whole lines from concurrent threads on a real stderr pipe (one write(2) per line).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "common/daemon/timeline.hpp"

namespace tl = cuzk::timeline;

TEST(timeline_emit, format_line_is_the_documented_format) {
    EXPECT_EQ(tl::format_line(1700000000123, tl::event::gpu_end, "job-7",
                              {{"partition", "3"}, {"worker", "1"}, {"ms", "950"}}),
              "TIMELINE,1700000000123,GPU_END,job-7,partition=3,worker=1,ms=950");
    EXPECT_EQ(tl::format_line(5, tl::event::job_done, "j", {}), "TIMELINE,5,JOB_DONE,j");
}

TEST(timeline_emit, separators_inside_tokens_become_underscores) {
    // A comma in a job id would otherwise shift every field after it; a newline would split the line.
    EXPECT_EQ(tl::format_line(1, "SLOT_READY", "a,b\nc", {{"k=x", "v,1\r"}}),
              "TIMELINE,1,SLOT_READY,a_b_c,k_x=v_1_");
}

TEST(timeline_emit, emit_stamps_now_and_ends_the_line) {
    std::vector<std::string> lines;
    tl::set_sink([&](std::string_view line) { lines.emplace_back(line); });
    std::int64_t before = tl::now_ms();
    tl::emit(tl::event::slot_ready, "42", {{"partition", "0"}, {"slot", "5"}});
    std::int64_t after = tl::now_ms();
    tl::set_sink({});
    ASSERT_EQ(lines.size(), 1u);
    const std::string& line = lines[0];
    ASSERT_EQ(line.rfind("TIMELINE,", 0), 0u) << line;
    ASSERT_EQ(line.back(), '\n');
    std::size_t comma = line.find(',', 9);
    std::int64_t ms = std::stoll(line.substr(9, comma - 9));
    EXPECT_GE(ms, before);
    EXPECT_LE(ms, after);
    EXPECT_EQ(line.substr(comma), ",SLOT_READY,42,partition=0,slot=5\n");
}

TEST(timeline_emit, now_ms_is_the_realtime_clock) {
    // Every process must use CLOCK_REALTIME so their lines merge; compare against time(2).
    std::int64_t ms = tl::now_ms();
    std::int64_t s = static_cast<std::int64_t>(::time(nullptr));
    EXPECT_LE(std::abs(ms / 1000 - s), 1);
}

TEST(timeline_emit, concurrent_lines_on_stderr_never_interleave) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    int saved = ::dup(STDERR_FILENO);
    ASSERT_GE(saved, 0);
    ASSERT_EQ(::dup2(fds[1], STDERR_FILENO), STDERR_FILENO);
    ::close(fds[1]);

    // Read concurrently so the writers never block on a full pipe.
    std::string captured;
    std::thread reader([&] {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(fds[0], buf, sizeof buf)) > 0) captured.append(buf, static_cast<std::size_t>(n));
    });
    constexpr int threads = 8, per_thread = 300;
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t) {
        writers.emplace_back([t] {
            std::string pad(100 + t * 7, 'x');  // lines of different lengths make tearing visible
            for (int i = 0; i < per_thread; ++i) {
                tl::emit(tl::event::gpu_start, "job" + std::to_string(t),
                         {{"worker", std::to_string(t)}, {"i", std::to_string(i)}, {"pad", pad}});
            }
        });
    }
    for (auto& w : writers) w.join();
    ::dup2(saved, STDERR_FILENO);  // closes the pipe's last write end, so the reader sees EOF
    ::close(saved);
    reader.join();
    ::close(fds[0]);

    std::vector<int> next(threads, 0);
    std::size_t pos = 0, count = 0;
    while (pos < captured.size()) {
        std::size_t nl = captured.find('\n', pos);
        ASSERT_NE(nl, std::string::npos) << "unterminated tail";
        std::string line = captured.substr(pos, nl - pos);
        pos = nl + 1;
        ++count;
        ASSERT_EQ(line.rfind("TIMELINE,", 0), 0u) << "torn line: " << line;
        std::size_t w = line.find(",worker=");
        ASSERT_NE(w, std::string::npos) << line;
        int t = std::stoi(line.substr(w + 8));
        ASSERT_EQ(line.find(",GPU_START,job" + std::to_string(t) + ","), line.find(",GPU_START,")) << line;
        std::size_t i = line.find(",i=");
        EXPECT_EQ(std::stoi(line.substr(i + 3)), next[t]) << "thread " << t << " lines out of order";
        ++next[t];
        EXPECT_EQ(line.substr(line.find(",pad=") + 5), std::string(100 + t * 7, 'x')) << line;
    }
    EXPECT_EQ(count, static_cast<std::size_t>(threads * per_thread));
}
