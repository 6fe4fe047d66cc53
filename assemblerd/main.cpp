// cuzk-assemblerd: the front door (see assembler_service.hpp).
#include "assemblerd/assembler_service.hpp"
#include "daemon/daemon_main.hpp"

int main(int argc, char** argv) {
    return cuzk::daemon::daemon_main(
        argc, argv,
        {.name = "assemblerd",
         .description = "cuzk assembler daemon: job registry, journal, dispatch, proof assembly and verification",
         .takes_gpu = false,
         .serve = [](const cuzk::daemon::config& c) { return cuzk::assemblerd::serve(c); }});
}
