// The one main() shape of every stage (assemblerd, synthd, gpud):
//   parse flags -> load the TOML config -> flags override it -> log setup -> signal handlers -> pinning
//   -> serve() until SIGTERM/SIGINT -> clean up in reverse order (inside serve, by scope) -> exit code.
// Exit codes: 0 clean shutdown, 2 bad configuration or flags (the message names the file, key or flag),
// 1 a runtime failure (logged), so systemd's Restart=on-failure restarts the stage on 1 but an operator
// sees a configuration error at once instead of a restart loop hiding it.
#pragma once

#include <functional>
#include <string_view>

#include "daemon/config.hpp"

namespace cuzk::daemon {

struct daemon_definition {
    std::string_view name;         // "synthd": log prefix, `cuzk-<name>` binary
    std::string_view description;  // one line for --help
    bool takes_gpu = false;        // --gpu N (gpud)
    // Runs until shutdown_requested(); calls notify_ready() once it serves and notify_stopping() when it
    // leaves its loop. Throws input_error for configuration it cannot use.
    std::function<int(const config&)> serve;
};

int daemon_main(int argc, char** argv, const daemon_definition& def);

}  // namespace cuzk::daemon
