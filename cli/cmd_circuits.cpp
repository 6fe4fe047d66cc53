// cuzk circuits: the built-in circuits and their sizes.
#include <cstdio>

#include "cli/command.hpp"
#include "common/circuits/registry.hpp"

namespace cuzk::cli {

void add_circuits_command(CLI::App& app, action& run) {
    auto* cmd = app.add_subcommand("circuits", "List the built-in circuits");
    cmd->callback([&run] {
        run = [] {
            for (const auto& c : circuits::list_circuits()) {
                std::printf("%-26s %s\n", c.pattern.c_str(), c.description.c_str());
            }
            return exit_ok;
        };
    });
}

std::string circuit_file_stem(const std::string& circuit) {
    std::string s = circuit;
    for (char& c : s) {
        if (c == ':' || c == '@' || c == '/') c = '_';
    }
    return s;
}

}  // namespace cuzk::cli
