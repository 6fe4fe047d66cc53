// The metrics registry renders the Prometheus text exposition format 0.0.4 that Prometheus's own parser reads
// back (checked with python3-prometheus-client's parser, which ./dev.sh installs), refuses what Prometheus would
// reject, and stays consistent under concurrent updates; busy_window gives the GPU busy fraction of a window.
#include <gtest/gtest.h>

#include "common/metrics/busy_window.hpp"
#include "support/prometheus_parser.hpp"
#include "common/metrics/metric_registry.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace cuzk;
using metrics::busy_window;
using metrics::registry;

TEST(MetricsRegistry, RendersHelpTypeAndCounterSamplesInRegistrationOrder) {
    registry sut;
    auto& failed = sut.counter("cuzk_proofs_failed_total", "Proofs failed", {"proof_kind"});
    auto& completed = sut.counter("cuzk_proofs_completed_total", "Proofs completed", {"proof_kind"});
    completed.add({"porep_c2"}, 2);
    completed.add({"winning_post"});
    failed.add({"porep_c2"}, 0);  // a child reported at 0 before its first failure
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_proofs_failed_total Proofs failed\n"
              "# TYPE cuzk_proofs_failed_total counter\n"
              "cuzk_proofs_failed_total{proof_kind=\"porep_c2\"} 0\n"
              "# HELP cuzk_proofs_completed_total Proofs completed\n"
              "# TYPE cuzk_proofs_completed_total counter\n"
              "cuzk_proofs_completed_total{proof_kind=\"porep_c2\"} 2\n"
              "cuzk_proofs_completed_total{proof_kind=\"winning_post\"} 1\n");
    EXPECT_EQ(completed.value({"porep_c2"}), 2);
    EXPECT_EQ(completed.value({"window_post"}), 0);
}

TEST(MetricsRegistry, FamiliesWithoutLabelsReportZeroFromRegistration) {
    registry sut;
    sut.counter("cuzk_daemon_restarts_total", "Daemon restarts seen");
    sut.gauge("cuzk_synthd_budget_bytes", "Budget");
    sut.histogram("cuzk_lock_wait_seconds", "Lock wait", {}, {1});
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_daemon_restarts_total Daemon restarts seen\n"
              "# TYPE cuzk_daemon_restarts_total counter\n"
              "cuzk_daemon_restarts_total 0\n"
              "# HELP cuzk_synthd_budget_bytes Budget\n"
              "# TYPE cuzk_synthd_budget_bytes gauge\n"
              "cuzk_synthd_budget_bytes 0\n"
              "# HELP cuzk_lock_wait_seconds Lock wait\n"
              "# TYPE cuzk_lock_wait_seconds histogram\n"
              "cuzk_lock_wait_seconds_bucket{le=\"1\"} 0\n"
              "cuzk_lock_wait_seconds_bucket{le=\"+Inf\"} 0\n"
              "cuzk_lock_wait_seconds_sum 0\n"
              "cuzk_lock_wait_seconds_count 0\n");
}

TEST(MetricsRegistry, EscapesLabelValuesAndHelpText) {
    registry sut;
    auto& g = sut.gauge("cuzk_test_gauge", "back\\slash and\nnewline \"quotes\" kept", {"path", "kind"});
    g.set({"a\\b\"c\nd", "plain"}, 1.5);
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_test_gauge back\\\\slash and\\nnewline \"quotes\" kept\n"
              "# TYPE cuzk_test_gauge gauge\n"
              "cuzk_test_gauge{path=\"a\\\\b\\\"c\\nd\",kind=\"plain\"} 1.5\n");
}

TEST(MetricsRegistry, HistogramBucketsAreCumulativeWithInfSumAndCount) {
    registry sut;
    auto& h = sut.histogram("cuzk_proof_duration_seconds", "Proof duration", {"proof_kind"}, {0.5, 1, 5});
    for (double v : {0.5, 0.75, 3.0, 100.0}) h.observe({"porep_c2"}, v);  // 0.5 falls in le="0.5": bounds are inclusive
    h.observe({"winning_post"}, 0.25);
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_proof_duration_seconds Proof duration\n"
              "# TYPE cuzk_proof_duration_seconds histogram\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"porep_c2\",le=\"0.5\"} 1\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"porep_c2\",le=\"1\"} 2\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"porep_c2\",le=\"5\"} 3\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"porep_c2\",le=\"+Inf\"} 4\n"
              "cuzk_proof_duration_seconds_sum{proof_kind=\"porep_c2\"} 104.25\n"
              "cuzk_proof_duration_seconds_count{proof_kind=\"porep_c2\"} 4\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"winning_post\",le=\"0.5\"} 1\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"winning_post\",le=\"1\"} 1\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"winning_post\",le=\"5\"} 1\n"
              "cuzk_proof_duration_seconds_bucket{proof_kind=\"winning_post\",le=\"+Inf\"} 1\n"
              "cuzk_proof_duration_seconds_sum{proof_kind=\"winning_post\"} 0.25\n"
              "cuzk_proof_duration_seconds_count{proof_kind=\"winning_post\"} 1\n");
    EXPECT_EQ(h.count({"porep_c2"}), 4u);
    EXPECT_EQ(h.sum({"porep_c2"}), 104.25);
}

TEST(MetricsRegistry, GaugeResetAndReplaceDropLabelSetsThatLeftTheSnapshot) {
    registry sut;
    auto& g = sut.gauge("cuzk_ring_slots", "Ring slots by state", {"state"});
    g.set({"free"}, 3);
    g.set({"filled"}, 2);
    g.add({"free"}, -1);
    EXPECT_EQ(g.value({"free"}), 2);
    g.reset();
    g.set({"free"}, 5);
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_ring_slots Ring slots by state\n"
              "# TYPE cuzk_ring_slots gauge\n"
              "cuzk_ring_slots{state=\"free\"} 5\n");
    g.replace({{{"gpu"}, 1}, {{"filled"}, 4}});
    EXPECT_EQ(sut.render(),
              "# HELP cuzk_ring_slots Ring slots by state\n"
              "# TYPE cuzk_ring_slots gauge\n"
              "cuzk_ring_slots{state=\"filled\"} 4\n"
              "cuzk_ring_slots{state=\"gpu\"} 1\n");
    EXPECT_THROW(g.replace({{{"free", "extra"}, 1}}), std::invalid_argument);
    EXPECT_EQ(g.value({"filled"}), 4) << "a refused replace left the family as it was";
}

TEST(MetricsRegistry, FormatsValuesAsPrometheusReadsThem) {
    EXPECT_EQ(metrics::format_value(3), "3");
    EXPECT_EQ(metrics::format_value(0.1), "0.1");
    EXPECT_EQ(metrics::format_value(-2.5), "-2.5");
    EXPECT_EQ(metrics::format_value(137438953472.0), "137438953472");  // 128 GiB in bytes, no exponent
    EXPECT_EQ(metrics::format_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(metrics::format_value(-std::numeric_limits<double>::infinity()), "-Inf");
    EXPECT_EQ(metrics::format_value(std::nan("")), "NaN");
    EXPECT_EQ(std::stod(metrics::format_value(1e-9)), 1e-9);
    EXPECT_EQ(std::stod(metrics::format_value(0.1 + 0.2)), 0.1 + 0.2) << "the shortest text that reads back exactly";
}

TEST(MetricsRegistry, RefusesCounterDecreasesAndMalformedUpdates) {
    registry sut;
    auto& c = sut.counter("cuzk_proofs_completed_total", "Proofs completed", {"proof_kind"});
    EXPECT_THROW(c.add({"porep_c2"}, -1), std::invalid_argument);
    EXPECT_THROW(c.add({"porep_c2"}, std::nan("")), std::invalid_argument);
    EXPECT_THROW(c.add({}, 1), std::invalid_argument);
    EXPECT_THROW(c.add({"porep_c2", "extra"}, 1), std::invalid_argument);
    EXPECT_EQ(c.value({"porep_c2"}), 0);
    auto& h = sut.histogram("cuzk_gpu_seconds", "GPU seconds", {}, {1});
    EXPECT_THROW(h.observe({}, std::nan("")), std::invalid_argument);
    try {
        c.add({"porep_c2"}, -2);
        FAIL() << "a negative add was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cuzk_proofs_completed_total"), std::string::npos) << e.what();
    }
}

TEST(MetricsRegistry, SameDefinitionReturnsTheSameFamilyAnotherThrows) {
    registry sut;
    auto& c = sut.counter("cuzk_proofs_completed_total", "Proofs completed", {"proof_kind"});
    EXPECT_EQ(&sut.counter("cuzk_proofs_completed_total", "Proofs completed", {"proof_kind"}), &c);
    EXPECT_THROW(sut.gauge("cuzk_proofs_completed_total", "x", {"proof_kind"}), std::invalid_argument);
    EXPECT_THROW(sut.counter("cuzk_proofs_completed_total", "x", {"kind"}), std::invalid_argument);
    EXPECT_THROW(sut.counter("cuzk_proofs_completed_total", "x"), std::invalid_argument);
    auto& h = sut.histogram("cuzk_proof_duration_seconds", "x", {"proof_kind"}, {1, 10});
    EXPECT_EQ(&sut.histogram("cuzk_proof_duration_seconds", "x", {"proof_kind"}, {1, 10}), &h);
    EXPECT_THROW(sut.histogram("cuzk_proof_duration_seconds", "x", {"proof_kind"}, {1, 20}), std::invalid_argument);
    try {
        sut.gauge("cuzk_proofs_completed_total", "x", {"proof_kind"});
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("already registered as a counter"), std::string::npos) << e.what();
    }
    EXPECT_NE(sut.render().find("# TYPE cuzk_proofs_completed_total counter\n"), std::string::npos);
}

TEST(MetricsRegistry, RefusesNamesAndBucketsPrometheusWouldReject) {
    registry sut;
    EXPECT_THROW(sut.counter("", "x"), std::invalid_argument);
    EXPECT_THROW(sut.counter("9lives_total", "x"), std::invalid_argument);
    EXPECT_THROW(sut.counter("cuzk-proofs", "x"), std::invalid_argument);
    EXPECT_THROW(sut.gauge("cuzk_ok", "x", {"bad-label"}), std::invalid_argument);
    EXPECT_THROW(sut.gauge("cuzk_ok", "x", {"__reserved"}), std::invalid_argument);
    EXPECT_THROW(sut.gauge("cuzk_ok", "x", {"state", "state"}), std::invalid_argument);
    EXPECT_THROW(sut.histogram("cuzk_h", "x", {"le"}, {1}), std::invalid_argument);
    EXPECT_THROW(sut.histogram("cuzk_h", "x", {}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(sut.histogram("cuzk_h", "x", {}, {2, 1}), std::invalid_argument);
    EXPECT_THROW(sut.histogram("cuzk_h", "x", {}, {1, std::numeric_limits<double>::infinity()}), std::invalid_argument);
    EXPECT_NO_THROW(sut.gauge("cuzk:recorded_rule", "x", {"_ok1"}));
    EXPECT_EQ(sut.render().find("cuzk_h"), std::string::npos) << "a refused family was registered";
}

TEST(MetricsRegistry, ConcurrentUpdatesAreAllCounted) {
    registry sut;
    auto& c = sut.counter("cuzk_events_total", "Events", {"kind"});
    auto& h = sut.histogram("cuzk_event_seconds", "Event seconds", {"kind"}, {0.5});
    constexpr int threads = 8;
    constexpr int per_thread = 20000;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const std::string kind = t % 2 ? "odd" : "even";
            for (int i = 0; i < per_thread; ++i) {
                c.add({kind});
                h.observe({kind}, 1);
            }
        });
    }
    // Renders while the updates run: each sees whole updates only (checked by the parser test's format).
    for (int i = 0; i < 50; ++i) EXPECT_NE(sut.render().find("# TYPE cuzk_events_total counter"), std::string::npos);
    for (auto& w : workers) w.join();
    EXPECT_EQ(c.value({"odd"}) + c.value({"even"}), threads * per_thread);
    EXPECT_EQ(h.count({"odd"}) + h.count({"even"}), static_cast<std::uint64_t>(threads * per_thread));
    EXPECT_EQ(h.sum({"odd"}), threads / 2 * per_thread);
}

namespace {

std::string run_and_capture(const std::string& command, int& status) {
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
        status = -1;
        return out;
    }
    std::array<char, 4096> buf{};
    while (const auto n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
    status = ::pclose(pipe);
    return out;
}

// Reads the exposition with prometheus_client's parser and prints what it understood as JSON; sample values
// as repr() text, since JSON has no infinities.
constexpr const char* parse_script = R"(
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1], encoding='utf-8').read()
out = []
for f in text_string_to_metric_families(text):
    out.append({'name': f.name, 'type': f.type, 'help': f.documentation,
                'samples': [{'name': s.name, 'labels': s.labels, 'value': repr(s.value)} for s in f.samples]})
print(json.dumps(out))
)";

}  // namespace

TEST(MetricsRegistry, PrometheusParserReadsTheRenderedText) {
    const auto python = cuzk::test::python_with_prometheus_client();
    ASSERT_FALSE(python.empty()) << "no python3 can import prometheus_client (Debian package "
                                    "python3-prometheus-client; ./dev.sh installs it)";

    registry sut;
    const std::string tricky = "quote\" back\\slash\nnewline é";
    auto& c = sut.counter("cuzk_proofs_completed_total", "Proofs completed, by \\ kind\nsecond line", {"proof_kind", "note"});
    c.add({"porep_c2", tricky}, 3);
    c.add({"winning_post", ""}, 1);
    auto& g = sut.gauge("cuzk_params_resident_bytes", "Parameter bytes resident", {"circuit"});
    g.set({"porep-32g"}, 137438953472.0);
    g.set({"unbounded"}, std::numeric_limits<double>::infinity());
    g.set({"fraction"}, 0.1 + 0.2);
    auto& h = sut.histogram("cuzk_proof_duration_seconds", "Proof duration", {"proof_kind"}, {0.1, 1, 10});
    for (double v : {0.05, 0.5, 2.0, 20.0, 30.0}) h.observe({tricky}, v);

    const auto dir = std::filesystem::temp_directory_path() / fmt::format("cuzk-test-metrics-{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "metrics.txt", std::ios::binary) << sut.render();
    std::ofstream(dir / "parse.py") << parse_script;
    int status = 0;
    const auto out = run_and_capture(
        fmt::format("{} {} {} 2>&1", python, (dir / "parse.py").string(), (dir / "metrics.txt").string()), status);
    std::filesystem::remove_all(dir);
    ASSERT_EQ(status, 0) << "the parser refused the text:\n" << out;

    const auto families = nlohmann::json::parse(out);
    ASSERT_EQ(families.size(), 3u) << out;
    // prometheus_client names a counter family without its _total suffix; its sample keeps it.
    EXPECT_EQ(families[0]["name"], "cuzk_proofs_completed");
    EXPECT_EQ(families[0]["type"], "counter");
    EXPECT_EQ(families[0]["help"], "Proofs completed, by \\ kind\nsecond line");
    ASSERT_EQ(families[0]["samples"].size(), 2u);
    EXPECT_EQ(families[0]["samples"][0]["name"], "cuzk_proofs_completed_total");
    EXPECT_EQ(families[0]["samples"][0]["labels"]["note"], tricky);
    EXPECT_EQ(std::stod(families[0]["samples"][0]["value"].get<std::string>()), 3);
    EXPECT_EQ(families[0]["samples"][1]["labels"]["note"], "");

    EXPECT_EQ(families[1]["name"], "cuzk_params_resident_bytes");
    EXPECT_EQ(families[1]["type"], "gauge");
    std::map<std::string, double> gauges;
    for (const auto& s : families[1]["samples"]) gauges[s["labels"]["circuit"]] = std::stod(s["value"].get<std::string>());
    EXPECT_EQ(gauges["porep-32g"], 137438953472.0);
    EXPECT_EQ(gauges["unbounded"], std::numeric_limits<double>::infinity());
    EXPECT_EQ(gauges["fraction"], 0.1 + 0.2);

    EXPECT_EQ(families[2]["name"], "cuzk_proof_duration_seconds");
    EXPECT_EQ(families[2]["type"], "histogram");
    std::vector<std::pair<std::string, double>> buckets;
    double sum = -1, count = -1;
    for (const auto& s : families[2]["samples"]) {
        EXPECT_EQ(s["labels"]["proof_kind"], tricky);
        const double v = std::stod(s["value"].get<std::string>());
        if (s["name"] == "cuzk_proof_duration_seconds_bucket") buckets.emplace_back(s["labels"]["le"], v);
        if (s["name"] == "cuzk_proof_duration_seconds_sum") sum = v;
        if (s["name"] == "cuzk_proof_duration_seconds_count") count = v;
    }
    ASSERT_EQ(buckets.size(), 4u);
    const std::vector<std::pair<double, double>> expected = {{0.1, 1}, {1, 2}, {10, 3}, {std::numeric_limits<double>::infinity(), 5}};
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        EXPECT_EQ(std::stod(buckets[i].first), expected[i].first) << "le=" << buckets[i].first;
        EXPECT_EQ(buckets[i].second, expected[i].second) << "le=" << buckets[i].first;
    }
    EXPECT_EQ(sum, 0.05 + 0.5 + 2.0 + 20.0 + 30.0);
    EXPECT_EQ(count, 5);
}

TEST(MetricsBusyWindow, FractionOfTheWindowCoveredByIntervalsClippedToIt) {
    busy_window sut(1000);
    sut.record(0, 100, 350);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1000), 0.25);
    sut.record(0, -500, 200);  // started before the window [0, 1000]: only 0..200 counts, 100..200 once
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1000), 0.35);
    sut.record(0, 900, 1600);  // still running past now: only 900..1000 counts
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1000), 0.45);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1600), 0.7) << "window [600, 1600]: only 900..1600";
}

TEST(MetricsBusyWindow, OverlappingWorkersOfOneGpuCountOnceAndNeverAboveOne) {
    busy_window sut(1000);
    sut.record(3, 0, 600);    // worker A
    sut.record(3, 400, 1000); // worker B overlaps A by 200 ms
    EXPECT_DOUBLE_EQ(sut.busy_fraction(3, 1000), 1.0);
    sut.record(3, 100, 200);  // nested inside A
    sut.record(3, 0, 1000);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(3, 1000), 1.0);

    busy_window gaps(1000);
    gaps.record(1, 0, 300);
    gaps.record(1, 200, 400);  // A and B overlap 200..300: busy 0..400
    gaps.record(1, 600, 700);
    gaps.record(1, 650, 800);  // busy 600..800
    EXPECT_DOUBLE_EQ(gaps.busy_fraction(1, 1000), 0.6);
}

TEST(MetricsBusyWindow, GpusAreIndependentAndAnUnknownGpuIsIdle) {
    busy_window sut(60'000);
    sut.record(0, 0, 30'000);
    sut.record(1, 0, 15'000);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 60'000), 0.5);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(1, 60'000), 0.25);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(7, 60'000), 0.0);
    EXPECT_EQ(sut.gpus(), (std::vector<int>{0, 1}));
    EXPECT_EQ(sut.window_ms(), 60'000);
}

TEST(MetricsBusyWindow, OldIntervalsAgeOutButTheGpuStaysListed) {
    busy_window sut(1000);
    sut.record(0, 0, 1000);
    sut.record(1, 2'500, 2'900);  // newest end 2900: GPU 0's interval (end 1000) may still be asked for
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1'900), 0.1);
    sut.record(1, 10'000, 10'500);  // two windows past GPU 0's interval: dropped
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1'900), 0.0);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 10'500), 0.0);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(1, 10'500), 0.5);
    EXPECT_EQ(sut.gpus(), (std::vector<int>{0, 1}));
    // An interval reported late but still inside the window counts.
    sut.record(0, 9'800, 10'000);
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 10'500), 0.2);
}

TEST(MetricsBusyWindow, RefusesBackwardIntervalsAndAnEmptyWindow) {
    EXPECT_THROW(busy_window(0), std::invalid_argument);
    busy_window sut(1000);
    EXPECT_THROW(sut.record(0, 500, 400), std::invalid_argument);
    EXPECT_NO_THROW(sut.record(0, 500, 500));
    EXPECT_DOUBLE_EQ(sut.busy_fraction(0, 1000), 0.0);
}
