// cuzk: the command-line client. Parses the command, runs it, and maps failures to exit codes (command.hpp):
// bad input or usage -> 2 with a message naming the file/field/offset; a busy service -> 5; a permission this
// user lacks -> 6 naming the path and the fix; anything unexpected -> 4 with "internal error" in front, so a bug
// is never mistaken for a negative answer or for bad input.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <system_error>

#include "cli/access_check.hpp"
#include "cli/client_errors.hpp"
#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "common/util/errors.hpp"
#include "common/util/version.hpp"

namespace cuzk::cli {

const char* const exit_codes_help =
    "Exit codes:\n"
    "  0  success\n"
    "  1  a negative answer: the proof is invalid, the job failed or was cancelled\n"
    "  2  bad input or usage: the message names the file, field or option\n"
    "  3  service unavailable: no daemon answers (`cuzk up`, or check --runtime-dir / --config)\n"
    "  4  internal error: a bug or a resource failure (out of memory, disk full)\n"
    "  5  service busy: the job queue is full ([assemblerd] max_pending_jobs); retry later\n"
    "  6  permission denied on a socket or file: the message names it and the fix\n";

}  // namespace cuzk::cli

namespace {

bool is_permission_error(const std::error_code& ec) {
    return ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace cuzk::cli;
    CLI::App app{"cuzk: Groth16 proving for Filecoin (BLS12-381)"};
    app.footer(exit_codes_help);
    app.set_version_flag("--version", cuzk::version_string());
    app.require_subcommand(1);
    action run;
    add_circuits_command(app, run);
    add_setup_command(app, run);
    add_prove_command(app, run);
    add_verify_command(app, run);
    add_demo_command(app, run);
    add_submit_command(app, run);
    add_await_command(app, run);
    add_cancel_command(app, run);
    add_status_command(app, run);
    add_bench_command(app, run);
    add_up_command(app, run);
    add_down_command(app, run);
    add_timeline_command(app, run);
    add_circuit_info_command(app, run);
    add_verify_seal_command(app, run);
    add_seal_test_command(app, run);
    add_prove_c2_command(app, run);
    add_prove_post_command(app, run);
    add_verify_post_command(app, run);
    add_prove_update_command(app, run);
    add_verify_update_command(app, run);
    add_config_reference_command(app, run);
    add_api_command(app, run);
    spdlog::set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? exit_ok : exit_bad_input;
    }
    try {
        return run ? run() : exit_bad_input;
    } catch (const service_busy& e) {
        std::fprintf(stderr, "cuzk: service busy: %s\n", e.what());
        return exit_busy;
    } catch (const permission_denied& e) {
        std::fprintf(stderr, "cuzk: %s\n", e.what());
        return exit_permission;
    } catch (const std::filesystem::filesystem_error& e) {
        // A directory or file this user may not reach, met by a filesystem call anywhere: not a bug.
        if (is_permission_error(e.code()) && !e.path1().empty()) {
            std::fprintf(stderr, "cuzk: %s\n", permission_message(e.path1(), access_need::any).c_str());
            return exit_permission;
        }
        std::fprintf(stderr, "cuzk: internal error: %s\n", e.what());
        return exit_internal;
    } catch (const service_unavailable& e) {
        std::fprintf(stderr, "cuzk: service unavailable: %s\n", e.what());
        return exit_unavailable;
    } catch (const cuzk::input_error& e) {
        std::fprintf(stderr, "cuzk: error: %s\n", e.what());
        return exit_bad_input;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "cuzk: error: %s\n", e.what());
        return exit_bad_input;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk: internal error: %s\n", e.what());
        return exit_internal;
    }
}
