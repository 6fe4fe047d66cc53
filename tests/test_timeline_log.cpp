// Analysis of TIMELINE logs over synthetic logs whose answers are worked out by hand in the comments:
// parsing with log prefixes, malformed lines with file:line, the merge of several daemons' files, the
// waterfall, gap buckets, stall/overhead classification, efficiency, warm-up vs steady state, and kernels run
// beside the lock.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/daemon/timeline_log.hpp"

namespace tl = cuzk::timeline;

namespace {

void add(tl::log_set& logs, const std::string& name, const std::string& text) {
    std::istringstream in(text);
    tl::read_log(in, name, logs);
}

bool has_problem(const tl::log_set& logs, const std::string& source, std::size_t line, const std::string& part) {
    for (const tl::problem& p : logs.problems) {
        if (p.source == source && p.line == line && p.message.find(part) != std::string::npos) return true;
    }
    return false;
}

const tl::partition_row& row(const tl::analysis& a, const std::string& job, std::int64_t partition) {
    for (const tl::partition_row& r : a.partitions) {
        if (r.job == job && r.partition == partition) return r;
    }
    throw std::runtime_error("no row " + job + "/" + std::to_string(partition));
}

// One GPU, jobs A (2 partitions), B (2), C (1); three daemons' logs with spdlog and journald prefixes.
// Under the lock: A/0 [1110,1210], A/1 [1230,1330], B/0 [1500,1600], B/1 [1700,1800], C/0 [2400,2500].
// Gaps on GPU 0:
//   1210->1230 = 20 ms  (<50)     A/1 claimed by a worker of GPU 0 since 1152       -> overhead
//   1330->1500 = 170 ms (50-500)  B/0 READY only at 1400, nothing claimed           -> synthesis stall
//   1600->1700 = 100 ms (50-500)  B/1 claimed since 1550                            -> overhead
//   1800->2400 = 600 ms (>500)    C/0 READY only at 2390                            -> synthesis stall
// Busy 5 x 100 = 500 ms over the span 1110..2500 = 1390 ms. Warm-up = job A, until its last GPU_END
// 1330: busy 200 of 220 ms, gap 1; steady 1330..2500 = 1170 ms, busy 300, gaps 2..4.
const char* synthd_log =
    "[2026-12-01 00:00:00.000] [info] synthd: ready\n"
    "[2026-12-01 00:00:01.000] [info] TIMELINE,1000,SYNTH_START,A,partition=0\n"
    "[2026-12-01 00:00:01.000] [info] TIMELINE,1000,SYNTH_START,A,partition=1\n"
    "TIMELINE,1100,SYNTH_END,A,partition=0,ms=100\n"
    "TIMELINE,1100,SLOT_READY,A,partition=0,slot=0\n"
    "TIMELINE,1150,SYNTH_END,A,partition=1,ms=150\n"
    "TIMELINE,1150,SLOT_READY,A,partition=1,slot=1\n"
    "TIMELINE,1200,SYNTH_START,B,partition=0\n"
    "TIMELINE,1200,SYNTH_START,B,partition=1\n"
    "TIMELINE,1300,SYNTH_START,C,partition=0\n"
    "TIMELINE,1400,SYNTH_END,B,partition=0\n"
    "TIMELINE,1400,SLOT_READY,B,partition=0,slot=0\n"
    "TIMELINE,1500,SYNTH_END,B,partition=1\n"
    "TIMELINE,1500,SLOT_READY,B,partition=1,slot=1\n"
    "TIMELINE,2390,SYNTH_END,C,partition=0\n"
    "TIMELINE,2390,SLOT_READY,C,partition=0,slot=0\n";

const char* gpud_log =
    "Dec 01 00:00:01 host cuzk-gpud[77]: TIMELINE,1105,GPU_PICKUP,A,partition=0,worker=0,slot=0\n"
    "Dec 01 00:00:01 host cuzk-gpud[77]: TIMELINE,1110,LOCK_WAIT,A,partition=0,worker=0,ms=0\n"
    "Dec 01 00:00:01 host cuzk-gpud[77]: TIMELINE,1110,GPU_START,A,partition=0,worker=0\n"  // line 3
    "Dec 01 00:00:01 host cuzk-gpud[77]: TIMELINE,1152,GPU_PICKUP,A,partition=1,worker=1,slot=1\n"
    "TIMELINE,1160,LOCK_WAIT,A,partition=1,worker=1\n"
    "TIMELINE,1210,GPU_END,A,partition=0,worker=0,ms=100\n"
    "TIMELINE,1230,GPU_START,A,partition=1,worker=1\n"
    "TIMELINE,12x0,GPU_START,A,partition=1\n"  // line 8: malformed timestamp
    "TIMELINE,1250,TAIL_END,A,partition=0,worker=0\n"
    "TIMELINE,1251,PARTITION_DONE,A,partition=0\n"
    "TIMELINE,1330,GPU_END,A,partition=1,worker=1\n"
    "TIMELINE,1370,TAIL_END,A,partition=1,worker=1\n"
    "TIMELINE,1400,GPU_PICKUP,B,partition=0,worker=0,slot=0\n"
    "TIMELINE,1500,GPU_START,B,partition=0,worker=0\n"
    "TIMELINE,1550,GPU_PICKUP,B,partition=1,worker=1,slot=1\n"
    "TIMELINE,1600,GPU_END,B,partition=0,worker=0\n"
    "TIMELINE,1640,TAIL_END,B,partition=0,worker=0\n"
    "TIMELINE,1700,GPU_START,B,partition=1,worker=1\n"
    "TIMELINE,1800,GPU_END,B,partition=1,worker=1\n"
    "TIMELINE,1830,TAIL_END,B,partition=1,worker=1\n"
    "TIMELINE,1850,GPU_END,B,worker=1\n"  // line 21: no partition=
    "TIMELINE,2395,GPU_PICKUP,C,partition=0,worker=0,slot=0\n"
    "TIMELINE,2400,GPU_START,C,partition=0,worker=0\n"
    "TIMELINE,2500,GPU_END,C,partition=0,worker=0\n";

const char* assemblerd_log =
    "TIMELINE,990,JOB_SUBMIT,A\n"
    "TIMELINE,995,JOB_SUBMIT,B\n"
    "TIMELINE,996,JOB_SUBMIT,C\n"
    "[info] job A assembled\n"
    "TIMELINE,1400,JOB_DONE,A\n"
    "TIMELINE,1900,JOB_DONE,B\n";

tl::log_set one_gpu_logs() {
    tl::log_set logs;
    // assemblerd first: the merge must not depend on the order the files are named in.
    add(logs, "assemblerd.log", assemblerd_log);
    add(logs, "gpud.log", gpud_log);
    add(logs, "synthd.log", synthd_log);
    return logs;
}

}  // namespace

TEST(timeline_log, parse_line_finds_timeline_behind_any_prefix) {
    auto p = tl::parse_line("Dec 01 host cuzk-gpud[1]: TIMELINE,17,GPU_END,job-1,partition=2,worker=1,gpu=3,ms=9\r");
    ASSERT_TRUE(p.rec) << p.error;
    EXPECT_EQ(p.rec->ms, 17);
    EXPECT_EQ(p.rec->event, "GPU_END");
    EXPECT_EQ(p.rec->job, "job-1");
    ASSERT_EQ(p.rec->fields.size(), 4u);
    EXPECT_EQ(*p.rec->find("gpu"), "3");
    EXPECT_EQ(p.rec->find("slot"), nullptr);

    auto bare = tl::parse_line("TIMELINE,5,JOB_DONE,j");
    ASSERT_TRUE(bare.rec);
    EXPECT_TRUE(bare.rec->fields.empty());
    EXPECT_TRUE(tl::parse_line("TIMELINE,5,JOB_DONE,j,").rec);  // a trailing comma is tolerated

    EXPECT_FALSE(tl::parse_line("[info] synthd ready").is_timeline);
    EXPECT_FALSE(tl::parse_line("MY_TIMELINE,5,JOB_DONE,j").is_timeline);  // not a word boundary
}

TEST(timeline_log, parse_line_rejects_malformed_lines_with_a_reason) {
    struct bad_case {
        const char* line;
        const char* reason;
    };
    for (const bad_case& c : {bad_case{"TIMELINE,abc,GPU_END,j,partition=1", "timestamp \"abc\""},
                              bad_case{"TIMELINE,-5,GPU_END,j,partition=1", "timestamp \"-5\""},
                              bad_case{"TIMELINE,5,GPU_END", "expected TIMELINE"},
                              bad_case{"TIMELINE,5,gpu_end,j,partition=1", "EVENT_NAME"},
                              bad_case{"TIMELINE,5,GPU_END,,partition=1", "empty job"},
                              bad_case{"TIMELINE,5,GPU_END,j,partition", "not key=value"},
                              bad_case{"TIMELINE,5,GPU_END,j,partition=x", "partition=x is not an integer"},
                              bad_case{"TIMELINE,5,GPU_END,j,partition=1,ms=1.5", "ms=1.5"},
                              bad_case{"TIMELINE,5,SLOT_READY,j,slot=1", "SLOT_READY without partition="}}) {
        auto p = tl::parse_line(c.line);
        EXPECT_TRUE(p.is_timeline) << c.line;
        EXPECT_FALSE(p.rec) << c.line;
        EXPECT_NE(p.error.find(c.reason), std::string::npos) << c.line << " -> " << p.error;
    }
}

TEST(timeline_log, malformed_lines_are_named_by_file_and_line_and_skipped) {
    tl::log_set logs = one_gpu_logs();
    EXPECT_EQ(logs.problems.size(), 2u);
    EXPECT_TRUE(has_problem(logs, "gpud.log", 8, "timestamp \"12x0\""));
    EXPECT_TRUE(has_problem(logs, "gpud.log", 21, "GPU_END without partition="));
    EXPECT_EQ(logs.records.size(), 15u + 22u + 5u);  // every other TIMELINE line of the three files
    EXPECT_EQ(logs.lines, 16u + 24u + 6u);
}

TEST(timeline_log, waterfall_rows) {
    tl::log_set logs = one_gpu_logs();
    tl::analysis a = tl::analyze(logs);
    ASSERT_EQ(a.partitions.size(), 5u);
    EXPECT_EQ(*a.origin_ms, 990);
    // Rows in order of their first event: A/0 and A/1 (1000), B/0 and B/1 (1200), C/0 (1300).
    EXPECT_EQ(a.partitions[0].job + std::to_string(a.partitions[0].partition), "A0");
    EXPECT_EQ(a.partitions[4].job, "C");

    const tl::partition_row& a1 = row(a, "A", 1);
    EXPECT_EQ(*a1.synth_end - *a1.synth_start, 150);
    EXPECT_EQ(*a1.pickup - *a1.slot_ready, 2);
    EXPECT_EQ(*a1.lock_wait_ms, 70);  // LOCK_WAIT without ms= at 1160, GPU_START at 1230
    EXPECT_EQ(*a1.gpu_end - *a1.gpu_start, 100);
    EXPECT_EQ(*a1.tail_end - *a1.gpu_end, 40);
    EXPECT_EQ(a1.worker, "1");
    EXPECT_EQ(a1.slot, "1");
    EXPECT_EQ(a1.gpu, "0");
    EXPECT_EQ(a1.attempts, 1);
    EXPECT_TRUE(a1.warmup);
    EXPECT_EQ(*row(a, "A", 0).lock_wait_ms, 0);  // the ms= field wins
    EXPECT_FALSE(row(a, "B", 0).lock_wait_ms);
    EXPECT_FALSE(row(a, "C", 0).warmup);

    ASSERT_EQ(a.jobs.size(), 3u);
    EXPECT_EQ(a.jobs[0].job, "A");
    EXPECT_EQ(*a.jobs[0].done - *a.jobs[0].submit, 410);
    EXPECT_EQ(a.jobs[0].partitions, 2u);
    EXPECT_FALSE(a.jobs[2].done);
}

TEST(timeline_log, gaps_classification_and_efficiency_on_one_gpu) {
    tl::log_set logs = one_gpu_logs();
    tl::analysis a = tl::analyze(logs);
    ASSERT_EQ(a.intervals.size(), 5u);
    ASSERT_EQ(a.gaps.size(), 4u);
    EXPECT_EQ(a.gaps[0].ms(), 20);
    EXPECT_FALSE(a.gaps[0].stall);
    EXPECT_TRUE(a.gaps[0].warmup);
    EXPECT_EQ(a.gaps[1].ms(), 170);
    EXPECT_TRUE(a.gaps[1].stall);
    EXPECT_EQ(a.gaps[2].ms(), 100);
    EXPECT_FALSE(a.gaps[2].stall);
    EXPECT_EQ(a.gaps[3].ms(), 600);
    EXPECT_TRUE(a.gaps[3].stall);
    EXPECT_EQ(a.gaps[3].after_job, "B");
    EXPECT_EQ(a.gaps[3].after_partition, 1);

    EXPECT_EQ(a.warmup_jobs, std::vector<std::string>{"A"});
    EXPECT_EQ(*a.warmup_end_ms, 1330);

    EXPECT_EQ(a.all.busy_ms, 500);
    EXPECT_EQ(a.all.span_ms, 1390);
    EXPECT_DOUBLE_EQ(*a.all.efficiency(), 500.0 / 1390.0);
    EXPECT_EQ(a.all.gaps_under_50, 1u);
    EXPECT_EQ(a.all.gaps_50_to_500, 2u);
    EXPECT_EQ(a.all.gaps_over_500, 1u);
    EXPECT_EQ(a.all.stalls, 2u);
    EXPECT_EQ(a.all.stall_ms, 770);
    EXPECT_EQ(a.all.overheads, 2u);
    EXPECT_EQ(a.all.overhead_ms, 120);
    EXPECT_EQ(a.all.busy_ms + a.all.stall_ms + a.all.overhead_ms, a.all.span_ms);  // one GPU, no overlap

    EXPECT_EQ(a.warmup.busy_ms, 200);
    EXPECT_EQ(a.warmup.span_ms, 220);
    EXPECT_EQ(a.warmup.gaps_under_50, 1u);
    EXPECT_EQ(a.warmup.stalls, 0u);
    EXPECT_EQ(a.warmup.overhead_ms, 20);

    EXPECT_EQ(a.steady.busy_ms, 300);
    EXPECT_EQ(a.steady.span_ms, 1170);
    EXPECT_EQ(a.steady.gaps_under_50, 0u);
    EXPECT_EQ(a.steady.gaps_50_to_500, 2u);
    EXPECT_EQ(a.steady.gaps_over_500, 1u);
    EXPECT_EQ(a.steady.stalls, 2u);
    EXPECT_EQ(a.steady.stall_ms, 770);
    EXPECT_EQ(a.steady.overheads, 1u);
    EXPECT_EQ(a.steady.overhead_ms, 100);
    ASSERT_EQ(a.gpus.size(), 1u);
    EXPECT_EQ(a.gpus[0].gpu, "0");
}

TEST(timeline_log, warmup_jobs_option) {
    tl::log_set none = one_gpu_logs();
    tl::analysis a = tl::analyze(none, {0});
    EXPECT_TRUE(a.warmup_jobs.empty());
    EXPECT_FALSE(a.warmup.efficiency());
    EXPECT_EQ(a.steady.busy_ms, 500);
    EXPECT_EQ(a.steady.span_ms, 1390);

    // Warm-up A and B: it ends at B's last GPU_END 1800; steady 1800..2500 holds gap 4 and C/0.
    tl::log_set two = one_gpu_logs();
    a = tl::analyze(two, {2});
    EXPECT_EQ(*a.warmup_end_ms, 1800);
    EXPECT_EQ(a.warmup.busy_ms, 400);
    EXPECT_EQ(a.warmup.span_ms, 690);
    EXPECT_EQ(a.steady.busy_ms, 100);
    EXPECT_EQ(a.steady.span_ms, 700);
    EXPECT_EQ(a.steady.gaps_over_500, 1u);

    // Every job warm-up: no steady state to report.
    tl::log_set all = one_gpu_logs();
    a = tl::analyze(all, {9});
    EXPECT_EQ(a.warmup_jobs.size(), 3u);
    EXPECT_FALSE(a.steady.efficiency());
    EXPECT_EQ(a.warmup.busy_ms, 500);
}

// Two GPUs, warm-up off. gpu 0: X/0 [0,100], X/2 [130,230]; gpu 1: X/1 [10,110], X/3 [400,500].
// X/2 READY at 50, claimed by GPU 0 at 105; X/3 READY at 300, claimed by GPU 1 at 390.
//   gpu 0 gap 100->130 = 30: at 100 X/2 is READY and unclaimed             -> overhead
//   gpu 1 gap 110->400 = 290: at 110 X/2 is claimed by GPU 0, not GPU 1    -> synthesis stall
// Efficiency: gpu 0 200/230, gpu 1 200/490, together 400/720.
TEST(timeline_log, stalls_are_judged_per_gpu) {
    tl::log_set logs;
    add(logs, "gpud0.log",
        "TIMELINE,0,GPU_START,X,partition=0,gpu=0\n"
        "TIMELINE,100,GPU_END,X,partition=0,gpu=0\n"
        "TIMELINE,105,GPU_PICKUP,X,partition=2,gpu=0,worker=1\n"
        "TIMELINE,130,GPU_START,X,partition=2,gpu=0\n"
        "TIMELINE,230,GPU_END,X,partition=2,gpu=0\n");
    add(logs, "gpud1.log",
        "TIMELINE,10,GPU_START,X,partition=1,gpu=1\n"
        "TIMELINE,110,GPU_END,X,partition=1,gpu=1\n"
        "TIMELINE,390,GPU_PICKUP,X,partition=3,gpu=1\n"
        "TIMELINE,400,GPU_START,X,partition=3,gpu=1\n"
        "TIMELINE,500,GPU_END,X,partition=3,gpu=1\n");
    add(logs, "synthd.log",
        "TIMELINE,50,SLOT_READY,X,partition=2\n"
        "TIMELINE,300,SLOT_READY,X,partition=3\n");
    tl::analysis a = tl::analyze(logs, {0});
    EXPECT_TRUE(logs.problems.empty());
    ASSERT_EQ(a.gpus.size(), 2u);
    ASSERT_EQ(a.gaps.size(), 2u);
    for (const tl::gap& g : a.gaps) {
        if (g.gpu == "0") {
            EXPECT_EQ(g.ms(), 30);
            EXPECT_FALSE(g.stall);
        } else {
            EXPECT_EQ(g.ms(), 290);
            EXPECT_TRUE(g.stall);
        }
    }
    EXPECT_EQ(a.gpus[0].all.busy_ms, 200);
    EXPECT_EQ(a.gpus[0].all.span_ms, 230);
    EXPECT_EQ(a.gpus[1].all.busy_ms, 200);
    EXPECT_EQ(a.gpus[1].all.span_ms, 490);
    EXPECT_DOUBLE_EQ(*a.all.efficiency(), 400.0 / 720.0);
    EXPECT_EQ(a.all.stalls, 1u);
    EXPECT_EQ(a.all.overheads, 1u);
}

TEST(timeline_log, contradictions_are_reported_and_not_counted_twice) {
    tl::log_set logs;
    add(logs, "gpud.log",
        "TIMELINE,0,GPU_START,J,partition=0\n"       // line 1: the worker died under the lock
        "TIMELINE,500,GPU_START,J,partition=0\n"     // the partition proved again after a restart
        "TIMELINE,600,GPU_END,J,partition=0\n"
        "TIMELINE,550,GPU_START,K,partition=0\n"     // overlaps J/0 on the same GPU
        "TIMELINE,650,GPU_END,K,partition=0\n"
        "TIMELINE,700,GPU_END,K,partition=1\n");    // line 6: no GPU_START
    tl::analysis a = tl::analyze(logs, {0});
    EXPECT_TRUE(has_problem(logs, "gpud.log", 1, "no GPU_END before the next GPU_START"));
    EXPECT_TRUE(has_problem(logs, "gpud.log", 6, "without a GPU_START"));
    bool overlap = false;
    for (const tl::problem& p : logs.problems) overlap |= p.message.find("not exclusive") != std::string::npos;
    EXPECT_TRUE(overlap);
    EXPECT_EQ(row(a, "J", 0).attempts, 2);
    ASSERT_EQ(a.intervals.size(), 2u);
    // Busy is the union [500,650], never more than the span.
    EXPECT_EQ(a.all.busy_ms, 150);
    EXPECT_EQ(a.all.span_ms, 150);
    EXPECT_TRUE(a.gaps.empty());
}

TEST(timeline_log, json_carries_the_same_numbers) {
    tl::log_set logs = one_gpu_logs();
    tl::analysis a = tl::analyze(logs);
    nlohmann::json j = tl::to_json(a, logs);
    EXPECT_EQ(j["all"]["busy_ms"], 500);
    EXPECT_EQ(j["all"]["span_ms"], 1390);
    EXPECT_EQ(j["steady"]["gaps"]["50_to_500ms"], 2);
    EXPECT_EQ(j["steady"]["synthesis_stalls"]["ms"], 770);
    EXPECT_EQ(j["warmup_phase"]["span_ms"], 220);
    EXPECT_EQ(j["warmup"]["jobs"][0], "A");
    EXPECT_EQ(j["partitions"].size(), 5u);
    EXPECT_EQ(j["gaps"][1]["kind"], "synthesis_stall");
    EXPECT_EQ(j["problems"][0]["file"], "gpud.log");
    EXPECT_EQ(j["problems"].size(), 2u);
    std::ostringstream text;
    tl::print_report(text, a, logs);
    EXPECT_NE(text.str().find("36.0%"), std::string::npos) << text.str();  // 500/1390 = 35.97%
}

// A WinningPoSt's kernels beside the lock's holder (GPU_START beside=lock): its interval overlaps the holder's by
// design, so no broken lock is reported; it is busy time, counted once in the union, and splits no gap.
TEST(timeline_log, an_interval_beside_the_lock_is_busy_and_no_contradiction) {
    tl::log_set logs;
    add(logs, "gpud.log",
        "TIMELINE,0,GPU_START,P,partition=0\n"
        "TIMELINE,100,GPU_START,W,partition=0,beside=lock\n"
        "TIMELINE,140,GPU_END,W,partition=0\n"
        "TIMELINE,1000,GPU_END,P,partition=0\n"
        "TIMELINE,1010,GPU_START,P,partition=1\n"
        "TIMELINE,2000,GPU_END,P,partition=1\n");
    tl::analysis a = tl::analyze(logs, {0});
    for (const tl::problem& p : logs.problems) ADD_FAILURE() << p.message;
    ASSERT_EQ(a.intervals.size(), 3u);
    EXPECT_EQ(std::count_if(a.intervals.begin(), a.intervals.end(), [](const auto& iv) { return iv.beside_lock; }),
              1);
    EXPECT_EQ(a.all.busy_ms, 1990);
    EXPECT_EQ(a.all.span_ms, 2000);
    ASSERT_EQ(a.gaps.size(), 1u);
    EXPECT_EQ(a.gaps[0].ms(), 10);
}
