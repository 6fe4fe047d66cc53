// cuzk: the command-line client. Parses the command, runs it, and maps failures to exit codes:
// bad input or usage -> 2 with a message naming the file/field/offset; anything unexpected -> 4 with
// "internal error" in front, so a bug is never mistaken for a negative answer or for bad input.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>

#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "common/util/errors.hpp"
#include "common/util/version.hpp"

int main(int argc, char** argv) {
    using namespace cuzk::cli;
    CLI::App app{"cuzk: Groth16 proving for Filecoin (BLS12-381)"};
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
