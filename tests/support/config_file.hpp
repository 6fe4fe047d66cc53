// The daemons' configuration read from TOML text, as a file would give it, for the config tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/util/errors.hpp"
#include "daemon/config.hpp"

namespace cuzk::test {

// The message of the input_error load_config throws for |text|; "" when it reads.
inline std::string config_error_of(const std::string& text) {
    const auto path =
        std::filesystem::temp_directory_path() / ("cuzk-config-test-" + std::to_string(::getpid()) + ".toml");
    std::ofstream(path) << text;
    try {
        (void)daemon::load_config(path);
    } catch (const input_error& e) {
        std::filesystem::remove(path);
        return e.what();
    }
    std::filesystem::remove(path);
    return "";
}

}  // namespace cuzk::test
