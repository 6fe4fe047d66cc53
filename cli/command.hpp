// The cuzk command line: each command registers itself on the CLI11 app and leaves an action to run
// after parsing, so every command shares one error-to-exit-code policy (main.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace cuzk::update {
struct update_shape;
}

namespace cuzk::cli {

// Exit codes of the CLI (docs/command-line.md, "Exit codes"; docs/DESIGN.md, "Interfaces to keep stable"). Each
// asks for something else to be done: fix the input (2), start the service (3), retry later (5), run as another
// user or join a group (6).
enum exit_code : int {
    exit_ok = 0,
    exit_negative = 1,     // a valid request with a negative answer (the proof is invalid, the job failed)
    exit_bad_input = 2,    // bad input or usage: the message names what and where
    exit_unavailable = 3,  // the service is unavailable (daemon commands)
    exit_internal = 4,     // a bug or a resource failure (out of memory, disk full): not the input's fault
    exit_busy = 5,         // the service refuses more work now (queue full): the same request succeeds later
    exit_permission = 6,   // this user may not open a socket or file: the message names it and the fix
};

// The table of the codes above, for `cuzk --help`.
extern const char* const exit_codes_help;

using action = std::function<int()>;

void add_circuits_command(CLI::App& app, action& run);
void add_setup_command(CLI::App& app, action& run);
void add_prove_command(CLI::App& app, action& run);
void add_verify_command(CLI::App& app, action& run);
void add_demo_command(CLI::App& app, action& run);
void add_submit_command(CLI::App& app, action& run);
void add_await_command(CLI::App& app, action& run);
void add_cancel_command(CLI::App& app, action& run);
void add_status_command(CLI::App& app, action& run);
void add_bench_command(CLI::App& app, action& run);
void add_up_command(CLI::App& app, action& run);
void add_down_command(CLI::App& app, action& run);
void add_timeline_command(CLI::App& app, action& run);
void add_circuit_info_command(CLI::App& app, action& run);
void add_verify_seal_command(CLI::App& app, action& run);
void add_seal_test_command(CLI::App& app, action& run);
void add_prove_c2_command(CLI::App& app, action& run);
void add_prove_post_command(CLI::App& app, action& run);
void add_verify_post_command(CLI::App& app, action& run);
void add_prove_update_command(CLI::App& app, action& run);
void add_verify_update_command(CLI::App& app, action& run);
void add_config_reference_command(CLI::App& app, action& run);
void add_api_command(CLI::App& app, action& run);

// "sha256:4" -> "sha256_4": circuit names become file stems.
std::string circuit_file_stem(const std::string& circuit);

// prove-update's and verify-update's --h: |text| in decimal, or |shape|'s default when empty. Throws
// cuzk::input_error naming --h for a non-number or an h the sector size does not allow (cmd_prove_update.cpp).
unsigned update_h_arg(const update::update_shape& shape, const std::string& text);

}  // namespace cuzk::cli
