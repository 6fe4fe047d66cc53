// cuzk-gpud: proves partition witnesses from the ring (see gpu_service.hpp).
#include "daemon/daemon_main.hpp"
#include "gpud/gpu_service.hpp"

int main(int argc, char** argv) {
    return cuzk::daemon::daemon_main(argc, argv,
                                     {.name = "gpud",
                                      .description = "cuzk proving daemon: ring slots -> 192-byte partition proofs",
                                      .takes_gpu = true,
                                      .serve = [](const cuzk::daemon::config& c) { return cuzk::gpud::serve(c); }});
}
