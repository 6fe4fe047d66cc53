// The python3 that can import prometheus_client (Debian's python3-prometheus-client, installed by ./dev.sh),
// whose parser the metrics tests read the exposition back with. Debian's package is for the system
// interpreter; a python3 earlier in PATH may lack it. Empty when none can.
#pragma once

#include <string>

#include "run_command.hpp"

namespace cuzk::test {

inline std::string python_with_prometheus_client() {
    for (const char* python : {"/usr/bin/python3", "python3"})
        if (run_command(std::string(python) + " -c 'import prometheus_client'").exit_code == 0) return python;
    return "";
}

}  // namespace cuzk::test
