// cuzk timeline FILES...: merges the TIMELINE lines of every daemon's log (any prefix before
// "TIMELINE,"; "-" is standard input) and prints the waterfall, GPU gaps and efficiency
// (definitions in common/daemon/timeline_log.hpp). Malformed lines are listed as file:line on stderr
// and skipped; a file that cannot be read, or logs without a single TIMELINE line, exit 2. --svg FILE
// also draws the waterfall as an image (common/daemon/timeline_svg.hpp).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "common/daemon/timeline_log.hpp"
#include "common/daemon/timeline_svg.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {
struct timeline_options {
    std::vector<std::string> files;
    bool json = false;
    int warmup_jobs = 1;
    std::string svg;
};

void write_svg(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out << text;
    if (out) out.close();
    if (!out) throw input_error(path + ": cannot write the SVG (does its folder exist, is it writable?)");
}
}  // namespace

void add_timeline_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<timeline_options>();
    auto* cmd = app.add_subcommand("timeline", "Merge daemon logs: per-partition waterfall, GPU gaps and efficiency");
    cmd->add_option("files", opt->files, "log files of the daemons (journalctl output, stderr captures; - = stdin)")
        ->required();
    cmd->add_flag("--json", opt->json, "print the analysis as JSON");
    cmd->add_option("--warmup-jobs", opt->warmup_jobs,
                    "how many of the first jobs to reach the GPU count as warm-up (default 1; 0 = none)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--svg", opt->svg, "also draw the waterfall, GPU gaps and efficiency as an SVG image in this file");
    cmd->callback([opt, &run] {
        run = [opt] {
            timeline::log_set logs;
            for (const std::string& f : opt->files) timeline::read_log_file(f, logs);
            if (logs.records.empty()) {
                std::string names;
                for (const std::string& f : opt->files) names += (names.empty() ? "" : ", ") + f;
                throw input_error("no well-formed TIMELINE lines in " + names +
                                  (logs.problems.empty() ? "" : " (" + std::to_string(logs.problems.size()) +
                                                                    " malformed; first at " + logs.problems[0].source +
                                                                    ":" + std::to_string(logs.problems[0].line) + ")"));
            }
            timeline::analysis a = timeline::analyze(logs, {opt->warmup_jobs});
            for (const timeline::problem& p : logs.problems) {
                if (p.line > 0) {
                    std::fprintf(stderr, "cuzk timeline: %s:%zu: %s\n", p.source.c_str(), p.line, p.message.c_str());
                } else {
                    std::fprintf(stderr, "cuzk timeline: %s\n", p.message.c_str());
                }
            }
            // The image first: an unwritable path fails before any report is printed.
            if (!opt->svg.empty()) write_svg(opt->svg, timeline::render_svg(a, logs));
            if (opt->json) {
                std::cout << timeline::to_json(a, logs).dump(2) << "\n";
            } else {
                timeline::print_report(std::cout, a, logs);
            }
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
