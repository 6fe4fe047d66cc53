// cuzk config-reference: the daemons' configuration keys as markdown (docs/configuration.md is its output).
#include <cstdio>

#include "cli/command.hpp"
#include "daemon/config_reference.hpp"

namespace cuzk::cli {

void add_config_reference_command(CLI::App& app, action& run) {
    auto* cmd = app.add_subcommand("config-reference",
                                   "Print the configuration reference (every key, its values, default and meaning) "
                                   "as markdown");
    cmd->callback([&run] {
        run = [] {
            const std::string text = daemon::config_reference();
            std::fwrite(text.data(), 1, text.size(), stdout);
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
