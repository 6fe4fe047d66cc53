// Starting and stopping the three stages locally (`cuzk up`, `cuzk down`, `cuzk demo`): each daemon runs in
// its own session with its log in <runtime dir>/logs/<name>.log and its pid in <runtime dir>/<name>.pid, the
// name being the stage's, or gpud-<gpu> for a gpud on another GPU than [gpud] gpu (`cuzk up --gpus`).
#pragma once

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

#include "daemon/config.hpp"

namespace cuzk::cli {

// $CUZK_BIN_DIR/cuzk-<stage>, next to this cuzk, the build tree's <stage>/ beside cli/, else PATH.
std::filesystem::path find_daemon(const std::string& stage);

// One daemon of the local service: its stage, the name of its pid and log files, and a gpud's GPU (-1: none).
struct stage_instance {
    std::string stage, name;
    int gpu = -1;
};

// assemblerd, synthd, then one gpud per GPU of |gpus| (empty: [gpud] gpu alone), named "gpud" on [gpud] gpu
// and "gpud-<gpu>" on another.
std::vector<stage_instance> instances_of(const daemon::config& c, const std::vector<int>& gpus);

// "0,1,3" as GPU indices; throws input_error naming the entry that is not an index (0 to 1023) or repeats one.
std::vector<int> parse_gpu_list(const std::string& list);

struct launched {
    stage_instance instance;
    pid_t pid = 0;
    bool already_running = false;
};

// Starts the instances of instances_of(c, gpus) not running yet and waits (up to |wait|) until every one
// answers STATUS_REQUEST. Throws service_unavailable with the tail of the log of one that exited or did not
// become ready.
std::vector<launched> start_stages(const daemon::config& c, const std::string& config_path,
                                   std::chrono::seconds wait, const std::vector<int>& gpus = {});

// SIGTERM, then SIGKILL after |grace|, to every instance with a pid file in the runtime directory (every
// gpud's too, whichever GPU). Returns the names of those that were running.
std::vector<std::string> stop_stages(const daemon::config& c, std::chrono::seconds grace);

}  // namespace cuzk::cli
