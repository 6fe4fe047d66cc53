// Starting and stopping the three stages locally (`cuzk up`, `cuzk down`, `cuzk demo`): each daemon runs in
// its own session with its log in <runtime dir>/logs/<stage>.log and its pid in <runtime dir>/<stage>.pid.
#pragma once

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

#include "daemon/config.hpp"

namespace cuzk::cli {

inline const std::vector<std::string> stage_names{"assemblerd", "synthd", "gpud"};

// $CUZK_BIN_DIR/cuzk-<stage>, next to this cuzk, the build tree's <stage>/ beside cli/, else PATH.
std::filesystem::path find_daemon(const std::string& stage);

struct launched {
    std::string stage;
    pid_t pid = 0;
    bool already_running = false;
};

// Starts what is not running yet and waits (up to |wait|) until every stage answers STATUS_REQUEST. Throws
// service_unavailable with the tail of the log of a stage that exited or did not become ready.
std::vector<launched> start_stages(const daemon::config& c, const std::string& config_path,
                                   std::chrono::seconds wait);

// SIGTERM, then SIGKILL after |grace|. Returns the stages that were running.
std::vector<std::string> stop_stages(const daemon::config& c, std::chrono::seconds grace);

}  // namespace cuzk::cli
